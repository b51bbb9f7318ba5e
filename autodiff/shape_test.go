package autodiff

import (
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func ewtShapeCases[T Float]() []ewtCase[T] {
	return []ewtCase[T]{
		{name: "ConcatCols", shapes: [][2]int{{3, 2}, {3, 1}, {3, 4}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return ConcatCols(tp, in[0], in[1], in[2]) }},
		{name: "ConcatCols/one", shapes: [][2]int{{3, 2}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return ConcatCols(tp, in[0]) }},
		{name: "ConcatCols/repeated", shapes: [][2]int{{3, 2}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return ConcatCols(tp, in[0], in[0]) }},
		{name: "ConcatRows", shapes: [][2]int{{2, 3}, {1, 3}, {4, 3}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return ConcatRows(tp, in[0], in[1], in[2]) }},
		{name: "SliceCols", shapes: [][2]int{{3, 5}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return SliceCols(tp, in[0], 1, 4) }},
		{name: "SliceRows", shapes: [][2]int{{5, 3}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return SliceRows(tp, in[0], 2, 4) }},
		{name: "SliceOfConcat", shapes: [][2]int{{3, 2}, {3, 3}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
				return SliceCols(tp, ConcatCols(tp, in[0], in[1]), 1, 4)
			}},
	}
}

func TestShapeGradients(t *testing.T) {
	ewtRunBoth(t, ewtShapeCases[float64], ewtShapeCases[float32])
}

func TestShapeForward(t *testing.T) {
	a := NewVar(tensor.FromRows([][]float64{{1, 2}, {3, 4}}), false)
	b := NewVar(tensor.FromRows([][]float64{{5}, {6}}), false)
	c := NewVar(tensor.FromRows([][]float64{{7, 8}}), false)
	var tp Tape[float64]
	eq := func(name string, v *Var[float64], want [][]float64) {
		t.Helper()
		w := tensor.FromRows(want)
		if !v.Value.SameShape(w) {
			t.Fatalf("%s is %d×%d, want %d×%d", name, v.Value.Rows, v.Value.Cols, w.Rows, w.Cols)
		}
		for i := range w.Data {
			if v.Value.Data[i] != w.Data[i] {
				t.Fatalf("%s = %v, want %v", name, v.Value.Data, w.Data)
			}
		}
	}
	eq("ConcatCols", ConcatCols(&tp, a, b, a), [][]float64{{1, 2, 5, 1, 2}, {3, 4, 6, 3, 4}})
	eq("ConcatRows", ConcatRows(&tp, a, c), [][]float64{{1, 2}, {3, 4}, {7, 8}})
	eq("SliceCols", SliceCols(&tp, ConcatCols(&tp, a, b), 1, 3), [][]float64{{2, 5}, {4, 6}})
	eq("SliceRows", SliceRows(&tp, a, 1, 2), [][]float64{{3, 4}})
	if r, cc := SliceCols(&tp, a, 1, 1).Shape(); r != 2 || cc != 0 {
		t.Errorf("empty SliceCols is %d×%d, want 2×0", r, cc)
	}
	if r, cc := ConcatRows(&tp, SliceRows(&tp, a, 0, 0), c).Shape(); r != 1 || cc != 2 {
		t.Errorf("ConcatRows with an empty input is %d×%d, want 1×2", r, cc)
	}
	if r, cc := ConcatCols(&tp, SliceRows(&tp, a, 0, 0), SliceRows(&tp, b, 0, 0)).Shape(); r != 0 || cc != 3 {
		t.Errorf("ConcatCols of zero-row inputs is %d×%d, want 0×3", r, cc)
	}
}

// TestConcatPartialGrad checks that only inputs requiring a gradient get one.
func TestConcatPartialGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a := ewtVar[float64](rng, "a", 2, 2, nil)
	b := NewVar(tensor.NewDense[float64](2, 3), false)
	var tp Tape[float64]
	if err := tp.BackwardSeeded(ConcatCols(&tp, b, a), nil); err != nil {
		t.Fatal(err)
	}
	for _, g := range a.Grad.Data {
		if g != 1 {
			t.Fatalf("a grad = %v, want all ones", a.Grad.Data)
		}
	}
	if len(b.Grad.Data) != 0 {
		t.Fatalf("constant input got a gradient buffer")
	}
}

func TestShapeMisusePanics(t *testing.T) {
	x := NewVar(tensor.NewDense[float64](2, 3), true)
	y := NewVar(tensor.NewDense[float64](3, 3), true)
	for name, f := range map[string]func(tp *Tape[float64]){
		"ConcatCols rows":  func(tp *Tape[float64]) { ConcatCols(tp, x, y) },
		"ConcatRows cols":  func(tp *Tape[float64]) { ConcatRows(tp, x, NewVar(tensor.NewDense[float64](1, 2), true)) },
		"ConcatCols empty": func(tp *Tape[float64]) { ConcatCols[float64](tp) },
		"ConcatRows empty": func(tp *Tape[float64]) { ConcatRows[float64](tp) },
		"SliceCols hi":     func(tp *Tape[float64]) { SliceCols(tp, x, 1, 4) },
		"SliceCols order":  func(tp *Tape[float64]) { SliceCols(tp, x, 2, 1) },
		"SliceRows lo":     func(tp *Tape[float64]) { SliceRows(tp, x, -1, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			var tp Tape[float64]
			f(&tp)
		}()
	}
}
