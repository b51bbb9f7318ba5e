package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// Propagate equals the formulas computed with dense matrices in float64.
func TestPropagateMatchesDense(t *testing.T) {
	n, ptr, src := path4()
	a := GCNNorm[float64](n, ptr, src).A
	dense := make([][]float64, n) // S as a dense matrix
	for v := 0; v < n; v++ {
		dense[v] = make([]float64, n)
		for p := a.Indptr[v]; p < a.Indptr[v+1]; p++ {
			dense[v][a.Indices[p]] = a.Data[p]
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := tensor.NewDense[float64](n, 3)
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	mul := func(m [][]float64, y [][]float64) [][]float64 {
		out := make([][]float64, len(m))
		for i := range m {
			out[i] = make([]float64, len(y[0]))
			for j := range m[i] {
				for c := range y[0] {
					out[i][c] += m[i][j] * y[j][c]
				}
			}
		}
		return out
	}
	rows := make([][]float64, n)
	for v := range rows {
		rows[v] = x.Row(v)
	}
	for _, tc := range []struct {
		k       int
		alpha   float64
		average bool
	}{{2, 0, false}, {3, 0.05, true}, {1, 0.5, true}} {
		want := make([][]float64, n)
		for v := range want {
			want[v] = make([]float64, 3)
			for c := range want[v] {
				if tc.average {
					want[v][c] = tc.alpha * rows[v][c]
				}
			}
		}
		cur := rows
		for i := 0; i < tc.k; i++ {
			cur = mul(dense, cur)
			if tc.average {
				for v := range want {
					for c := range want[v] {
						want[v][c] += (1 - tc.alpha) / float64(tc.k) * cur[v][c]
					}
				}
			}
		}
		if !tc.average {
			want = cur
		}
		got := Propagate(a, x, tc.k, tc.alpha, tc.average)
		for v := range want {
			for c := range want[v] {
				if d := math.Abs(got.At(v, c) - want[v][c]); d > 1e-12 {
					t.Fatalf("%+v: [%d][%d] = %v, want %v", tc, v, c, got.At(v, c), want[v][c])
				}
			}
		}
	}
}
