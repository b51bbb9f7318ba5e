package nn

import (
	"math"
	"math/rand/v2"
	"slices"
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

// A Propagator reused across inputs of other sizes gives Propagate's bits,
// and a warm call allocates nothing.
func TestPropagatorReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n4, p4, s4 := path4()
	small := GCNNorm[float32](n4, p4, s4).A
	big := GCNNorm[float32](9, []int32{0, 1, 3, 5, 7, 9, 11, 13, 15, 16},
		[]int32{1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 8, 7}).A
	input := func(n int) *tensor.Dense[float32] {
		x := tensor.NewDense[float32](n, 5)
		for i := range x.Data {
			x.Data[i] = float32(rng.NormFloat64())
		}
		return x
	}
	var p Propagator[float32]
	var dst tensor.Dense[float32]
	for _, tc := range []struct {
		a       *tensor.CSR[float32]
		average bool
	}{{big, true}, {small, false}, {big, false}, {small, true}} {
		x := input(tc.a.Rows)
		want := Propagate(tc.a, x, 3, 0.1, tc.average)
		if got := p.Into(&dst, tc.a, x, 3, 0.1, tc.average); !slices.Equal(got.Data, want.Data) || got.Rows != want.Rows {
			t.Errorf("%d nodes, average %v: differs from Propagate", tc.a.Rows, tc.average)
		}
	}
	x := input(big.Rows)
	if a := testing.AllocsPerRun(3, func() { p.Into(&dst, big, x, 3, 0.1, true) }); a != 0 {
		t.Errorf("a warm call allocates %.1f times", a)
	}
}
