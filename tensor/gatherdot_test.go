package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gatherDotRef is the obvious float64 loop GatherDot must match.
func gatherDotRef(dst, q []float64, h []float64, c int, idx []int32, acc bool) {
	for e, r := range idx {
		s := 0.0
		for j := range q {
			s += q[j] * h[int(r)*c+j]
		}
		if acc {
			dst[e] += s
		} else {
			dst[e] = s
		}
	}
}

// TestGatherDot compares float32 (the AVX2 kernel where available) and
// float64 against the reference over widths around the 8-column blocks,
// with and without accumulation, reading the last row of h (whose tail the
// masked loads must not overrun).
func TestGatherDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rows = 30
	for _, c := range []int{1, 3, 7, 8, 9, 16, 18, 24, 33} {
		h64 := make([]float64, rows*c)
		for i := range h64 {
			h64[i] = rng.Float64()*2 - 1
		}
		q64 := make([]float64, c)
		for i := range q64 {
			q64[i] = rng.Float64()*2 - 1
		}
		idx := []int32{rows - 1}
		for range 40 {
			idx = append(idx, int32(rng.IntN(rows)))
		}
		for _, acc := range []bool{false, true} {
			want := make([]float64, len(idx))
			for i := range want {
				want[i] = float64(i % 5)
			}
			got32 := make([]float32, len(idx))
			got64 := append([]float64(nil), want...)
			for i, v := range want {
				got32[i] = float32(v)
			}
			gatherDotRef(want, q64, h64, c, idx, acc)
			h32 := &Dense[float32]{Rows: rows, Cols: c, Data: make([]float32, rows*c)}
			for i, v := range h64 {
				h32.Data[i] = float32(v)
			}
			q32 := make([]float32, c)
			for i, v := range q64 {
				q32[i] = float32(v)
			}
			GatherDot(got32, q32, h32, idx, acc)
			GatherDot(got64, q64, &Dense[float64]{Rows: rows, Cols: c, Data: h64}, idx, acc)
			for e := range idx {
				if d := math.Abs(float64(got32[e]) - want[e]); d > 1e-5*(1+float64(c)) {
					t.Fatalf("float32 c=%d acc=%v: dst[%d] = %v, want %v", c, acc, e, got32[e], want[e])
				}
				if d := math.Abs(got64[e] - want[e]); d > 1e-12 {
					t.Fatalf("float64 c=%d acc=%v: dst[%d] = %v, want %v", c, acc, e, got64[e], want[e])
				}
			}
		}
	}
}

// TestGatherDotRowsAlone checks that the kernel's four-row batches give
// every dot exactly the bits of the same row computed on its own (the
// one-row path), for counts that leave each remainder 0-3.
func TestGatherDotRowsAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows = 50
	for _, c := range []int{1, 7, 8, 9, 16, 18, 24, 33, 64} {
		h := NewDense[float32](rows, c)
		for i := range h.Data {
			h.Data[i] = rng.Float32()*2 - 1
		}
		q := make([]float32, c)
		for i := range q {
			q[i] = rng.Float32()*2 - 1
		}
		for _, n := range []int{1, 3, 4, 5, 8, 10, 27} {
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(rng.IntN(rows))
			}
			idx[n-1] = rows - 1
			for _, acc := range []bool{false, true} {
				got := make([]float32, n)
				want := make([]float32, n)
				for i := range got {
					got[i] = float32(i%3) - 0.5
					want[i] = got[i]
				}
				GatherDot(got, q, h, idx, acc)
				for e := range idx {
					GatherDot(want[e:e+1], q, h, idx[e:e+1], acc)
				}
				for e := range idx {
					if math.Float32bits(got[e]) != math.Float32bits(want[e]) {
						t.Fatalf("c=%d n=%d acc=%v: dst[%d] = %v in a batch, %v alone", c, n, acc, e, got[e], want[e])
					}
				}
			}
		}
	}
}

