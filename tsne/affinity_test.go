package tsne

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestKNNMatchesBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    func(rng *rand.Rand) [][]float64
		k    int
	}{
		{"gaussian_d16", func(rng *rand.Rand) [][]float64 { x, _ := gaussianClusters(rng, 1, 500, 16, 0); return x }, 30},
		{"clusters_d20", func(rng *rand.Rand) [][]float64 { x, _ := gaussianClusters(rng, 5, 80, 20, 10); return x }, 90},
		{"grid_ties", func(rng *rand.Rand) [][]float64 {
			// Integer coordinates: many equal distances.
			x := make([][]float64, 400)
			for i := range x {
				x[i] = []float64{float64(rng.IntN(6)), float64(rng.IntN(6)), float64(rng.IntN(3))}
			}
			return x
		}, 20},
		{"duplicates", func(rng *rand.Rand) [][]float64 {
			x := make([][]float64, 200)
			for i := range x {
				x[i] = []float64{float64(i % 4), 1, 2}
			}
			return x
		}, 60},
		{"tiny", func(rng *rand.Rand) [][]float64 {
			return [][]float64{{0}, {1}, {3}, {6}, {10}}
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := newRNG(11)
			x := tc.x(rng)
			for _, workers := range []int{1, 3} {
				pl := newPool(workers)
				idx, dist2 := knn(x, tc.k, newRNG(5), pl)
				pl.close()
				for i := range x {
					want := bruteKNN(x, i, tc.k)
					for j, w := range want {
						if idx[i*tc.k+j] != w.idx || !withinTol(dist2[i*tc.k+j], w.dist*w.dist, 1e-12*(1+w.dist*w.dist)) {
							t.Fatalf("workers=%d point %d neighbour %d: got (%d, %g), want (%d, %g)",
								workers, i, j, idx[i*tc.k+j], dist2[i*tc.k+j], w.idx, w.dist*w.dist)
						}
					}
				}
			}
		})
	}
}

func TestCalibrateEntropy(t *testing.T) {
	for _, tc := range []struct {
		perplexity float64
		scale      float64 // of the data
	}{
		{5, 1}, {30, 1}, {50, 1}, {30, 1e-4}, {30, 1e4}, {10.5, 3},
	} {
		t.Run(fmt.Sprintf("perp%g_scale%g", tc.perplexity, tc.scale), func(t *testing.T) {
			rng := newRNG(2)
			x, _ := gaussianClusters(rng, 4, 100, 10, 8)
			for _, row := range x {
				for j := range row {
					row[j] *= tc.scale
				}
			}
			n, k := len(x), neighbours(tc.perplexity)
			pl := newPool(1)
			defer pl.close()
			_, dist2 := knn(x, k, newRNG(1), pl)
			cond := conditionalP(dist2, n, k, tc.perplexity, pl)
			target := math.Log(tc.perplexity)
			for i := range n {
				var h, sum float64
				for _, p := range cond[i*k : (i+1)*k] {
					sum += p
					if p > 0 {
						h -= p * math.Log(p)
					}
				}
				if !withinTol(sum, 1, 1e-12) {
					t.Fatalf("row %d sums to %v, want 1", i, sum)
				}
				if !withinTol(h, target, 1e-5) {
					t.Fatalf("row %d entropy %v, want ln(%g) = %v ± 1e-5", i, h, tc.perplexity, target)
				}
			}
		})
	}
}

func TestCalibrateDegenerate(t *testing.T) {
	// All distances equal: the entropy is ln(k) whatever β; the result
	// must be the uniform distribution, not NaN.
	d2 := []float64{4, 4, 4, 4, 4, 4}
	p := make([]float64, len(d2))
	calibrate(d2, 2, p)
	for j, v := range p {
		if !withinTol(v, 1.0/6, 1e-15) {
			t.Errorf("p[%d] = %v, want 1/6", j, v)
		}
	}
	// One neighbour much closer than the rest: finite, normalised.
	d2 = []float64{0, 1e6, 1e6 + 1, 2e6}
	p = make([]float64, len(d2))
	calibrate(d2, 1.5, p)
	var sum float64
	for _, v := range p {
		if math.IsNaN(v) {
			t.Fatalf("NaN probability: %v", p)
		}
		sum += v
	}
	if !withinTol(sum, 1, 1e-12) {
		t.Errorf("probabilities sum to %v, want 1", sum)
	}
}

func TestAffinitiesSymmetric(t *testing.T) {
	rng := newRNG(4)
	x, _ := gaussianClusters(rng, 3, 50, 8, 6)
	pl := newPool(2)
	defer pl.close()
	const perp = 10
	p := affinities(x, perp, newRNG(9), pl)
	d := csrToDense(p)
	var sum float64
	for i := range d {
		if d[i][i] != 0 {
			t.Errorf("P[%d][%d] = %v, want 0", i, i, d[i][i])
		}
		for j := range d {
			sum += d[i][j]
			if d[i][j] != d[j][i] {
				t.Fatalf("P[%d][%d] = %v ≠ P[%d][%d] = %v", i, j, d[i][j], j, i, d[j][i])
			}
		}
		for e := p.rowPtr[i] + 1; e < p.rowPtr[i+1]; e++ {
			if p.col[e] <= p.col[e-1] {
				t.Fatalf("row %d columns not strictly increasing", i)
			}
		}
	}
	if !withinTol(sum, 1, 1e-12) {
		t.Errorf("ΣP = %v, want 1", sum)
	}
	// P = (C + Cᵀ)/(2N) entry by entry, from the conditional rows.
	n, k := len(x), neighbours(perp)
	idx, dist2 := knn(x, k, newRNG(9), pl)
	cond := conditionalP(dist2, n, k, perp, pl)
	c := make([][]float64, n)
	for i := range c {
		c[i] = make([]float64, n)
		for j, nb := range idx[i*k : (i+1)*k] {
			c[i][nb] = cond[i*k+j]
		}
	}
	for i := range n {
		for j := range n {
			if want := (c[i][j] + c[j][i]) / (2 * float64(n)); !withinTol(d[i][j], want, 1e-15) {
				t.Fatalf("P[%d][%d] = %v, want %v", i, j, d[i][j], want)
			}
		}
	}
}
