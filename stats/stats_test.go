package stats

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// close reports whether got is within tol of want (NaN equals NaN).
func close(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol
}

func checkClose(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !close(got, want, tol) {
		t.Errorf("%s = %.12g, want %.12g (±%g)", what, got, want, tol)
	}
}

// enumerateWilcoxon is the exact two-sided signed-rank p-value from first
// principles: zeros dropped, mid-ranks by counting, and the positive-rank
// sum of every one of the 2^n sign patterns.
func enumerateWilcoxon(d []float64) (wplus, p float64) {
	var nz []float64
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return 0, 1
	}
	rank := make([]float64, n)
	for i := range nz {
		less, equal := 0, 0
		for j := range nz {
			switch {
			case math.Abs(nz[j]) < math.Abs(nz[i]):
				less++
			case math.Abs(nz[j]) == math.Abs(nz[i]):
				equal++
			}
		}
		rank[i] = float64(less) + float64(equal+1)/2
		if nz[i] > 0 {
			wplus += rank[i]
		}
	}
	le, ge := 0, 0
	for mask := 0; mask < 1<<n; mask++ {
		w := 0.0
		for i := range n {
			if mask&(1<<i) != 0 {
				w += rank[i]
			}
		}
		if w <= wplus+1e-9 {
			le++
		}
		if w >= wplus-1e-9 {
			ge++
		}
	}
	return wplus, math.Min(1, 2*float64(min(le, ge))/math.Ldexp(1, n))
}

// scipyDocs is the example of scipy.stats.wilcoxon's documentation
// (differences in height of paired plants, Wilcoxon 1945).
var scipyDocs = []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}

func TestWilcoxonExact(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    []float64
	}{
		{"scipy docs", scipyDocs},
		{"all positive n=10", []float64{.05, .04, .06, .03, .07, .02, .08, .01, .09, .1}},
		{"mixed n=8", []float64{1.5, -0.3, 2.2, 0.8, -1.1, 0.4, 3.0, -0.2}},
		{"ties", []float64{0.01, 0.01, -0.01, 0.02, 0.02, 0.02, -0.03, 0.04, 0.04, -0.05}},
		{"zeros and ties", []float64{0, 0.1, -0.1, 0, 0.2, 0.2, 0.3, 0, -0.4, 0.5, 0.5, 0.5}},
		{"fold accuracies", []float64{1. / 19, 2. / 19, 0, -1. / 19, 3. / 18, 1. / 18, 2. / 19, 0, 1. / 19, 4. / 18}},
		{"one pair", []float64{0.3}},
		{"all zero", []float64{0, 0, 0}},
		{"centre", []float64{1, -2, -3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := wilcoxon(tc.d, ExactMax)
			wplus, want := enumerateWilcoxon(tc.d)
			checkClose(t, "W+", res.WPlus, wplus, 1e-12)
			checkClose(t, "p", res.P, want, 1e-12)
			if res.N > 0 && !res.Exact {
				t.Error("not exact for n ≤ 25")
			}
			if wantTies := tc.name == "ties" || tc.name == "zeros and ties" || tc.name == "fold accuracies"; res.Ties != wantTies {
				t.Errorf("ties %v, want %v", res.Ties, wantTies)
			}
			if got := res.WPlus + res.WMinus; got != float64(res.N*(res.N+1))/2 {
				t.Errorf("W+ + W- = %v, want n(n+1)/2 = %v", got, res.N*(res.N+1)/2)
			}
		})
	}
}

// TestWilcoxonSciPy pins SciPy's published values for its documentation
// example: statistic 24, exact p 0.04125976562500001 (which the enumeration
// above reproduces), and with method="approx" p 0.04088813291185591.
func TestWilcoxonSciPy(t *testing.T) {
	zeros := make([]float64, len(scipyDocs))
	res, err := Wilcoxon(scipyDocs, zeros)
	if err != nil {
		t.Fatal(err)
	}
	_, enum := enumerateWilcoxon(scipyDocs)
	checkClose(t, "enumerated p", enum, 0.04125976562500001, 1e-15)
	checkClose(t, "exact p", res.P, 0.04125976562500001, 1e-6)
	if res.Statistic != 24 || res.N != 15 || res.Ties || !res.Exact {
		t.Errorf("result %+v, want statistic 24 over 15 untied differences, exact", res)
	}
	ap, err := WilcoxonApprox(scipyDocs, zeros)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "approx p", ap.P, 0.04088813291185591, 1e-6)
}

