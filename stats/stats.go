package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// ExactMax is the largest number of non-zero differences for which
// Wilcoxon computes the exact p-value; past it, the normal approximation.
const ExactMax = 25

// ErrPairs is wrapped by the errors of samples that cannot be paired.
var ErrPairs = errors.New("stats: bad paired samples")

// Differences returns a[i]−b[i], checking that a and b pair up: the same
// length and finite values.
func Differences(a, b []float64) ([]float64, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("%w: %d values against %d", ErrPairs, len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		if math.IsNaN(a[i]) || math.IsInf(a[i], 0) || math.IsNaN(b[i]) || math.IsInf(b[i], 0) {
			return nil, fmt.Errorf("%w: pair %d is not finite (%v, %v)", ErrPairs, i, a[i], b[i])
		}
		d[i] = a[i] - b[i]
	}
	return d, nil
}

// TTest is the result of a paired t-test.
type TTest struct {
	N        int     // pairs
	MeanDiff float64 // mean of a−b
	T        float64 // the statistic; ±Inf when every difference is the same non-zero value
	DF       int     // degrees of freedom, N−1
	P        float64 // two-sided p-value; NaN with fewer than two pairs
}

// PairedT is the paired two-sided t-test of a against b: t = mean(d) /
// (sd(d)/√n) with the sample standard deviation, p = 2·P(T_{n−1} ≥ |t|).
// Differences all equal to zero give t = 0 and p = 1 (no evidence of a
// difference; SciPy gives NaN there); all equal to one non-zero value give
// t = ±Inf and p = 0. Fewer than two pairs give p = NaN.
func PairedT(a, b []float64) (TTest, error) {
	d, err := Differences(a, b)
	if err != nil {
		return TTest{}, err
	}
	n := len(d)
	r := TTest{N: n, DF: n - 1, P: math.NaN(), T: math.NaN(), MeanDiff: math.NaN()}
	if n == 0 {
		return r, nil
	}
	mean := 0.0
	for _, x := range d {
		mean += x
	}
	mean /= float64(n)
	r.MeanDiff = mean
	if n < 2 {
		return r, nil
	}
	ss := 0.0
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	switch {
	case sd == 0 && mean == 0:
		r.T, r.P = 0, 1
	case sd == 0:
		r.T, r.P = math.Copysign(math.Inf(1), mean), 0
	default:
		r.T = mean / (sd / math.Sqrt(float64(n)))
		st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
		r.P = min(1, 2*st.Survival(math.Abs(r.T)))
	}
	return r, nil
}

// WilcoxonTest is the result of a Wilcoxon signed-rank test.
type WilcoxonTest struct {
	N     int     // non-zero differences, the pairs the test ranks
	Zeros int     // zero differences, dropped
	WPlus float64 // sum of the (mid-)ranks of the positive differences
	// WMinus is the sum of the ranks of the negative ones; WPlus+WMinus =
	// N(N+1)/2.
	WMinus float64
	// Statistic is min(WPlus, WMinus), the statistic SciPy reports for the
	// two-sided test.
	Statistic float64
	Ties      bool    // some |d| are equal: mid-ranks
	Exact     bool    // P is exact (N ≤ ExactMax); otherwise the normal approximation
	Z         float64 // the normal approximation's z (also computed when Exact)
	P         float64 // two-sided p-value; 1 when N = 0
}

// Wilcoxon is the two-sided Wilcoxon signed-rank test of a against b on the
// differences a−b (see the package comment for zeros, ties and the exact
// and approximate p-values).
func Wilcoxon(a, b []float64) (WilcoxonTest, error) {
	d, err := Differences(a, b)
	if err != nil {
		return WilcoxonTest{}, err
	}
	return wilcoxon(d, ExactMax), nil
}

// WilcoxonApprox is Wilcoxon with the normal approximation at every n.
func WilcoxonApprox(a, b []float64) (WilcoxonTest, error) {
	d, err := Differences(a, b)
	if err != nil {
		return WilcoxonTest{}, err
	}
	return wilcoxon(d, -1), nil
}

func wilcoxon(d []float64, exactMax int) WilcoxonTest {
	var nz []float64
	r := WilcoxonTest{}
	for _, x := range d {
		if x == 0 {
			r.Zeros++
			continue
		}
		nz = append(nz, x)
	}
	n := len(nz)
	r.N = n
	if n == 0 {
		r.P = 1
		return r
	}
	ranks2, ties, tieSum := midRanks2(nz) // twice the mid-ranks: integers
	r.Ties = len(ties) > 0
	plus2 := 0
	for i, x := range nz {
		if x > 0 {
			plus2 += ranks2[i]
		}
	}
	total2 := n * (n + 1) // twice n(n+1)/2
	r.WPlus, r.WMinus = float64(plus2)/2, float64(total2-plus2)/2
	r.Statistic = min(r.WPlus, r.WMinus)
	mean := float64(n*(n+1)) / 4
	variance := float64(n*(n+1)*(2*n+1))/24 - tieSum/48
	if variance > 0 {
		r.Z = (r.WPlus - mean) / math.Sqrt(variance)
	}
	if n <= exactMax {
		r.Exact = true
		r.P = exactP(ranks2, plus2)
		return r
	}
	if variance <= 0 {
		r.P = 1
		return r
	}
	r.P = min(1, math.Erfc(math.Abs(r.Z)/math.Sqrt2))
	return r
}

