// Package gmm fits Gaussian mixture models with full covariances by
// expectation-maximisation and samples from them. It follows the defaults
// of scikit-learn's GaussianMixture, which GRATIN's reference code
// (Abbahaddou et al., ICML 2025) fits to each class's graph
// representations: full covariances, a k-means initialisation of the
// responsibilities (k-means++ seeding, one run), at most 100 EM
// iterations stopped when the mean log-likelihood gains less than 1e-3,
// and 1e-6 added to every covariance's diagonal.
//
// Arithmetic is in float64; randomness comes only from the *rand.Rand a
// caller passes, so a fit and its samples are fixed by its seed.
package gmm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Options are the settings of a fit. Zero fields take the defaults given
// with them, except Components, which is required.
type Options struct {
	Components int     // mixture components K, at least 1 (fewer are fitted when the data have fewer distinct rows)
	MaxIter    int     // EM iterations (default 100)
	Tol        float64 // stop when the mean log-likelihood gains less than this (default 1e-3)
	RegCovar   float64 // added to the diagonal of every covariance (default 1e-6)
	KMeansIter int     // Lloyd iterations of the initialisation (default 300)
	KMeansTol  float64 // Lloyd stops when the squared centre shift is under this times the mean feature variance (default 1e-4)
}

func (o Options) withDefaults() Options {
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	if o.Tol == 0 {
		o.Tol = 1e-3
	}
	if o.RegCovar == 0 {
		o.RegCovar = 1e-6
	}
	if o.KMeansIter == 0 {
		o.KMeansIter = 300
	}
	if o.KMeansTol == 0 {
		o.KMeansTol = 1e-4
	}
	return o
}

func (o Options) validate() error {
	switch {
	case o.Components < 1:
		return fmt.Errorf("gmm: Components %d must be at least 1", o.Components)
	case o.MaxIter < 1:
		return fmt.Errorf("gmm: MaxIter %d must be at least 1", o.MaxIter)
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 0):
		return fmt.Errorf("gmm: Tol %v must be non-negative and finite", o.Tol)
	case !(o.RegCovar > 0) || math.IsInf(o.RegCovar, 0):
		return fmt.Errorf("gmm: RegCovar %v must be positive and finite", o.RegCovar)
	case o.KMeansIter < 1:
		return fmt.Errorf("gmm: KMeansIter %d must be at least 1", o.KMeansIter)
	case !(o.KMeansTol >= 0) || math.IsInf(o.KMeansTol, 0):
		return fmt.Errorf("gmm: KMeansTol %v must be non-negative and finite", o.KMeansTol)
	}
	return nil
}

// ErrIllConditioned is returned when a component's covariance is not
// positive definite even after raising its diagonal regularisation a
// thousandfold.
var ErrIllConditioned = errors.New("gmm: a component's covariance is not positive definite")

// Mixture is a fitted mixture of K full-covariance Gaussians in Dim
// dimensions.
type Mixture struct {
	Dim     int
	Weights []float64   // K mixing weights, summing to 1
	Means   [][]float64 // K rows of Dim
	Covs    [][]float64 // K covariances, Dim×Dim row-major
	// Iters is the number of EM iterations run, Converged whether the
	// last one gained less than Tol, and LowerBound the mean
	// log-likelihood of the data under the parameters of the last E-step.
	Iters      int
	Converged  bool
	LowerBound float64

	chol   [][]float64 // lower Cholesky factors of Covs
	logDet []float64   // log-determinants of Covs
	reg    float64
}

// K is the number of components.
func (m *Mixture) K() int { return len(m.Weights) }