// TestWilcoxonApprox checks the normal approximation (n > 25) against the
// formula computed here: z = (W+ − n(n+1)/4) / √(n(n+1)(2n+1)/24 − Σ(t³−t)/48).
func TestWilcoxonApprox(t *testing.T) {
	var d []float64
	for i := range 40 {
		x := float64((i*7)%13) - 4 // values −4..8, many ties, some zeros
		d = append(d, x)
	}
	res := wilcoxon(d, ExactMax)
	if res.Exact {
		t.Fatal("exact past 25")
	}
	// By hand: drop zeros, mid-ranks, tie groups.
	var nz []float64
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	wplus, tie := 0.0, 0.0
	seen := map[float64]int{}
	for _, x := range nz {
		seen[math.Abs(x)]++
	}
	for i, x := range nz {
		less, equal := 0, 0
		for _, y := range nz {
			if math.Abs(y) < math.Abs(x) {
				less++
			} else if math.Abs(y) == math.Abs(x) {
				equal++
			}
		}
		_ = i
		if x > 0 {
			wplus += float64(less) + float64(equal+1)/2
		}
	}
	for _, c := range seen {
		tie += float64(c*c*c - c)
	}
	n := float64(len(nz))
	z := (wplus - n*(n+1)/4) / math.Sqrt(n*(n+1)*(2*n+1)/24-tie/48)
	checkClose(t, "W+", res.WPlus, wplus, 1e-12)
	checkClose(t, "z", res.Z, z, 1e-12)
	checkClose(t, "p", res.P, 2*(1-0.5*math.Erfc(-math.Abs(z)/math.Sqrt2)), 1e-9)
}

// studentP is the two-sided t p-value through the regularised incomplete
// beta function, independent of distuv: p = I_{ν/(ν+t²)}(ν/2, ½).
func studentP(tv float64, nu int) float64 {
	v := float64(nu)
	return mathext.RegIncBeta(v/2, 0.5, v/(v+tv*tv))
}

// tByHand is the paired t statistic computed directly.
func tByHand(d []float64) float64 {
	n := float64(len(d))
	m := 0.0
	for _, x := range d {
		m += x
	}
	m /= n
	ss := 0.0
	for _, x := range d {
		ss += (x - m) * (x - m)
	}
	return m / math.Sqrt(ss/(n-1)/n)
}

func TestPairedT(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []float64
		want float64 // NaN: from studentP
	}{
		// df 1: p = 1 − (2/π)·atan|t|; d = (1, 3), t = 2.
		{"df 1", []float64{2, 4}, []float64{1, 1}, 1 - 2/math.Pi*math.Atan(2)},
		// df 2: p = 1 − |t|/√(2+t²); d = (1, 2, 4), t = (7/3)/(√(7/3)/√3).
		{"df 2", []float64{1, 2, 4}, []float64{0, 0, 0}, func() float64 {
			tv := (7.0 / 3) / math.Sqrt(7.0/3/3)
			return 1 - tv/math.Sqrt(2+tv*tv)
		}()},
		{"ten folds", []float64{.89, .84, .95, .79, .90, .84, .83, .94, .79, .95},
			[]float64{.84, .79, .89, .84, .90, .74, .83, .83, .68, .79}, math.NaN()},
		{"negative", []float64{.70, .72, .71, .69, .73, .74}, []float64{.75, .74, .76, .70, .78, .77}, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := PairedT(tc.a, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := Differences(tc.a, tc.b)
			want := tc.want
			if math.IsNaN(want) {
				want = studentP(tByHand(d), len(d)-1)
			}
			checkClose(t, "t", res.T, tByHand(d), 1e-9)
			checkClose(t, "p", res.P, want, 1e-9)
			if res.DF != len(d)-1 {
				t.Errorf("df %d", res.DF)
			}
		})
	}
	for _, tc := range []struct {
		name string
		a, b []float64
		t, p float64
	}{
		{"identical", []float64{.5, .6}, []float64{.5, .6}, 0, 1},
		{"constant shift", []float64{.6, .7}, []float64{.5, .6}, math.Inf(1), 0},
		{"one pair", []float64{.6}, []float64{.5}, math.NaN(), math.NaN()},
	} {
		res, err := PairedT(tc.a, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if !(res.T == tc.t || math.IsNaN(res.T) && math.IsNaN(tc.t)) || !close(res.P, tc.p, 0) {
			t.Errorf("%s: t %v p %v, want t %v p %v", tc.name, res.T, res.P, tc.t, tc.p)
		}
	}
}

