package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func ewtReduceCases[T Float]() []ewtCase[T] {
	un := func(f func(*Tape[T], *Var[T]) *Var[T]) func(*Tape[T], []*Var[T]) *Var[T] {
		return func(tp *Tape[T], in []*Var[T]) *Var[T] { return f(tp, in[0]) }
	}
	return []ewtCase[T]{
		{name: "Sum", shapes: [][2]int{{4, 3}}, build: un(Sum[T])},
		{name: "Mean", shapes: [][2]int{{4, 3}}, build: un(Mean[T])},
		{name: "SumRows", shapes: [][2]int{{4, 3}}, build: un(SumRows[T])},
		{name: "MeanRows", shapes: [][2]int{{4, 3}}, build: un(MeanRows[T])},
		{name: "RowSum", shapes: [][2]int{{4, 3}}, build: un(RowSum[T])},
		{name: "RowMean", shapes: [][2]int{{4, 3}}, build: un(RowMean[T])},
		{name: "Sum/1x1", shapes: [][2]int{{1, 1}}, build: un(Sum[T])},
		// Row-normalisation, a typical composite: x / Σ_j x_ij.
		{name: "normalise", shapes: [][2]int{{3, 4}}, gen: ewtUniform(0.5, 1.5),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
				return Mul(tp, in[0], Exp(tp, Scale(tp, Log(tp, RowSum(tp, in[0])), -1)))
			}},
	}
}

func TestReduceGradients(t *testing.T) {
	ewtRunBoth(t, ewtReduceCases[float64], ewtReduceCases[float32])
}

func TestReduceForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const R, C = 5, 3
	x := ewtVar[float64](rng, "x", R, C, nil)
	var tp Tape[float64]
	var total float64
	colSum, rowSum := make([]float64, C), make([]float64, R)
	for i := 0; i < R; i++ {
		for j := 0; j < C; j++ {
			v := x.Value.At(i, j)
			total += v
			colSum[j] += v
			rowSum[i] += v
		}
	}
	check := func(name string, v *Var[float64], r, c int, want func(i, j int) float64) {
		t.Helper()
		if gr, gc := v.Shape(); gr != r || gc != c {
			t.Fatalf("%s is %d×%d, want %d×%d", name, gr, gc, r, c)
		}
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if got, w := v.Value.At(i, j), want(i, j); math.Abs(got-w) > 1e-14 {
					t.Errorf("%s(%d,%d) = %g, want %g", name, i, j, got, w)
				}
			}
		}
	}
	check("Sum", Sum(&tp, x), 1, 1, func(int, int) float64 { return total })
	check("Mean", Mean(&tp, x), 1, 1, func(int, int) float64 { return total / (R * C) })
	check("SumRows", SumRows(&tp, x), 1, C, func(_, j int) float64 { return colSum[j] })
	check("MeanRows", MeanRows(&tp, x), 1, C, func(_, j int) float64 { return colSum[j] / R })
	check("RowSum", RowSum(&tp, x), R, 1, func(i, _ int) float64 { return rowSum[i] })
	check("RowMean", RowMean(&tp, x), R, 1, func(i, _ int) float64 { return rowSum[i] / C })
}

// TestReduceEmpty pins the documented convention: reductions over nothing
// are 0 (means included, unlike PyTorch's NaN) with zero gradients.
func TestReduceEmpty(t *testing.T) {
	x := NewVar(tensor.NewDense[float64](0, 3), true)
	var tp Tape[float64]
	for name, f := range map[string]func(*Tape[float64], *Var[float64]) *Var[float64]{
		"Sum": Sum[float64], "Mean": Mean[float64], "SumRows": SumRows[float64], "MeanRows": MeanRows[float64],
	} {
		y := f(&tp, x)
		for _, v := range y.Value.Data {
			if v != 0 {
				t.Errorf("%s of 0×3 = %v, want zeros", name, y.Value.Data)
			}
		}
		if err := tp.BackwardSeeded(y, nil); err != nil {
			t.Fatal(err)
		}
	}
	if r, c := RowMean(&tp, NewVar(tensor.NewDense[float64](2, 0), true)).Shape(); r != 2 || c != 1 {
		t.Errorf("RowMean of 2×0 is %d×%d, want 2×1", r, c)
	}
}

// TestSumFloat32Accumulation: a float32 sum of many elements accumulates in
// float64, so it is exact where a float32 running sum would drift.
func TestSumFloat32Accumulation(t *testing.T) {
	const n = 1 << 20
	x := NewVar(tensor.NewDense[float32](n, 1), false)
	for i := range x.Value.Data {
		x.Value.Data[i] = 0.1
	}
	var tp Tape[float32]
	got := float64(Sum(&tp, x).Value.Data[0])
	if want := float64(float32(0.1)) * n; math.Abs(got-want) > 1e-6*want {
		t.Fatalf("Sum = %g, want %g", got, want)
	}
}