// Fit fits a mixture of min(opt.Components, distinct rows of x) components
// to the rows of x (all of one length), drawing the k-means++ seeding from
// rng.
func Fit(x [][]float64, opt Options, rng *rand.Rand) (*Mixture, error) {
	opt = opt.withDefaults()
	if err := opt.validate(); err != nil {
		return nil, err
	}
	if len(x) == 0 {
		return nil, errors.New("gmm: no data")
	}
	d := len(x[0])
	if d == 0 {
		return nil, errors.New("gmm: rows of width 0")
	}
	for i, r := range x {
		if len(r) != d {
			return nil, fmt.Errorf("gmm: row %d has %d values, row 0 has %d", i, len(r), d)
		}
		for _, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("gmm: row %d holds %v", i, v)
			}
		}
	}
	if rng == nil {
		return nil, errors.New("gmm: nil random source")
	}
	k := min(opt.Components, distinctRows(x))
	labels := kMeans(x, k, opt.KMeansIter, opt.KMeansTol, rng)
	n := len(x)
	resp := make([]float64, n*k)
	for i, l := range labels {
		resp[i*k+l] = 1
	}
	m := &Mixture{
		Dim: d, Weights: make([]float64, k), Means: make([][]float64, k), Covs: make([][]float64, k),
		chol: make([][]float64, k), logDet: make([]float64, k), reg: opt.RegCovar,
	}
	for j := range k {
		m.Means[j] = make([]float64, d)
		m.Covs[j] = make([]float64, d*d)
		m.chol[j] = make([]float64, d*d)
	}
	if err := m.mStep(x, resp); err != nil {
		return nil, err
	}
	lb := math.Inf(-1)
	for it := 1; it <= opt.MaxIter; it++ {
		prev := lb
		lb = m.eStep(x, resp)
		if err := m.mStep(x, resp); err != nil {
			return nil, err
		}
		m.Iters = it
		if math.Abs(lb-prev) < opt.Tol {
			m.Converged = true
			break
		}
	}
	m.LowerBound = lb
	return m, nil
}

// mStep sets the weights, means and covariances from the responsibilities
// resp (n×K), as scikit-learn does: each component's mass gets 10 machine
// epsilons so that an empty one divides by a positive number.
func (m *Mixture) mStep(x [][]float64, resp []float64) error {
	n, k, d := len(x), m.K(), m.Dim
	const tiny = 10 * 2.220446049250313e-16
	for j := range k {
		nk := tiny
		mu := m.Means[j]
		clear(mu)
		for i, r := range x {
			w := resp[i*k+j]
			if w == 0 {
				continue
			}
			nk += w
			for c, v := range r {
				mu[c] += w * v
			}
		}
		for c := range mu {
			mu[c] /= nk
		}
		cov := m.Covs[j]
		clear(cov)
		diff := make([]float64, d)
		for i, r := range x {
			w := resp[i*k+j]
			if w == 0 {
				continue
			}
			for c := range diff {
				diff[c] = r[c] - mu[c]
			}
			for a := range d {
				wa := w * diff[a]
				row := cov[a*d : a*d+a+1]
				for b := range row {
					row[b] += wa * diff[b]
				}
			}
		}
		for a := range d {
			for b := 0; b <= a; b++ {
				v := cov[a*d+b] / nk
				cov[a*d+b], cov[b*d+a] = v, v
			}
			cov[a*d+a] += m.reg
		}
		m.Weights[j] = nk / float64(n)
		if err := m.factor(j); err != nil {
			return err
		}
	}
	s := 0.0
	for _, w := range m.Weights {
		s += w
	}
	for j := range m.Weights {
		m.Weights[j] /= s
	}
	return nil
}

// factor computes the Cholesky factor and log-determinant of component j's
// covariance. If the covariance is not numerically positive definite, the
// diagonal is raised by 10, 100 and 1000 times the regularisation before
// giving up (scikit-learn raises an error at once).
func (m *Mixture) factor(j int) error {
	d := m.Dim
	cov, l := m.Covs[j], m.chol[j]
	extra := 0.0
	for try := 0; try < 4; try++ {
		if try > 0 {
			add := m.reg*math.Pow(10, float64(try)) - extra
			for a := range d {
				cov[a*d+a] += add
			}
			extra += add
		}
		if logDet, ok := cholesky(cov, l, d); ok {
			m.logDet[j] = logDet
			return nil
		}
	}
	return fmt.Errorf("%w (component %d of %d)", ErrIllConditioned, j, m.K())
}

