package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// SparseInput's dropout copy and its transpose follow X through Resets to
// features of another structure, and its transpose holds the dropped
// values, not X's.
func TestSparseInputDropoutTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	features := func(r, c int, density float64) *tensor.CSR[float64] {
		d := tensor.NewDense[float64](r, c)
		for i := range d.Data {
			if rng.Float64() < density {
				d.Data[i] = rng.Float64() + 0.5
			}
		}
		return tensor.CSRFromDense(d)
	}
	check := func(name string, adj *tensor.Adjacency[float64]) {
		t.Helper()
		a, at := adj.A.ToDense(), adj.AT.ToDense()
		for i := 0; i < a.Rows; i++ {
			for j := 0; j < a.Cols; j++ {
				if a.At(i, j) != at.At(j, i) {
					t.Fatalf("%s: A[%d,%d] = %v but Aᵀ[%d,%d] = %v", name, i, j, a.At(i, j), j, i, at.At(j, i))
				}
			}
		}
	}
	var s SparseInput[float64]
	for step, x := range []*tensor.CSR[float64]{features(7, 5, 0.4), features(9, 5, 0.6), features(4, 5, 0.3)} {
		s.Reset(x)
		check("clean", s.Apply(0.5, rng, false))
		for range 2 {
			d := s.Apply(0.5, rng, true)
			check("dropout", d)
			dropped := 0
			for i, v := range d.A.Data {
				switch v {
				case 0:
					dropped++
				case x.Data[i] * 2:
				default:
					t.Fatalf("step %d: entry %d = %v, neither 0 nor 2·%v", step, i, v, x.Data[i])
				}
			}
			if len(x.Data) > 8 && (dropped == 0 || dropped == len(x.Data)) {
				t.Errorf("step %d: %d of %d entries dropped", step, dropped, len(x.Data))
			}
		}
		if c := s.Apply(0.5, rng, false); c.A != x {
			t.Errorf("step %d: evaluation features are not X itself", step)
		}
	}
}
