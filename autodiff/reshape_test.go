package autodiff

import (
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func TestReshapeValueAndGradient(t *testing.T) {
	x := NewVar(tensor.FromRows([][]float64{{1, -2, 3}, {0.5, 4, -1}}), true)
	var tp Tape[float64]
	y := Reshape(&tp, x, 3, 2)
	if r, c := y.Shape(); r != 3 || c != 2 {
		t.Fatalf("shape %d×%d, want 3×2", r, c)
	}
	for i, v := range []float64{1, -2, 3, 0.5, 4, -1} {
		if y.Value.Data[i] != v {
			t.Fatalf("element %d = %g, want %g", i, y.Value.Data[i], v)
		}
	}
	// A loss that weights each element differently, so a backward that
	// permuted the elements would fail the check.
	w := NewVar(tensor.FromRows([][]float64{{1, 2}, {3, 4}, {5, 6}}), false)
	build := func(tp *Tape[float64]) (*Var[float64], error) {
		return Sum(tp, Mul(tp, Tanh(tp, Reshape(tp, x, 3, 2)), w)), nil
	}
	rel, err := GradCheck(build, []*Var[float64]{x}, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if rel > 1e-6 {
		t.Fatalf("relative gradient error %g", rel)
	}
}

func TestReshapeSizeMismatchPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Reshape of 6 elements to 4×2 did not panic")
		}
	}()
	var tp Tape[float64]
	Reshape(&tp, NewVar(tensor.NewDense[float64](2, 3), false), 4, 2)
}