// cholesky writes into l (d×d, row-major) the lower factor of the
// symmetric matrix a and returns log det a, or false when a is not
// positive definite.
func cholesky(a, l []float64, d int) (float64, bool) {
	clear(l)
	logDet := 0.0
	for i := range d {
		for j := 0; j <= i; j++ {
			s := a[i*d+j]
			for p := range j {
				s -= l[i*d+p] * l[j*d+p]
			}
			if i == j {
				if !(s > 0) {
					return 0, false
				}
				l[i*d+i] = math.Sqrt(s)
				logDet += math.Log(s)
			} else {
				l[i*d+j] = s / l[j*d+j]
			}
		}
	}
	return logDet, true
}

// eStep writes the posterior responsibilities into resp and returns the
// mean log-likelihood of x.
func (m *Mixture) eStep(x [][]float64, resp []float64) float64 {
	k := m.K()
	y := make([]float64, m.Dim)
	total := 0.0
	for i, r := range x {
		row := resp[i*k : (i+1)*k]
		best := math.Inf(-1)
		for j := range k {
			row[j] = math.Log(m.Weights[j]) + m.logDensity(j, r, y)
			best = max(best, row[j])
		}
		s := 0.0
		for j := range row {
			s += math.Exp(row[j] - best)
		}
		lse := best + math.Log(s)
		for j := range row {
			row[j] = math.Exp(row[j] - lse)
		}
		total += lse
	}
	return total / float64(len(x))
}

// logDensity is log N(x; μ_j, Σ_j), with y as scratch.
func (m *Mixture) logDensity(j int, x, y []float64) float64 {
	d := m.Dim
	l, mu := m.chol[j], m.Means[j]
	maha := 0.0
	for a := range d { // forward substitution: L y = x − μ
		s := x[a] - mu[a]
		for b := range a {
			s -= l[a*d+b] * y[b]
		}
		y[a] = s / l[a*d+a]
		maha += y[a] * y[a]
	}
	return -0.5 * (float64(d)*math.Log(2*math.Pi) + m.logDet[j] + maha)
}

// LogProb is the log-density of the mixture at x (of length Dim).
func (m *Mixture) LogProb(x []float64) float64 {
	y := make([]float64, m.Dim)
	best := math.Inf(-1)
	lp := make([]float64, m.K())
	for j := range lp {
		lp[j] = math.Log(m.Weights[j]) + m.logDensity(j, x, y)
		best = max(best, lp[j])
	}
	s := 0.0
	for _, v := range lp {
		s += math.Exp(v - best)
	}
	return best + math.Log(s)
}

// Sample draws one point of the mixture into dst (length Dim, allocated
// when nil) and returns it: a component by its weight, then its mean plus
// its Cholesky factor times a standard normal vector.
func (m *Mixture) Sample(dst []float64, rng *rand.Rand) []float64 {
	d := m.Dim
	if len(dst) != d {
		dst = make([]float64, d)
	}
	u, j := rng.Float64(), 0
	for c := 0.0; j < m.K()-1; j++ {
		if c += m.Weights[j]; u < c {
			break
		}
	}
	z := make([]float64, d)
	for a := range z {
		z[a] = rng.NormFloat64()
	}
	l, mu := m.chol[j], m.Means[j]
	for a := range d {
		s := mu[a]
		for b := 0; b <= a; b++ {
			s += l[a*d+b] * z[b]
		}
		dst[a] = s
	}
	return dst
}

// distinctRows counts the distinct rows of x.
func distinctRows(x [][]float64) int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return slices.Compare(x[a], x[b]) })
	n := 1
	for i := 1; i < len(idx); i++ {
		if !slices.Equal(x[idx[i]], x[idx[i-1]]) {
			n++
		}
	}
	return n
}

