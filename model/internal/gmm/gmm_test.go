package gmm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// clusters draws per rows from each of the Gaussians N(means[j], σ²I).
func clusters(means [][]float64, sigma float64, per int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	var x [][]float64
	for i := 0; i < per; i++ {
		for _, mu := range means {
			r := make([]float64, len(mu))
			for c := range r {
				r[c] = mu[c] + sigma*rng.NormFloat64()
			}
			x = append(x, r)
		}
	}
	return x
}

// A fit to three well-separated isotropic clusters recovers their means,
// weights and variances.
func TestGRATINFitRecoversClusters(t *testing.T) {
	means := [][]float64{{0, 0, 0, 0}, {6, 0, -3, 1}, {-4, 5, 2, 0}}
	const sigma = 0.7
	x := clusters(means, sigma, 300, 1)
	m, err := Fit(x, Options{Components: 3}, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	if m.K() != 3 || !m.Converged {
		t.Fatalf("K %d, converged %v after %d iterations", m.K(), m.Converged, m.Iters)
	}
	used := make([]bool, 3)
	for _, mu := range means {
		best, bd := -1, math.Inf(1)
		for j, got := range m.Means {
			if d := math.Sqrt(sqDist(mu, got)); d < bd {
				best, bd = j, d
			}
		}
		if bd > 0.15 || used[best] {
			t.Fatalf("mean %v: nearest fitted mean %v at %.3f (already matched: %v)", mu, m.Means[best], bd, used[best])
		}
		used[best] = true
		if w := m.Weights[best]; math.Abs(w-1.0/3) > 0.01 {
			t.Errorf("mean %v: weight %.3f, want 1/3", mu, w)
		}
		cov := m.Covs[best]
		for a := range 4 {
			if v := cov[a*4+a]; math.Abs(v-sigma*sigma) > 0.12 {
				t.Errorf("mean %v: variance %d %.3f, want %.3f", mu, a, v, sigma*sigma)
			}
			for b := range a {
				if math.Abs(cov[a*4+b]) > 0.1 {
					t.Errorf("mean %v: covariance (%d,%d) %.3f, want 0", mu, a, b, cov[a*4+b])
				}
			}
		}
	}
	// The data are more likely under the fit than under one component at
	// the overall mean would make them; LogProb agrees with LowerBound.
	mean := 0.0
	for _, r := range x {
		mean += m.LogProb(r)
	}
	mean /= float64(len(x))
	if math.Abs(mean-m.LowerBound) > 1e-3 {
		t.Errorf("mean log-density %.5f, lower bound %.5f", mean, m.LowerBound)
	}
}

// Samples follow the mixture: their mean and their share near each
// component match the fit.
func TestGRATINSampleFollowsMixture(t *testing.T) {
	means := [][]float64{{-5, 0}, {5, 2}}
	x := clusters(means, 1, 200, 2)
	x = append(x, clusters(means[:1], 1, 200, 3)...) // 2:1 weights
	m, err := Fit(x, Options{Components: 2}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 30000
	left, sum := 0, []float64{0, 0}
	var dst []float64
	for range n {
		dst = m.Sample(dst, rng)
		if dst[0] < 0 {
			left++
		}
		sum[0] += dst[0]
		sum[1] += dst[1]
	}
	if f := float64(left) / n; math.Abs(f-2.0/3) > 0.02 {
		t.Errorf("share of samples of the left component %.3f, want 2/3", f)
	}
	want := []float64{(2*-5 + 5) / 3.0, 2 / 3.0}
	for c := range 2 {
		if g := sum[c] / n; math.Abs(g-want[c]) > 0.15 {
			t.Errorf("sample mean %d: %.3f, want %.3f", c, g, want[c])
		}
	}
}

// A fit and its samples are fixed by the seed.
func TestGRATINFitDeterministic(t *testing.T) {
	x := clusters([][]float64{{0, 0}, {3, 3}, {0, 4}}, 1, 50, 4)
	draw := func() []float64 {
		rng := rand.New(rand.NewPCG(11, 0))
		m, err := Fit(x, Options{Components: 4}, rng)
		if err != nil {
			t.Fatal(err)
		}
		out := slices.Clone(m.Weights)
		for range 5 {
			out = append(out, m.Sample(nil, rng)...)
		}
		return out
	}
	if a, b := draw(), draw(); !slices.Equal(a, b) {
		t.Errorf("two fits from one seed differ:\n%v\n%v", a, b)
	}
}

// Fewer distinct rows than components give fewer components; a single
// repeated row gives one component at that row with the regularised
// covariance; bad input is refused.
func TestGRATINFitDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := [][]float64{{1, 2}, {1, 2}, {3, 4}, {1, 2}, {3, 4}}
	m, err := Fit(x, Options{Components: 10}, rng)
	if err != nil {
		t.Fatal(err)
	}
	if m.K() != 2 {
		t.Errorf("%d components for 2 distinct rows", m.K())
	}
	m, err = Fit([][]float64{{1, 2}, {1, 2}}, Options{Components: 3}, rng)
	if err != nil {
		t.Fatal(err)
	}
	if m.K() != 1 || math.Abs(m.Means[0][0]-1) > 1e-12 || math.Abs(m.Means[0][1]-2) > 1e-12 || math.Abs(m.Covs[0][0]-1e-6) > 1e-12 {
		t.Errorf("one repeated row: K %d, mean %v, covariance %v", m.K(), m.Means[0], m.Covs[0])
	}
	for _, c := range []struct {
		x   [][]float64
		opt Options
	}{
		{nil, Options{Components: 1}},
		{[][]float64{{1}, {1, 2}}, Options{Components: 1}},
		{[][]float64{{math.NaN()}}, Options{Components: 1}},
		{[][]float64{{1}}, Options{}},
		{[][]float64{{1}}, Options{Components: 1, RegCovar: -1}},
	} {
		if _, err := Fit(c.x, c.opt, rng); err == nil {
			t.Errorf("Fit(%v, %+v) accepted", c.x, c.opt)
		}
	}
}