// midRanks2 returns twice the mid-ranks of |x| (ranks 1..n, ties sharing
// the mean of their ranks; doubled, every rank is an integer), the sizes of
// the tie groups of two or more, and Σ(t³−t) over the tie groups.
func midRanks2(x []float64) ([]int, []int, float64) {
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		ai, aj := math.Abs(x[i]), math.Abs(x[j])
		switch {
		case ai < aj:
			return -1
		case ai > aj:
			return 1
		}
		return 0
	})
	r2 := make([]int, n)
	var ties []int
	tieSum := 0.0
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && math.Abs(x[idx[hi]]) == math.Abs(x[idx[lo]]) {
			hi++
		}
		// ranks lo+1 .. hi share (lo+1+hi)/2; doubled: lo+1+hi
		for k := lo; k < hi; k++ {
			r2[idx[k]] = lo + 1 + hi
		}
		if t := hi - lo; t > 1 {
			ties = append(ties, t)
			tieSum += float64(t*t*t - t)
		}
		lo = hi
	}
	return r2, ties, tieSum
}

// SignedRankCounts returns, for the (doubled) ranks r2, the number of the
// 2^n sign patterns whose positive-rank sum (doubled) is s, for s = 0 ..
// Σr2: the exact null distribution of the signed-rank statistic given the
// ranks, by dynamic programming over the rank sums (each rank is added to
// the positive sum or not). Counts are float64: exact up to 2^53 patterns.
func SignedRankCounts(r2 []int) []float64 {
	total := 0
	for _, r := range r2 {
		total += r
	}
	c := make([]float64, total+1)
	c[0] = 1
	top := 0
	for _, r := range r2 {
		for s := top; s >= 0; s-- {
			if c[s] != 0 {
				c[s+r] += c[s]
			}
		}
		top += r
	}
	return c
}

// exactP is the two-sided exact p-value of the doubled positive-rank sum
// plus2 under the permutation distribution of the doubled ranks r2:
// min(1, 2·min(P(W ≤ w), P(W ≥ w))), as SciPy's exact method computes it.
func exactP(r2 []int, plus2 int) float64 {
	c := SignedRankCounts(r2)
	all := math.Ldexp(1, len(r2))
	le, ge := 0.0, 0.0
	for s, k := range c {
		if s <= plus2 {
			le += k
		}
		if s >= plus2 {
			ge += k
		}
	}
	return min(1, 2*min(le, ge)/all)
}

// SignTest is the sign test's counts and its two-sided p-value.
type SignTest struct {
	Pos, Neg, Zeros int     // differences above, below and at zero
	P               float64 // exact two-sided binomial p-value on Pos+Neg trials, zeros dropped; 1 when none
}

// Sign counts the signs of a−b and gives the sign test's exact two-sided
// p-value: min(1, 2·P(X ≤ min(Pos, Neg))) for X ~ Binomial(Pos+Neg, ½).
func Sign(a, b []float64) (SignTest, error) {
	d, err := Differences(a, b)
	if err != nil {
		return SignTest{}, err
	}
	var r SignTest
	for _, x := range d {
		switch {
		case x > 0:
			r.Pos++
		case x < 0:
			r.Neg++
		default:
			r.Zeros++
		}
	}
	n := r.Pos + r.Neg
	if n == 0 {
		r.P = 1
		return r, nil
	}
	k := min(r.Pos, r.Neg)
	cdf := 0.0
	for i := 0; i <= k; i++ {
		lg, _ := math.Lgamma(float64(n + 1))
		li, _ := math.Lgamma(float64(i + 1))
		lni, _ := math.Lgamma(float64(n - i + 1))
		cdf += math.Exp(lg - li - lni - float64(n)*math.Ln2)
	}
	r.P = min(1, 2*cdf)
	return r, nil
}

// Holm returns Holm's step-down adjusted p-values of the family p, in p's
// order: with the m p-values sorted ascending p₍₁₎ ≤ … ≤ p₍ₘ₎, the
// adjusted p₍ᵢ₎ is max over j ≤ i of min(1, (m−j+1)·p₍ⱼ₎). Rejecting where
// the adjusted value is below α controls the family-wise error at α. NaN
// entries are not part of the family and stay NaN.
func Holm(p []float64) []float64 {
	var idx []int
	for i, x := range p {
		if !math.IsNaN(x) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case p[i] < p[j]:
			return -1
		case p[i] > p[j]:
			return 1
		}
		return 0
	})
	out := make([]float64, len(p))
	for i := range out {
		out[i] = math.NaN()
	}
	m := len(idx)
	run := 0.0
	for k, i := range idx {
		run = max(run, min(1, float64(m-k)*p[i]))
		out[i] = run
	}
	return out
}
