package tsne

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x7e57)) }

// gaussianClusters returns clusters·per points in dim dimensions: cluster c
// is centred at sep/√2·e_c (so that all centres are sep apart) with
// standard-normal noise. Labels are the cluster indices.
func gaussianClusters(rng *rand.Rand, clusters, per, dim int, sep float64) ([][]float64, []int) {
	x := make([][]float64, 0, clusters*per)
	labels := make([]int, 0, clusters*per)
	for c := range clusters {
		for range per {
			row := make([]float64, dim)
			for j := range row {
				row[j] = rng.NormFloat64()
			}
			row[c%dim] += sep / math.Sqrt2
			x = append(x, row)
			labels = append(labels, c)
		}
	}
	return x, labels
}

// maxAbs returns max_i |a_i|.
func maxAbs(a []float64) float64 {
	var m float64
	for _, v := range a {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// relErrInf returns ‖a − b‖∞ / ‖b‖∞.
func relErrInf(a, b []float64) float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return maxAbs(d) / maxAbs(b)
}

// relErr2 returns ‖a − b‖₂ / ‖b‖₂.
func relErr2(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}

// withinTol reports whether |got − want| ≤ tol.
func withinTol(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// denseToCSR converts a dense symmetric matrix to csr, keeping non-zeros.
func denseToCSR(p [][]float64) *csr {
	n := len(p)
	m := &csr{n: n, rowPtr: make([]int, n+1)}
	for i, row := range p {
		for j, v := range row {
			if v != 0 {
				m.col = append(m.col, int32(j))
				m.val = append(m.val, v)
			}
		}
		m.rowPtr[i+1] = len(m.col)
	}
	return m
}

// csrToDense is the inverse of denseToCSR.
func csrToDense(m *csr) [][]float64 {
	p := make([][]float64, m.n)
	for i := range p {
		p[i] = make([]float64, m.n)
		for e := m.rowPtr[i]; e < m.rowPtr[i+1]; e++ {
			p[i][m.col[e]] += m.val[e]
		}
	}
	return p
}

// bruteKNN returns the k nearest neighbours of row i of x (excluding i),
// sorted by (distance, index), by sorting all distances.
func bruteKNN(x [][]float64, i, k int) []neighbour {
	var all []neighbour
	for j := range x {
		if j != i {
			all = append(all, neighbour{dist: euclidean(x[i], x[j]), idx: j})
		}
	}
	slices.SortFunc(all, func(a, b neighbour) int {
		if a.less(b) {
			return -1
		}
		if b.less(a) {
			return 1
		}
		return 0
	})
	return all[:k]
}

// wantErr checks that err is non-nil and mentions every substring.
func wantErr(t *testing.T, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want one mentioning %q", subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}
