package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAggregateRowsAVXMatchesGo compares the assembly row kernels with the
// portable loop over widths around the 8- and 32-column blocks, unit and
// explicit weights, accumulation, and empty rows.
func TestAggregateRowsAVXMatchesGo(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2+FMA on this machine")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const rows = 40
	for _, c := range []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 18, 20, 23, 24, 31, 32, 33, 39, 40, 64, 70} {
		h := make([]float32, rows*c)
		for i := range h {
			h[i] = rng.Float32()*2 - 1
		}
		ptr := []int32{0}
		var src []int32
		var w []float32
		for v := 0; v < rows; v++ {
			for e := rng.IntN(6); e > 0; e-- { // some rows empty
				src = append(src, int32(rng.IntN(rows)))
				wt := rng.Float32()
				if rng.IntN(3) == 0 {
					wt = 0 // dropped by dropout: skipped
				}
				w = append(w, wt)
			}
			ptr = append(ptr, int32(len(src)))
		}
		for _, weights := range [][]float32{w, nil} {
			for _, acc := range []bool{false, true} {
				got := make([]float32, rows*c)
				want := make([]float32, rows*c)
				for i := range got {
					got[i], want[i] = float32(i%7), float32(i%7)
				}
				aggregateRowsAVX(got, h, weights, c, ptr, src, acc, 0, rows)
				aggregateRowsBlas(want, h, weights, c, ptr, src, acc, 0, rows, axpyGo[float32])
				for i := range got {
					if math.Abs(float64(got[i]-want[i])) > 1e-5 {
						t.Fatalf("c=%d weighted=%v acc=%v: element %d = %v, want %v", c, weights != nil, acc, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func TestAggregateRejectsBadSources(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("source index outside h: no panic")
		}
	}()
	h := NewDense[float32](2, 8)
	dst := NewDense[float32](1, 8)
	Aggregate(dst, []int32{0, 1}, []int32{2}, nil, h, false)
}