func TestPairsChecked(t *testing.T) {
	if _, err := PairedT([]float64{1, 2}, []float64{1}); !errors.Is(err, ErrPairs) {
		t.Errorf("unequal lengths: %v", err)
	}
	if _, err := Wilcoxon([]float64{1, math.NaN()}, []float64{1, 2}); !errors.Is(err, ErrPairs) {
		t.Errorf("NaN: %v", err)
	}
	if _, err := Sign([]float64{math.Inf(1)}, []float64{1}); !errors.Is(err, ErrPairs) {
		t.Errorf("Inf: %v", err)
	}
}

func TestSign(t *testing.T) {
	for _, tc := range []struct {
		pos, neg, zeros int
		p               float64
	}{
		{10, 0, 0, 2.0 / 1024},
		{6, 3, 1, 2 * (1 + 9 + 36 + 84) / 512.0},
		{3, 6, 0, 2 * (1 + 9 + 36 + 84) / 512.0},
		{5, 5, 0, 1},
		{0, 0, 4, 1},
		{8, 1, 1, 2 * 10 / 512.0},
	} {
		var a, b []float64
		for range tc.pos {
			a, b = append(a, 1), append(b, 0)
		}
		for range tc.neg {
			a, b = append(a, 0), append(b, 1)
		}
		for range tc.zeros {
			a, b = append(a, 1), append(b, 1)
		}
		res, err := Sign(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if res.Pos != tc.pos || res.Neg != tc.neg || res.Zeros != tc.zeros || !close(res.P, tc.p, 1e-12) {
			t.Errorf("%d/%d/%d: %+v, want p %v", tc.pos, tc.neg, tc.zeros, res, tc.p)
		}
	}
}

func TestHolm(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		p, want []float64
	}{
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{[]float64{0.5, 0.01}, []float64{0.5, 0.02}},
		{[]float64{0.3, nan, 0.2, 0.9}, []float64{0.6, nan, 0.6, 0.9}},
		{[]float64{0.002, 0.002, 0.002}, []float64{0.006, 0.006, 0.006}},
		{[]float64{0.6, 0.7}, []float64{1, 1}},
		{nil, []float64{}},
	} {
		got := Holm(tc.p)
		if len(got) != len(tc.want) {
			t.Fatalf("Holm(%v) = %v", tc.p, got)
		}
		for i := range got {
			if !close(got[i], tc.want[i], 1e-12) {
				t.Errorf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
				break
			}
		}
	}
}

// TestSignedRankCounts checks the dynamic programme's distribution against
// the closed forms: for ranks 1..n (doubled) the counts sum to 2^n and are
// symmetric, and n = 3 gives 1,1,1,2,1,1,1 over the sums 0..6.
func TestSignedRankCounts(t *testing.T) {
	c := SignedRankCounts([]int{2, 4, 6})
	want := []float64{1, 0, 1, 0, 1, 0, 2, 0, 1, 0, 1, 0, 1}
	for i := range want {
		if c[i] != want[i] {
			t.Fatalf("counts %v, want %v", c, want)
		}
	}
	r := make([]int, 25)
	for i := range r {
		r[i] = 2 * (i + 1)
	}
	c = SignedRankCounts(r)
	sum := 0.0
	for i, k := range c {
		sum += k
		if k != c[len(c)-1-i] {
			t.Fatalf("not symmetric at %d", i)
		}
	}
	if sum != math.Ldexp(1, 25) {
		t.Errorf("counts sum to %v, want 2^25", sum)
	}
}
