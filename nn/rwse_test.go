package nn

import (
	"math"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// RWSE equals the diagonals of the dense powers of D⁻¹A, on the path with
// a self-loop and an isolated node, and on a directed graph whose walks
// can get stuck; more nodes than one block of walks.
func TestRWSEMatchesDensePowers(t *testing.T) {
	n, ptr, src := path4()
	check := func(name string, n int, ptr, src []int32, steps int) {
		a := make([][]float64, n) // a[u][v] = 1 for an arc u→v
		for i := range a {
			a[i] = make([]float64, n)
		}
		for v := 0; v < n; v++ {
			for _, u := range src[ptr[v]:ptr[v+1]] {
				a[u][v] = 1
			}
		}
		p := make([][]float64, n)
		for u := range p {
			p[u] = make([]float64, n)
			var deg float64
			for _, x := range a[u] {
				deg += x
			}
			for v := range p[u] {
				if deg > 0 {
					p[u][v] = a[u][v] / deg
				}
			}
		}
		pk := make([][]float64, n) // P^k, from the identity
		for i := range pk {
			pk[i] = make([]float64, n)
			pk[i][i] = 1
		}
		var got tensor.Dense[float64]
		RWSEInto(&got, n, ptr, src, steps)
		for k := 0; k < steps; k++ {
			next := make([][]float64, n)
			for i := range next {
				next[i] = make([]float64, n)
				for j := range next[i] {
					for l := 0; l < n; l++ {
						next[i][j] += pk[i][l] * p[l][j]
					}
				}
			}
			pk = next
			for i := 0; i < n; i++ {
				if d := math.Abs(got.At(i, k) - pk[i][i]); d > 1e-12 {
					t.Fatalf("%s: node %d, step %d: %v, want %v", name, i, k+1, got.At(i, k), pk[i][i])
				}
			}
		}
	}
	check("path", n, ptr, src, 6)
	// A directed cycle 0→1→…→69→0 with chords i→i+3 for even i: return
	// probabilities are non-trivial and 70 nodes take two blocks.
	const m = 70
	var dptr, dsrc []int32
	dptr = append(dptr, 0)
	for v := 0; v < m; v++ {
		var in []int32
		for u := 0; u < m; u++ {
			if (u+1)%m == v || (u%2 == 0 && (u+3)%m == v) {
				in = append(in, int32(u))
			}
		}
		dsrc = append(dsrc, in...)
		dptr = append(dptr, int32(len(dsrc)))
	}
	check("directed", m, dptr, dsrc, 9)
}

func TestStandardizeColumns(t *testing.T) {
	x := tensor.FromRows([][]float64{{1, 5, 0}, {2, 5, 0}, {6, 5, 3}})
	StandardizeColumns(x, 0)
	for j := 0; j < 3; j++ {
		var mu, ss float64
		for i := 0; i < 3; i++ {
			mu += x.At(i, j)
			ss += x.At(i, j) * x.At(i, j)
		}
		want := 1.0
		if j == 1 { // constant
			want = 0
		}
		if !(math.Abs(mu) <= 1e-12 && math.Abs(ss/3-want) <= 1e-12) {
			t.Errorf("column %d: mean %v, variance %v", j, mu/3, ss/3)
		}
	}
}
