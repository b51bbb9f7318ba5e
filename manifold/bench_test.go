package manifold

import (
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// benchRows is the benchmark batch: 1M points of Q_{9,9} (D = 19).
const benchRows = 1 << 20

func benchInputs(b *testing.B, tangent bool) (*autodiff.Var[float32], *autodiff.Var[float32], *tensor.Dense[float32], Dims) {
	b.Helper()
	d := Dims{S: 9, T: 9}
	rng := newRNG(1)
	cols := d.Ambient()
	if tangent {
		cols = d.Tangent()
	}
	m := tensor.NewDense[float32](benchRows, cols)
	// 4096 distinct random rows, tiled (generating 1M with the reference
	// would dominate the run).
	const distinct = 4096
	for i := 0; i < distinct; i++ {
		var row []float64
		if tangent {
			row = randTangent(rng, d, -1, 0, 3, 1)
		} else {
			row = randPointQ(rng, d, -1, 1)
		}
		for j, v := range row {
			m.Data[i*cols+j] = float32(v)
		}
	}
	for i := distinct; i < benchRows; i++ {
		copy(m.Row(i), m.Row(i%distinct))
	}
	outCols := d.Tangent()
	if tangent {
		outCols = d.Ambient()
	}
	seed := tensor.NewDense[float32](benchRows, outCols)
	for i := range seed.Data {
		seed.Data[i] = 1
	}
	return leaf(m, "x"), scalarVar[float32](RhoInit, "ρ"), seed, d
}

func benchOp(b *testing.B, tangent, backward bool) {
	x, rho, seed, d := benchInputs(b, tangent)
	var tp autodiff.Tape[float32]
	if !backward {
		tp.NoGrad = true
	}
	pass := func() {
		tp.Reset()
		beta := Beta(&tp, rho)
		var out *autodiff.Var[float32]
		if tangent {
			out = ExpO(&tp, x, beta, d)
		} else {
			out = LogO(&tp, x, beta, d)
		}
		if backward {
			if err := tp.BackwardSeeded(out, seed); err != nil {
				b.Fatal(err)
			}
		}
	}
	pass()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pass()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/point")
}

// BenchmarkLogOForward32 times loĝ_o on 1M float32 points of Q_{9,9}.
func BenchmarkLogOForward32(b *testing.B) { benchOp(b, false, false) }

// BenchmarkLogOForwardBackward32 times loĝ_o forward and backward (∂x, ∂ρ).
func BenchmarkLogOForwardBackward32(b *testing.B) { benchOp(b, false, true) }

// BenchmarkExpOForward32 times exp̂_o on 1M float32 tangent vectors (d = 18).
func BenchmarkExpOForward32(b *testing.B) { benchOp(b, true, false) }

// BenchmarkExpOForwardBackward32 times exp̂_o forward and backward (∂ξ, ∂ρ).
func BenchmarkExpOForwardBackward32(b *testing.B) { benchOp(b, true, true) }
