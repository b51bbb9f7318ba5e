package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
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

// Large float32 features keep no transpose where tensor.TransposedSpMM
// reads their rows, and the weight gradient of SpMMTransposed is the same,
// bit for bit, as with a kept transpose, with dropout and without, through
// Resets.
func TestSparseInputRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	features := func(r, c, perRow int) *tensor.CSR[float32] {
		x := &tensor.CSR[float32]{Rows: r, Cols: c, Indptr: make([]int32, r+1)}
		for i := 0; i < r; i++ {
			f := rng.IntN(c / perRow)
			for range perRow {
				x.Indices = append(x.Indices, int32(f))
				x.Data = append(x.Data, float32(rng.Float64()+0.5))
				f += 1 + rng.IntN(c/perRow)
				if f >= c {
					break
				}
			}
			x.Indptr[i+1] = int32(len(x.Indices))
		}
		return x
	}
	grad := func(x *tensor.Adjacency[float32], g *tensor.Dense[float32]) []float32 {
		var tp autodiff.Tape[float32]
		w := autodiff.NewVar(tensor.NewDense[float32](x.A.Cols, g.Cols), true)
		out := autodiff.SpMMTransposed(&tp, x, w)
		if err := tp.BackwardSeeded(out, g); err != nil {
			t.Fatal(err)
		}
		return w.Grad.Data
	}
	var s SparseInput[float32]
	for step, x := range []*tensor.CSR[float32]{features(12000, 900, 50), features(13000, 700, 45)} {
		if len(x.Indices) < rowsMinEntries {
			t.Fatalf("step %d: %d non-zeros, fewer than the %d of rows mode", step, len(x.Indices), rowsMinEntries)
		}
		s.Reset(x)
		g := tensor.NewDense[float32](x.Rows, 40)
		for i := range g.Data {
			g.Data[i] = float32(rng.NormFloat64())
		}
		for _, training := range []bool{false, true} {
			d := s.Apply(0.5, rng, training)
			if tensor.TransposedSpMMInPlace[float32]() && d.AT != nil {
				t.Fatalf("step %d: a transpose is kept for %d non-zeros", step, len(x.Indices))
			}
			got, want := grad(d, g), grad(tensor.NewAdjacency(d.A), g)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("step %d, training %v: ∂W[%d] = %v, with a kept transpose %v", step, training, i, got[i], want[i])
				}
			}
		}
	}
}
