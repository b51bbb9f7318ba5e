package autodiff

import (
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func mgMatMulCases[T Float]() []mgCase[T] {
	mm := func(tp *Tape[T], in []*Var[T]) *Var[T] { return MatMul(tp, in[0], in[1]) }
	return []mgCase[T]{
		{"3x4_by_4x5", [][2]int{{3, 4}, {4, 5}}, mm},
		{"1x1_by_1x1", [][2]int{{1, 1}, {1, 1}}, mm},
		{"0x3_by_3x2", [][2]int{{0, 3}, {3, 2}}, mm},
		{"4x0_by_0x3", [][2]int{{4, 0}, {0, 3}}, mm},
		{"70x8_by_8x130_tiled", [][2]int{{70, 8}, {8, 130}}, mm},
		{"square_self", [][2]int{{6, 6}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return MatMul(tp, in[0], in[0]) }},
		{"constant_left", [][2]int{{5, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			c := NewVar(tensor.FromRows([][]T{{1, 2, 0, -1, 0.5}, {0, 1, 1, 0, 2}}), false)
			return MatMul(tp, c, in[0])
		}},
		{"chain", [][2]int{{4, 3}, {3, 6}, {6, 2}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return MatMul(tp, MatMul(tp, in[0], in[1]), in[2])
		}},
	}
}

func TestMatMulGrad(t *testing.T) {
	mgBoth(t, mgMatMulCases[float64], mgMatMulCases[float32])
}
