package autodiff

import (
	"math"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func newStats[T Float](c int) *BatchStats[T] {
	s := &BatchStats[T]{Mean: make([]T, c), Var: make([]T, c), Momentum: 0.1}
	for j := range s.Var {
		s.Var[j] = 1
	}
	return s
}

func ewtBatchNormCases[T Float]() []ewtCase[T] {
	bn := func(training bool) func(tp *Tape[T], in []*Var[T]) *Var[T] {
		return func(tp *Tape[T], in []*Var[T]) *Var[T] {
			st := newStats[T](in[0].Value.Cols)
			for j := range st.Mean { // fixed statistics away from the defaults
				st.Mean[j], st.Var[j] = T(0.1*float64(j)), T(0.5+0.25*float64(j))
			}
			return BatchNorm(tp, in[0], in[1], in[2], st, BatchNormEps, training)
		}
	}
	return []ewtCase[T]{
		{name: "BatchNorm/training", shapes: [][2]int{{6, 4}, {1, 4}, {1, 4}}, gen: ewtUniform(-2, 2), build: bn(true)},
		{name: "BatchNorm/eval", shapes: [][2]int{{5, 3}, {1, 3}, {1, 3}}, gen: ewtUniform(-2, 2), build: bn(false)},
		{name: "BatchNorm/chain", shapes: [][2]int{{7, 5}, {1, 5}, {1, 5}}, gen: ewtUniform(-2, 2),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
				return Tanh(tp, bn(true)(tp, []*Var[T]{Add(tp, in[0], in[2]), in[1], in[2]}))
			}},
	}
}

func TestBatchNormGradients(t *testing.T) {
	ewtRunBoth(t, ewtBatchNormCases[float64], ewtBatchNormCases[float32])
}

// TestBatchNormForward compares with PyTorch's definition evaluated
// directly: batch statistics (biased variance) in training, the running
// statistics moved by the momentum with the unbiased variance, and those
// statistics used in evaluation.
func TestBatchNormForward(t *testing.T) {
	rows := [][]float64{{1, -2, 3}, {4, 0.5, 3}, {-1, 2, 3}, {2, 8, 3}}
	x := NewVar(tensor.FromRows(rows), false)
	gamma := NewVar(tensor.FromRows([][]float64{{1, 2, -0.5}}), false)
	beta := NewVar(tensor.FromRows([][]float64{{0, 1, 0.25}}), false)
	st := newStats[float64](3)
	var tp Tape[float64]
	y := BatchNorm(&tp, x, gamma, beta, st, BatchNormEps, true)
	n := float64(len(rows))
	for j := 0; j < 3; j++ {
		var mu, ss float64
		for _, r := range rows {
			mu += r[j] / n
		}
		for _, r := range rows {
			ss += (r[j] - mu) * (r[j] - mu)
		}
		for i, r := range rows {
			want := (r[j]-mu)/math.Sqrt(ss/n+BatchNormEps)*gamma.Value.Data[j] + beta.Value.Data[j]
			if got := y.Value.At(i, j); math.Abs(got-want) > 1e-12 {
				t.Errorf("training (%d,%d) = %.15g, want %.15g", i, j, got, want)
			}
		}
		if want := 0.1 * mu; math.Abs(st.Mean[j]-want) > 1e-15 {
			t.Errorf("running mean %d = %g, want %g", j, st.Mean[j], want)
		}
		if want := 0.9 + 0.1*ss/(n-1); math.Abs(st.Var[j]-want) > 1e-15 {
			t.Errorf("running var %d = %g, want %g", j, st.Var[j], want)
		}
	}
	tp.Reset()
	y = BatchNorm(&tp, x, gamma, beta, st, BatchNormEps, false)
	for i, r := range rows {
		for j, v := range r {
			want := (v-st.Mean[j])/math.Sqrt(st.Var[j]+BatchNormEps)*gamma.Value.Data[j] + beta.Value.Data[j]
			if got := y.Value.At(i, j); math.Abs(got-want) > 1e-12 {
				t.Errorf("evaluation (%d,%d) = %.15g, want %.15g", i, j, got, want)
			}
		}
	}
}
