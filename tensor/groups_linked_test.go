package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// linkedGroups returns a child grouping of random links: ptr over the
// groups (children), their sources (parents) and link ids, each group's
// links in increasing id order, as a routing layer's child grouping is;
// E links in all, some groups empty.
func linkedGroups(rng *rand.Rand, groups, sources, maxDeg int) (ptr, src, link []int32, E int) {
	type arc struct{ child, parent int32 }
	var arcs []arc
	for p := 0; p < sources; p++ {
		for range rng.IntN(maxDeg + 1) {
			arcs = append(arcs, arc{int32(rng.IntN(groups)), int32(p)})
		}
	}
	// Link ids in parent order; the grouping by child keeps them increasing.
	ptr = make([]int32, groups+1)
	for _, a := range arcs {
		ptr[a.child+1]++
	}
	for g := 0; g < groups; g++ {
		ptr[g+1] += ptr[g]
	}
	src = make([]int32, len(arcs))
	link = make([]int32, len(arcs))
	fill := append([]int32(nil), ptr[:groups]...)
	for e, a := range arcs {
		q := fill[a.child]
		fill[a.child]++
		src[q], link[q] = a.parent, int32(e)
	}
	return ptr, src, link, len(arcs)
}

// AggregateGroupedLinked gives AggregateGrouped's bits on the weights
// reordered by hand: float32 rows of 17-23 columns in groups of four (the
// AVX2 and AVX-512 kernels, on one goroutine and on several), and other
// shapes and float64 (the reordering path), with and without accumulation.
func TestAggregateGroupedLinked(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(v bool) { linkedAVX2Only = v }(linkedAVX2Only)
	for _, avx2 := range []bool{false, true} {
		linkedAVX2Only = avx2
		t.Run(fmt.Sprintf("avx2only=%v", avx2), checkAggregateGroupedLinked)
	}
}

func checkAggregateGroupedLinked(t *testing.T) {
	for _, tc := range []struct{ g, c, groups int }{
		{4, 18, 700}, {4, 17, 300}, {4, 23, 300}, {4, 18, 3}, {4, 16, 200}, {4, 24, 200}, {2, 18, 200}, {1, 9, 200},
	} {
		for _, acc := range []bool{true, false} {
			name := fmt.Sprintf("g=%d/c=%d/groups=%d/acc=%v", tc.g, tc.c, tc.groups, acc)
			t.Run(name+"/float32", func(t *testing.T) { checkGroupedLinked[float32](t, tc.g, tc.c, tc.groups, acc) })
			t.Run(name+"/float64", func(t *testing.T) { checkGroupedLinked[float64](t, tc.g, tc.c, tc.groups, acc) })
		}
	}
}

func checkGroupedLinked[T Float](t *testing.T, g, c, groups int, acc bool) {
	rng := rand.New(rand.NewPCG(uint64(g*100+c), uint64(groups)))
	ptr, src, link, E := linkedGroups(rng, groups, 500, 7)
	h := randDense[T](rng, 500, c)
	w := make([]T, E*g)
	for i := range w {
		w[i] = T(rng.Float64()*2 - 1)
	}
	var gr Groups
	if err := gr.Set(ptr, src, g); err != nil {
		t.Fatal(err)
	}
	if err := gr.SetLinks(link); err != nil {
		t.Fatal(err)
	}
	// The weights in AggregateGrouped's order: row r of group s, term t.
	wc := make([]T, len(w))
	for s := 0; s < groups; s++ {
		e0, e1 := int(ptr[s]), int(ptr[s+1])
		for t2 := e0; t2 < e1; t2++ {
			for r := 0; r < g; r++ {
				wc[g*e0+r*(e1-e0)+(t2-e0)] = w[int(link[t2])*g+r]
			}
		}
	}
	start := randDense[T](rng, groups*g, c)
	want := start.Clone()
	AggregateGrouped(want, &gr, wc, h, acc)
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		got := start.Clone()
		AggregateGroupedLinked(got, &gr, w, h, acc)
		for i, v := range want.Data {
			if math.Float32bits(float32(got.Data[i])) != math.Float32bits(float32(v)) || got.Data[i] != v {
				t.Fatalf("GOMAXPROCS %d: element %d (row %d): %v, AggregateGrouped %v", procs, i, i/c, got.Data[i], v)
			}
		}
	}
}

// AggregateGroupedLinked refuses groups without link ids and link ids
// outside the weights; SetLinks refuses a wrong count and negative ids.
func TestAggregateGroupedLinkedRejects(t *testing.T) {
	ptr, src, link := []int32{0, 2, 3}, []int32{0, 1, 1}, []int32{0, 2, 1}
	h := NewDense[float32](2, 18)
	dst := NewDense[float32](8, 18)
	var bare, gr Groups
	if err := bare.Set(ptr, src, 4); err != nil {
		t.Fatal(err)
	}
	gr = bare
	if err := gr.SetLinks(link); err != nil {
		t.Fatal(err)
	}
	if err := gr.SetLinks(link[:2]); err == nil {
		t.Error("SetLinks took 2 link ids for 3 sources")
	}
	if err := gr.SetLinks([]int32{0, -1, 1}); err == nil {
		t.Error("SetLinks took a negative link id")
	}
	for name, f := range map[string]func(){
		"no link ids": func() { AggregateGroupedLinked(dst, &bare, make([]float32, 12), h, true) },
		"short w":     func() { AggregateGroupedLinked(dst, &gr, make([]float32, 8), h, true) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

// BenchmarkAggregateGroupedLinked times the routing's child-side sum (groups
// of four rows, 18 columns, about five links a child) read through the link
// ids, against the weights first reordered by row (what the routing did
// before) and summed by AggregateGrouped, at several sizes.
func BenchmarkAggregateGroupedLinked(b *testing.B) {
	for _, n := range []int{2708, 32768, 262144} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		ptr, src, link, E := linkedGroups(rng, n, n, 9)
		h := randDense[float32](rng, n, 18)
		w := make([]float32, 4*E)
		for i := range w {
			w[i] = rng.Float32()
		}
		var gr Groups
		if err := gr.Set(ptr, src, 4); err != nil {
			b.Fatal(err)
		}
		if err := gr.SetLinks(link); err != nil {
			b.Fatal(err)
		}
		dst := NewDense[float32](4*n, 18)
		b.Run(fmt.Sprintf("linked/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				AggregateGroupedLinked(dst, &gr, w, h, true)
			}
		})
		wc := make([]float32, len(w))
		b.Run(fmt.Sprintf("reordered/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				for s := 0; s < n; s++ {
					e0, e1 := int(ptr[s]), int(ptr[s+1])
					for t, l := range link[e0:e1] {
						for r := 0; r < 4; r++ {
							wc[4*e0+r*(e1-e0)+t] = w[int(l)*4+r]
						}
					}
				}
				AggregateGrouped(dst, &gr, wc, h, true)
			}
		})
	}
}
