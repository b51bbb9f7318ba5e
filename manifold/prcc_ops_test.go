package manifold

import (
	"fmt"
	"math"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// alignRef is the alignment's forward pass one metric at a time, in the
// order the op's contract fixes for each sum: the interleaved forward pass
// must give its bits.
func alignRef(z, w []float32, n, C, d, neg int, perClass bool) []float32 {
	metric := func(a, b []float32) float64 {
		return -dotT(a[:neg], b[:neg]) + dotT(a[neg:], b[neg:])
	}
	out := make([]float32, n*C)
	for i := 0; i < n; i++ {
		for c := 0; c < C; c++ {
			r := i
			if perClass {
				r = i*C + c
			}
			zr, wc := z[r*d:(r+1)*d], w[c*d:(c+1)*d]
			nz := math.Max(math.Sqrt(math.Abs(metric(zr, zr))), AlignEps)
			nw := math.Max(math.Sqrt(math.Abs(metric(wc, wc))), AlignEps)
			out[i*C+c] = float32(math.Max(-AlignClip, math.Min(AlignClip, metric(zr, wc)/(nz*nw))))
		}
	}
	return out
}

// TestAlignInterleavedBits checks Align and AlignPerClass against alignRef
// bit for bit, for class counts that leave every remainder of the
// four-class blocks and for time blocks of every width.
func TestAlignInterleavedBits(t *testing.T) {
	rng := newRNG(7)
	for _, perClass := range []bool{false, true} {
		for _, dims := range []Dims{{S: 9, T: 9}, {S: 0, T: 4}, {S: 3, T: 1}, {S: 12, T: 5}} {
			for _, C := range []int{1, 2, 3, 4, 5, 7, 8, 10} {
				t.Run(fmt.Sprintf("perClass=%v/S=%d,T=%d/C=%d", perClass, dims.S, dims.T, C), func(t *testing.T) {
					d, n := dims.Tangent(), 37
					zr := n
					if perClass {
						zr = n * C
					}
					z, w := tensor.NewDense[float32](zr, d), tensor.NewDense[float32](C, d)
					for _, m := range []*tensor.Dense[float32]{z, w} {
						for i := range m.Data {
							m.Data[i] = float32(rng.NormFloat64())
						}
					}
					var tp autodiff.Tape[float32]
					tp.NoGrad = true
					zv, wv := leaf(z, "z"), leaf(w, "w")
					var out *autodiff.Var[float32]
					if perClass {
						out = AlignPerClass(&tp, zv, wv, dims)
					} else {
						out = Align(&tp, zv, wv, dims)
					}
					want := alignRef(z.Data, w.Data, n, C, d, dims.T, perClass)
					for e, v := range out.Value.Data {
						if math.Float32bits(v) != math.Float32bits(want[e]) {
							t.Fatalf("element %d: %v, want %v", e, v, want[e])
						}
					}
				})
			}
		}
	}
}

// BenchmarkAlignForward32 is the node classifier's alignment (one z row
// per node scored against every class) and the graph classifier's (one z
// row per class capsule) on Cora-sized inputs.
func BenchmarkAlignForward32(b *testing.B) { benchAlign(b, false) }

// BenchmarkAlignForwardBackward32 is BenchmarkAlignForward32 with the
// backward pass of an upstream gradient of ones.
func BenchmarkAlignForwardBackward32(b *testing.B) { benchAlign(b, true) }

func benchAlign(b *testing.B, backward bool) {
	dims := Dims{S: 8, T: 8}
	for _, perClass := range []bool{false, true} {
		b.Run(fmt.Sprintf("perClass=%v", perClass), func(b *testing.B) {
			const n, C = 2708, 7
			d := dims.Tangent()
			zr := n
			if perClass {
				zr = n * C
			}
			rng := newRNG(1)
			z, w := tensor.NewDense[float32](zr, d), tensor.NewDense[float32](C, d)
			for _, m := range []*tensor.Dense[float32]{z, w} {
				for i := range m.Data {
					m.Data[i] = float32(rng.NormFloat64())
				}
			}
			zv, wv := autodiff.NewVar(z, backward), autodiff.NewVar(w, backward)
			var tp autodiff.Tape[float32]
			tp.NoGrad = !backward
			seed := tensor.NewDense[float32](n, C)
			for i := range seed.Data {
				seed.Data[i] = 1
			}
			b.ReportAllocs()
			for b.Loop() {
				tp.Reset()
				var out *autodiff.Var[float32]
				if perClass {
					out = AlignPerClass(&tp, zv, wv, dims)
				} else {
					out = Align(&tp, zv, wv, dims)
				}
				if backward {
					if err := tp.BackwardSeeded(out, seed); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