// TestGatherDotSegments compares GatherDotSegments over sub-ranges of
// segments, empty ones included, with one GatherDot call per segment, bit
// for bit, in float32 and float64; pairs outside [lo, hi) stay untouched.
func TestGatherDotSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const rows, segs = 20, 12
	for _, c := range []int{3, 8, 18, 33} {
		h := NewDense[float32](rows, c)
		for i := range h.Data {
			h.Data[i] = rng.Float32()*2 - 1
		}
		h64 := NewDense[float64](rows, c)
		for i, v := range h.Data {
			h64.Data[i] = float64(v)
		}
		q := make([]float32, segs*c)
		for i := range q {
			q[i] = rng.Float32()*2 - 1
		}
		q64 := make([]float64, len(q))
		for i, v := range q {
			q64[i] = float64(v)
		}
		ptr := []int32{0}
		var idx []int32
		for range segs {
			for n := rng.IntN(7); n > 0; n-- {
				idx = append(idx, int32(rng.IntN(rows)))
			}
			ptr = append(ptr, int32(len(idx)))
		}
		for _, r := range [][2]int{{0, segs}, {3, 8}, {5, 5}} {
			for _, acc := range []bool{false, true} {
				got, want := make([]float32, len(idx)), make([]float32, len(idx))
				got64, want64 := make([]float64, len(idx)), make([]float64, len(idx))
				for i := range got {
					got[i] = float32(i%4) - 1
					want[i], got64[i], want64[i] = got[i], float64(got[i]), float64(got[i])
				}
				GatherDotSegments(got, q, h, ptr, idx, r[0], r[1], acc)
				GatherDotSegments(got64, q64, h64, ptr, idx, r[0], r[1], acc)
				for j := r[0]; j < r[1]; j++ {
					a, b := ptr[j], ptr[j+1]
					GatherDot(want[a:b], q[j*c:(j+1)*c], h, idx[a:b], acc)
					GatherDot(want64[a:b], q64[j*c:(j+1)*c], h64, idx[a:b], acc)
				}
				for e := range got {
					if math.Float32bits(got[e]) != math.Float32bits(want[e]) || got64[e] != want64[e] {
						t.Fatalf("c=%d segments %v acc=%v: dst[%d] = %v, %v; want %v, %v", c, r, acc, e, got[e], got64[e], want[e], want64[e])
					}
				}
			}
		}
	}
}

func TestGatherDotSegmentsRejectsBadInput(t *testing.T) {
	h := NewDense[float32](3, 4)
	q := make([]float32, 8)
	for _, tc := range []struct {
		name     string
		ptr, idx []int32
		q        []float32
		hi       int
	}{
		{"row outside h", []int32{0, 1, 2}, []int32{0, 3}, q, 2},
		{"segment backwards", []int32{0, 2, 1}, []int32{0, 1}, q, 2},
		{"short q", []int32{0, 1, 2}, []int32{0, 1}, q[:5], 2},
		{"short idx", []int32{0, 1, 3}, []int32{0, 1}, q, 2},
		{"past the segments", []int32{0, 1, 2}, []int32{0, 1}, q, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			GatherDotSegments(make([]float32, 4), tc.q, h, tc.ptr, tc.idx, 0, tc.hi, false)
		})
	}
}

func TestGatherDotRejectsBadInput(t *testing.T) {
	h := NewDense[float32](3, 4)
	for _, tc := range []struct {
		name string
		dst  []float32
		q    []float32
		idx  []int32
	}{
		{"row outside h", make([]float32, 1), make([]float32, 4), []int32{3}},
		{"negative row", make([]float32, 1), make([]float32, 4), []int32{-1}},
		{"q length", make([]float32, 1), make([]float32, 3), []int32{0}},
		{"dst length", make([]float32, 2), make([]float32, 4), []int32{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			GatherDot(tc.dst, tc.q, h, tc.idx, false)
		})
	}
}

// BenchmarkGatherDot is the routing agreement shape: d = 18 dot products
// with 24 gathered rows (six links × K = 4) per call.
func BenchmarkGatherDot(b *testing.B) {
	for _, c := range []int{8, 18, 64} {
		b.Run(fmt.Sprint("c=", c), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			const rows = 4096
			h := NewDense[float32](rows, c)
			for i := range h.Data {
				h.Data[i] = rng.Float32()
			}
			q := h.Data[:c]
			idx := make([]int32, 24)
			for i := range idx {
				idx[i] = int32(rng.IntN(rows))
			}
			dst := make([]float32, len(idx))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				GatherDot(dst, q, h, idx, true)
			}
		})
	}
}
