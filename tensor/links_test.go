package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomLinks returns the CSR of parents links over children children with
// up to maxDeg links a parent (some parents have none) and the pair index
// written out for k rows per link.
func randomLinks(rng *rand.Rand, parents, children, maxDeg, k int) (ptr, child, pptr, pidx []int32) {
	ptr = []int32{0}
	for range parents {
		for range rng.IntN(maxDeg + 1) {
			child = append(child, int32(rng.IntN(children)))
		}
		ptr = append(ptr, int32(len(child)))
	}
	pptr, pidx = writePairs(ptr, child, k)
	return ptr, child, pptr, pidx
}

func bitsEqual[T Float](a, b T) bool {
	return math.Float64bits(float64(a)) == math.Float64bits(float64(b))
}

// AggregateLinks and GatherDotLinks give Aggregate's and
// GatherDotSegments' bits on the pair index written out: k = 1, 3 and 4 (4
// takes the direct kernels on AVX2), widths inside and outside 17-23
// columns, empty parents, unit and explicit weights, accumulating or not,
// float32 and float64.
func TestLinksMatchPairIndex(t *testing.T) {
	t.Run("float32", func(t *testing.T) { linksMatchPairIndex[float32](t) })
	t.Run("float64", func(t *testing.T) { linksMatchPairIndex[float64](t) })
}

func linksMatchPairIndex[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const parents, children = 37, 23
	for _, k := range []int{1, 3, 4} {
		for _, c := range []int{1, 7, 8, 17, 18, 23, 24, 40} {
			ptr, child, pptr, pidx := randomLinks(rng, parents, children, 9, k)
			h := randDense[T](rng, children*k, c)
			w := make([]T, len(pidx))
			for i := range w {
				w[i] = T(rng.Float64()*2 - 1)
			}
			for _, weights := range [][]T{w, nil} {
				for _, acc := range []bool{false, true} {
					name := fmt.Sprintf("k=%d c=%d weights=%v acc=%v", k, c, weights != nil, acc)
					got, want := randDense[T](rng, parents, c), NewDense[T](parents, c)
					copy(want.Data, got.Data)
					AggregateLinks(got, ptr, child, k, weights, h, acc)
					Aggregate(want, pptr, pidx, weights, h, acc)
					for i := range got.Data {
						if !bitsEqual(got.Data[i], want.Data[i]) {
							t.Fatalf("AggregateLinks %s: element %d = %v, Aggregate gives %v", name, i, got.Data[i], want.Data[i])
						}
					}
				}
			}
			q := randDense[T](rng, parents, c)
			for _, acc := range []bool{false, true} {
				for _, seg := range [][2]int{{0, parents}, {5, 20}, {7, 7}} {
					got, want := make([]T, len(pidx)), make([]T, len(pidx))
					for i := range got {
						got[i] = T(i % 3)
						want[i] = got[i]
					}
					GatherDotLinks(got, q.Data, h, ptr, child, k, seg[0], seg[1], acc)
					GatherDotSegments(want, q.Data, h, pptr, pidx, seg[0], seg[1], acc)
					for i := range got {
						if !bitsEqual(got[i], want[i]) {
							t.Fatalf("GatherDotLinks k=%d c=%d acc=%v segments %v: element %d = %v, GatherDotSegments gives %v", k, c, acc, seg, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// Bad structures panic rather than read out of bounds.
func TestLinksRejectBadInput(t *testing.T) {
	h := NewDense[float32](8, 18) // two children of four rows
	for name, f := range map[string]func(){
		"aggregate: child outside h": func() {
			AggregateLinks(NewDense[float32](1, 18), []int32{0, 1}, []int32{2}, 4, make([]float32, 4), h, false)
		},
		"aggregate: decreasing ptr": func() {
			AggregateLinks(NewDense[float32](2, 18), []int32{0, 1, 0}, []int32{1}, 4, make([]float32, 4), h, false)
		},
		"aggregate: weights": func() {
			AggregateLinks(NewDense[float32](1, 18), []int32{0, 1}, []int32{1}, 4, make([]float32, 3), h, false)
		},
		"aggregate: h rows not a multiple of k": func() {
			AggregateLinks(NewDense[float32](1, 18), []int32{0, 1}, []int32{0}, 3, make([]float32, 3), h, false)
		},
		"gather: child outside h": func() {
			GatherDotLinks(make([]float32, 4), make([]float32, 18), h, []int32{0, 1}, []int32{-1}, 4, 0, 1, false)
		},
		"gather: ptr past the links": func() {
			GatherDotLinks(make([]float32, 8), make([]float32, 18), h, []int32{0, 2}, []int32{1}, 4, 0, 1, false)
		},
		"gather: short dst": func() {
			GatherDotLinks(make([]float32, 3), make([]float32, 18), h, []int32{0, 1}, []int32{1}, 4, 0, 1, false)
		},
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

// BenchmarkAggregateLinks times the routing's weighted sum over pairs at
// several sizes (degree 5, four perspectives, d = 18), from the links
// (AggregateLinks) and through the pair index (Aggregate).
func BenchmarkAggregateLinks(b *testing.B) {
	for _, n := range []int{2708, 32768, 262144} {
		rng := rand.New(rand.NewPCG(1, 2))
		ptr, child, pptr, pidx := randomLinks(rng, n, n, 9, 4)
		h := randDense[float32](rng, 4*n, 18)
		w := make([]float32, len(pidx))
		for i := range w {
			w[i] = rng.Float32()
		}
		dst := NewDense[float32](n, 18)
		b.Run(fmt.Sprintf("links/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				AggregateLinks(dst, ptr, child, 4, w, h, false)
			}
		})
		b.Run(fmt.Sprintf("pairs/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				Aggregate(dst, pptr, pidx, w, h, false)
			}
		})
		q := randDense[float32](rng, n, 18)
		out := make([]float32, len(pidx))
		b.Run(fmt.Sprintf("dot-links/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				GatherDotLinks(out, q.Data, h, ptr, child, 4, 0, n, false)
			}
		})
		b.Run(fmt.Sprintf("dot-pairs/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				GatherDotSegments(out, q.Data, h, pptr, pidx, 0, n, false)
			}
		})
	}
}
