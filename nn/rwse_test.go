package nn

import (
	"math"
	"os"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/tensor"
)

// RWSE equals the diagonals of the dense powers of D⁻¹A, on the path with
// a self-loop and an isolated node, and on a directed graph whose walks
// can get stuck; more nodes than one block of walks.
func TestRWSEMatchesDensePowers(t *testing.T) {
	n, ptr, src := path4()
	check := func(name string, n int, ptr, src []int32, steps int) {
		a := make([][]float64, n) // a[u][v] = 1 for an arc u→v
		for i := range a {
			a[i] = make([]float64, n)
		}
		for v := 0; v < n; v++ {
			for _, u := range src[ptr[v]:ptr[v+1]] {
				a[u][v] = 1
			}
		}
		p := make([][]float64, n)
		for u := range p {
			p[u] = make([]float64, n)
			var deg float64
			for _, x := range a[u] {
				deg += x
			}
			for v := range p[u] {
				if deg > 0 {
					p[u][v] = a[u][v] / deg
				}
			}
		}
		pk := make([][]float64, n) // P^k, from the identity
		for i := range pk {
			pk[i] = make([]float64, n)
			pk[i][i] = 1
		}
		var got tensor.Dense[float64]
		RWSEInto(&got, n, ptr, src, steps)
		for k := 0; k < steps; k++ {
			next := make([][]float64, n)
			for i := range next {
				next[i] = make([]float64, n)
				for j := range next[i] {
					for l := 0; l < n; l++ {
						next[i][j] += pk[i][l] * p[l][j]
					}
				}
			}
			pk = next
			for i := 0; i < n; i++ {
				if d := math.Abs(got.At(i, k) - pk[i][i]); d > 1e-12 {
					t.Fatalf("%s: node %d, step %d: %v, want %v", name, i, k+1, got.At(i, k), pk[i][i])
				}
			}
		}
	}
	check("path", n, ptr, src, 6)
	// A directed cycle 0→1→…→69→0 with chords i→i+3 for even i: return
	// probabilities are non-trivial and 70 nodes take two blocks.
	const m = 70
	var dptr, dsrc []int32
	dptr = append(dptr, 0)
	for v := 0; v < m; v++ {
		var in []int32
		for u := 0; u < m; u++ {
			if (u+1)%m == v || (u%2 == 0 && (u+3)%m == v) {
				in = append(in, int32(u))
			}
		}
		dsrc = append(dsrc, in...)
		dptr = append(dptr, int32(len(dsrc)))
	}
	check("directed", m, dptr, dsrc, 9)
}

// One RWSE workspace used for graphs of several sizes in turn gives what a
// fresh RWSEInto gives, and a warm call allocates nothing.
func TestRWSEReuse(t *testing.T) {
	pn, pptr, psrc := path4()
	var big, small tensor.Dense[float32]
	cycle := func(m int) (ptr, src []int32) { // 0→1→…→m−1→0, both ways
		ptr = append(ptr, 0)
		for v := 0; v < m; v++ {
			src = append(src, int32((v+m-1)%m), int32((v+1)%m))
			ptr = append(ptr, int32(len(src)))
		}
		return ptr, src
	}
	cptr, csrc := cycle(150)
	RWSEInto(&big, 150, cptr, csrc, 7)
	RWSEInto(&small, pn, pptr, psrc, 7)
	var w RWSE[float32]
	var got tensor.Dense[float32]
	for i, tc := range []struct {
		n        int
		ptr, src []int32
		want     *tensor.Dense[float32]
	}{{150, cptr, csrc, &big}, {pn, pptr, psrc, &small}, {150, cptr, csrc, &big}} {
		w.Into(&got, tc.n, tc.ptr, tc.src, 7)
		if !slices.Equal(got.Data, tc.want.Data) {
			t.Errorf("call %d (%d nodes): differs from a fresh RWSEInto", i, tc.n)
		}
	}
	if a := testing.AllocsPerRun(3, func() { w.Into(&got, 150, cptr, csrc, 7) }); a != 0 {
		t.Errorf("a warm call allocates %.1f times", a)
	}
}

func TestStandardizeColumns(t *testing.T) {
	x := tensor.FromRows([][]float64{{1, 5, 0}, {2, 5, 0}, {6, 5, 3}})
	StandardizeColumns(x, 0)
	for j := 0; j < 3; j++ {
		var mu, ss float64
		for i := 0; i < 3; i++ {
			mu += x.At(i, j)
			ss += x.At(i, j) * x.At(i, j)
		}
		want := 1.0
		if j == 1 { // constant
			want = 0
		}
		if !(math.Abs(mu) <= 1e-12 && math.Abs(ss/3-want) <= 1e-12) {
			t.Errorf("column %d: mean %v, variance %v", j, mu/3, ss/3)
		}
	}
}

// IntoSegments gives Into's bits on batches of real graphs (MUTAG, and
// PROTEINS and NCI1 where $PRCAPS_DATA has them).
func TestRWSEIntoSegmentsMatchesInto(t *testing.T) {
	names := []string{"mutag"}
	if os.Getenv(data.EnvVar) != "" {
		names = append(names, "proteins", "nci1")
	}
	for _, name := range names {
		ds, err := data.Load(name, data.Options{Root: os.Getenv(data.EnvVar)})
		if err != nil {
			if name == "mutag" {
				t.Fatal(err)
			}
			continue
		}
		g := ds.Graph
		var w RWSE[float32]
		var b data.GraphBatch
		for i0 := 0; i0 < len(g.Graphs); i0 += 97 {
			var idx []int32
			for i := i0; i < min(i0+32, len(g.Graphs)); i++ {
				idx = append(idx, int32(i))
			}
			if err := b.Build(g, idx); err != nil {
				t.Fatal(err)
			}
			var whole, parts tensor.Dense[float32]
			RWSEInto(&whole, b.N, b.Ptr, b.Src, 16)
			w.IntoSegments(&parts, b.N, b.Ptr, b.Src, b.Seg, 16)
			if !slices.Equal(whole.Data, parts.Data) {
				t.Fatalf("%s, graphs %d…: IntoSegments differs from Into", name, i0)
			}
		}
	}
}
