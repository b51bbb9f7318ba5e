package autodiff

import (
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func mgSpMMCases[T Float]() []mgCase[T] {
	x := mgCSR[T](1, 7, 5, 0.4, 2, 5)
	big := mgCSR[T](2, 300, 120, 0.05)
	empty := &tensor.CSR[T]{Rows: 0, Cols: 5, Indptr: []int32{0}}
	zero := mgCSR[T](3, 4, 5, 0)
	xAdj, bigAdj := tensor.NewAdjacency(x), tensor.NewAdjacency(big)
	return []mgCase[T]{
		{"7x5_empty_rows", [][2]int{{5, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return SpMM(tp, x, in[0]) }},
		{"0_rows", [][2]int{{5, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return SpMM(tp, empty, in[0]) }},
		{"no_nonzeros", [][2]int{{5, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return SpMM(tp, zero, in[0]) }},
		{"300x120_by_120x40", [][2]int{{120, 40}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return SpMM(tp, big, in[0]) }},
		{"transposed_7x5", [][2]int{{5, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return SpMMTransposed(tp, xAdj, in[0])
		}},
		{"transposed_300x120", [][2]int{{120, 40}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return SpMMTransposed(tp, bigAdj, in[0])
		}},
		{"then_matmul", [][2]int{{5, 4}, {4, 2}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return MatMul(tp, SpMM(tp, x, in[0]), in[1])
		}},
	}
}

func TestSpMMGrad(t *testing.T) {
	mgBoth(t, mgSpMMCases[float64], mgSpMMCases[float32])
}

func TestSpMMTransposedDropout(t *testing.T) {
	// Dropout into the kept matrix, SyncValues, then the gradient must be
	// X̃ᵀ∂Y for the dropped-out X̃.
	x := mgCSR[float64](4, 30, 20, 0.3)
	xd := &tensor.CSR[float64]{}
	tensor.DropoutCSR(xd, x, 0.5, rand.New(rand.NewPCG(1, 2)))
	adj := tensor.NewAdjacency(xd)
	w := mgVar[float64](rand.New(rand.NewPCG(5, 5)), "w", 20, 4)
	for step := uint64(0); step < 3; step++ {
		tensor.DropoutCSR(xd, x, 0.5, rand.New(rand.NewPCG(step, 2)))
		adj.SyncValues()
		rel, err := GradCheck(func(tp *Tape[float64]) (*Var[float64], error) { return SpMMTransposed(tp, adj, w), nil }, []*Var[float64]{w}, 1e-6)
		if err != nil || rel > 1e-6 {
			t.Fatalf("step %d: rel %g, err %v", step, rel, err)
		}
	}
}

func TestSpMMDropoutInput(t *testing.T) {
	// The gradient flows through the dropped-out copy: ∂W = X̃ᵀ∂Y.
	x := mgCSR[float64](4, 30, 20, 0.3)
	var xd tensor.CSR[float64]
	tensor.DropoutCSR(&xd, x, 0.5, rand.New(rand.NewPCG(1, 2)))
	w := mgVar[float64](rand.New(rand.NewPCG(5, 5)), "w", 20, 4)
	rel, err := GradCheck(func(tp *Tape[float64]) (*Var[float64], error) { return SpMM(tp, &xd, w), nil }, []*Var[float64]{w}, 1e-6)
	if err != nil || rel > 1e-6 {
		t.Fatalf("rel %g, err %v", rel, err)
	}
}
