package autodiff

import (
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func ewtPoolCases[T Float]() []ewtCase[T] {
	return []ewtCase[T]{
		{name: "GatherRowsOrZero", shapes: [][2]int{{4, 3}}, build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GatherRowsOrZero(tp, in[0], []int32{2, -1, 0, 2, -1, 3})
		}},
		// Distinct values (a permutation scaled) keep the max away from ties.
		{name: "MaxPoolRows", shapes: [][2]int{{12, 3}}, gen: ewtDistinct(36), build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return MaxPoolRows(tp, in[0], 6, 2)
		}},
		{name: "MaxPoolRows/leftover", shapes: [][2]int{{10, 2}}, gen: ewtDistinct(20), build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return Tanh(tp, MaxPoolRows(tp, in[0], 5, 2))
		}},
	}
}

// ewtDistinct draws n distinct values 0.1 apart in a random order.
func ewtDistinct(n int) func(*rand.Rand) float64 {
	var perm []int
	return func(rng *rand.Rand) float64 {
		if len(perm) == 0 {
			perm = rng.Perm(n)
		}
		v := float64(perm[0])*0.1 - float64(n)*0.05
		perm = perm[1:]
		return v
	}
}

func TestPoolGradients(t *testing.T) {
	ewtRunBoth(t, ewtPoolCases[float64], ewtPoolCases[float32])
}

func TestPoolForward(t *testing.T) {
	x := NewVar(tensor.FromRows([][]float64{{1, 8}, {3, 2}, {5, 6}, {0, 9}, {4, 4}, {7, 1}}), false)
	var tp Tape[float64]
	g := GatherRowsOrZero(&tp, x, []int32{5, -1, 1})
	if want := []float64{7, 1, 0, 0, 3, 2}; !equalF(g.Value.Data, want) {
		t.Errorf("GatherRowsOrZero = %v, want %v", g.Value.Data, want)
	}
	// Groups of 3 rows, window 2: one output row per group, the third row
	// of each group dropped.
	m := MaxPoolRows(&tp, x, 3, 2)
	if want := []float64{3, 8, 4, 9}; !equalF(m.Value.Data, want) {
		t.Errorf("MaxPoolRows = %v, want %v", m.Value.Data, want)
	}
}

func equalF(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