// sqDist is the squared Euclidean distance of a and b.
func sqDist(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		e := v - b[i]
		s += e * e
	}
	return s
}

// kMeans clusters the rows of x into k ≤ distinct rows clusters and returns
// each row's cluster: greedy k-means++ seeding (2 + ⌊ln k⌋ candidates per
// centre, scikit-learn's), then Lloyd iterations until the labels settle,
// the squared centre shift falls under tol times the mean feature
// variance, or iters iterations. A cluster left empty takes the row
// farthest from its centre.
func kMeans(x [][]float64, k, iters int, tol float64, rng *rand.Rand) []int {
	n, d := len(x), len(x[0])
	labels := make([]int, n)
	if k == 1 {
		return labels
	}
	centers := kMeansPP(x, k, rng)
	// tol is relative to the mean per-feature variance.
	mean := make([]float64, d)
	for _, r := range x {
		for c, v := range r {
			mean[c] += v
		}
	}
	variance := 0.0
	for c := range mean {
		mean[c] /= float64(n)
	}
	for _, r := range x {
		variance += sqDist(r, mean)
	}
	tol *= variance / float64(n*d)
	next := make([][]float64, k)
	for j := range next {
		next[j] = make([]float64, d)
	}
	counts := make([]int, k)
	dist := make([]float64, n)
	assign := func() bool {
		changed := false
		for i, r := range x {
			best, bd := 0, math.Inf(1)
			for j, c := range centers {
				if e := sqDist(r, c); e < bd {
					best, bd = j, e
				}
			}
			if labels[i] != best {
				changed = true
			}
			labels[i], dist[i] = best, bd
		}
		return changed
	}
	assign()
	for it := 0; it < iters; it++ {
		clear(counts)
		for j := range next {
			clear(next[j])
		}
		for i, r := range x {
			counts[labels[i]]++
			for c, v := range r {
				next[labels[i]][c] += v
			}
		}
		for j := range k {
			if counts[j] == 0 { // relocate to the row farthest from its centre
				far := 0
				for i := range dist {
					if dist[i] > dist[far] {
						far = i
					}
				}
				copy(next[j], x[far])
				dist[far] = 0
				continue
			}
			for c := range next[j] {
				next[j][c] /= float64(counts[j])
			}
		}
		shift := 0.0
		for j := range k {
			shift += sqDist(centers[j], next[j])
			copy(centers[j], next[j])
		}
		changed := assign()
		if !changed || shift <= tol {
			break
		}
	}
	return labels
}

// kMeansPP picks k centres among the rows of x by greedy k-means++.
func kMeansPP(x [][]float64, k int, rng *rand.Rand) [][]float64 {
	n := len(x)
	trials := 2 + int(math.Log(float64(k)))
	centers := make([][]float64, 0, k)
	first := rng.IntN(n)
	centers = append(centers, slices.Clone(x[first]))
	closest := make([]float64, n)
	pot := 0.0
	for i, r := range x {
		closest[i] = sqDist(r, x[first])
		pot += closest[i]
	}
	cand := make([]float64, n)
	bestD := make([]float64, n)
	for len(centers) < k {
		bestPot, bestIdx := math.Inf(1), -1
		for range trials {
			// A row with probability proportional to its squared distance
			// to the nearest centre.
			u, idx, c := rng.Float64()*pot, -1, 0.0
			for i, v := range closest {
				if v > 0 {
					idx = i // the last row of positive weight if rounding leaves u ≥ c
				}
				if c += v; v > 0 && u < c {
					break
				}
			}
			p := 0.0
			for i, r := range x {
				cand[i] = min(closest[i], sqDist(r, x[idx]))
				p += cand[i]
			}
			if p < bestPot {
				bestPot, bestIdx = p, idx
				copy(bestD, cand)
			}
		}
		centers = append(centers, slices.Clone(x[bestIdx]))
		copy(closest, bestD)
		pot = bestPot
	}
	return centers
}
