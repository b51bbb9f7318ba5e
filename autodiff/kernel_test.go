package autodiff

import (
	"math"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// The bandwidth input is shifted to [1.5, 2.5] by AddScalar: γ must be
// positive, and the harness fills every input uniformly in [−1, 1].
func ewtKernelCases[T Float]() []ewtCase[T] {
	gamma := func(tp *Tape[T], g *Var[T]) *Var[T] { return AddScalar(tp, g, 2) }
	// Segments of 3, 0, 1 and 3 rows: an empty one and a single row too.
	seg := []int32{0, 3, 3, 4, 7}
	return []ewtCase[T]{
		{name: "GaussianKernel", shapes: [][2]int{{4, 3}, {5, 3}, {1, 1}}, build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GaussianKernel(tp, in[0], in[1], gamma(tp, in[2]))
		}},
		// One Var on both sides: its gradient gathers both paths.
		{name: "GaussianKernel/self", shapes: [][2]int{{4, 2}, {1, 1}}, build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GaussianKernel(tp, in[0], in[0], gamma(tp, in[1]))
		}},
		{name: "SegmentKernelMean", shapes: [][2]int{{7, 3}, {1, 1}}, build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return SegmentKernelMean(tp, in[0], gamma(tp, in[1]), seg)
		}},
		// GRDL's use: the MMD of each segment's rows to a reference set,
		// √(E k(x, x') + E k(y, y') − 2 E k(x, y)).
		{name: "MMD", shapes: [][2]int{{7, 3}, {4, 3}, {1, 1}}, build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			g := gamma(tp, in[2])
			s := []int32{0, 3, 4, 7}
			c := tensor.NewDense[T](3, 1) // 1/n per segment
			c.Data[0], c.Data[1], c.Data[2] = T(1.0/3), 1, T(1.0/3)
			inv := NewVar(c, false)
			xx := SegmentKernelMean(tp, in[0], g, s)
			yy := Mean(tp, GaussianKernel(tp, in[1], in[1], g))
			xy := Mul(tp, RowMean(tp, ScatterAddRows(tp, GaussianKernel(tp, in[0], in[1], g), s)), inv)
			return Sqrt(tp, Sub(tp, Add(tp, xx, yy), Scale(tp, xy, 2)), 1e-6)
		}},
	}
}

func TestKernelGradients(t *testing.T) {
	ewtRunBoth(t, ewtKernelCases[float64], ewtKernelCases[float32])
}

// The values against the definitions, on points whose distances are known.
func TestKernelForward(t *testing.T) {
	x := NewVar(tensor.FromRows([][]float64{{0, 0}, {1, 0}, {3, 4}}), false)
	y := NewVar(tensor.FromRows([][]float64{{0, 1}}), false)
	g := NewVar(tensor.FromRows([][]float64{{2}}), false)
	var tp Tape[float64]
	k := GaussianKernel(&tp, x, y, g)
	want := []float64{math.Exp(-1.0 / 2), math.Exp(-2.0 / 2), math.Exp(-18.0 / 2)}
	for i, w := range want {
		if math.Abs(k.Value.Data[i]-w) > 1e-15 {
			t.Errorf("GaussianKernel[%d] = %v, want %v", i, k.Value.Data[i], w)
		}
	}
	m := SegmentKernelMean(&tp, x, g, []int32{0, 2, 2, 3})
	// Segment 0: k = 1, 1 on the diagonal and e^{−1/2} twice off it.
	want = []float64{(2 + 2*math.Exp(-0.5)) / 4, 0, 1}
	for i, w := range want {
		if math.Abs(m.Value.Data[i]-w) > 1e-15 {
			t.Errorf("SegmentKernelMean[%d] = %v, want %v", i, m.Value.Data[i], w)
		}
	}
	// SegmentKernelMean equals the block means of the full kernel matrix.
	full := GaussianKernel(&tp, x, x, g)
	if got, w := m.Value.Data[0], (full.Value.Data[0]+full.Value.Data[1]+full.Value.Data[3]+full.Value.Data[4])/4; math.Abs(got-w) > 1e-15 {
		t.Errorf("segment 0: %v, block mean of the kernel matrix %v", got, w)
	}
}
