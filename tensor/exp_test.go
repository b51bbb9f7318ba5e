package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestExpNegAbs compares with math.Exp over the whole range, both signs,
// the floor at e^{−708}, ±Inf and NaN, in float64 and float32, at lengths
// that are not multiples of the vector width or of the float32 chunk.
func TestExpNegAbs(t *testing.T) {
	var x []float64
	for i := -20000; i <= 20000; i++ {
		x = append(x, float64(i)*0.0371)
	}
	x = append(x, 0, math.Copysign(0, -1), 700, -708, 709.5, -745, 1e6, math.Inf(1), math.Inf(-1), 1e-300, 36.7, 1, 2)
	dst := make([]float64, len(x))
	ExpNegAbs(dst, x)
	for i, v := range x {
		want, got := math.Exp(-math.Abs(v)), dst[i]
		switch {
		case math.Abs(v) > 708:
			if !(got >= 0 && got <= 1e-300) {
				t.Errorf("e^−|%v| = %v, want 0 or a tiny positive value", v, got)
			}
		case math.Abs(got-want) > 1e-14*want:
			t.Errorf("e^−|%v| = %v, want %v (relative error %.2g)", v, got, want, math.Abs(got-want)/want)
		}
	}
	x32 := make([]float32, 1001)
	for i := range x32 {
		x32[i] = float32(i-500) * 0.173
	}
	d32 := make([]float32, len(x32))
	ExpNegAbs(d32, x32)
	for i, v := range x32 {
		if want := float32(math.Exp(-math.Abs(float64(v)))); d32[i] != want {
			t.Errorf("float32 e^−|%v| = %v, want %v", v, d32[i], want)
		}
	}
	nan := []float64{math.NaN(), 1, 2, 3}
	ExpNegAbs(nan, nan)
	if !math.IsNaN(nan[0]) || math.Abs(nan[1]-math.Exp(-1)) > 1e-16 {
		t.Errorf("e^−|NaN| = %v, e^−1 = %v", nan[0], nan[1])
	}
}

func BenchmarkExpNegAbs(b *testing.B) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(i%200) * 0.1
	}
	dst := make([]float32, len(x))
	b.SetBytes(int64(4 * len(x)))
	for i := 0; i < b.N; i++ {
		ExpNegAbs(dst, x)
	}
}

// TestGaussianRow32 checks the fused distances and kernel values against
// float64 arithmetic (the kernel values against e^{−a} of the rounded a
// returned, whose own error is checked first): both tails (a far beyond e^{−87} and a rounding
// negative distance), NaN, and a length that is not a multiple of 8.
func TestGaussianRow32(t *testing.T) {
	const n = 1003
	g, nv, k, a := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	nu, inv := float32(3.5), float32(1/2.5)
	for j := range g {
		g[j] = float32(j%97)*0.37 - 9
		nv[j] = float32(j%31) * 0.9
	}
	g[5], nv[5] = 1.75+1e-6, 0 // nu + nv − 2g < 0
	g[6] = -1000               // a ≈ 800: beyond the floor
	g[9] = float32(math.NaN())
	GaussianRow32(k, a, g, nv, nu, inv)
	for j := range g {
		wa := max(float64(nu)+float64(nv[j])-2*float64(g[j]), 0) * float64(inv)
		wk := math.Exp(-float64(a[j])) // of the float32 a returned
		switch {
		case j == 9:
			if !math.IsNaN(float64(a[j])) || !math.IsNaN(float64(k[j])) {
				t.Errorf("NaN inner product: a = %v, k = %v", a[j], k[j])
			}
		case math.Abs(float64(a[j])-wa) > 2e-6*max(wa, 1):
			t.Errorf("a[%d] = %v, want %v", j, a[j], wa)
		case wa > 87:
			if !(k[j] >= 0 && k[j] < 2e-38) {
				t.Errorf("k[%d] = %v at a = %v, want 0 or a tiny positive value", j, k[j], wa)
			}
		case math.Abs(float64(k[j])-wk) > 3e-7*wk+1e-30:
			t.Errorf("k[%d] = %v, want %v (relative error %.2g)", j, k[j], wk, math.Abs(float64(k[j])-wk)/wk)
		}
	}
	if a[5] != 0 || k[5] != 1 {
		t.Errorf("negative rounded distance: a = %v, k = %v, want 0 and 1", a[5], k[5])
	}
}

func BenchmarkGaussianRow32(b *testing.B) {
	const n = 4096
	g, nv, k, a := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for j := range g {
		g[j], nv[j] = float32(j%97)*0.1, float32(j%31)
	}
	b.SetBytes(4 * n)
	for i := 0; i < b.N; i++ {
		GaussianRow32(k, a, g, nv, 20, 0.01)
	}
}

// expShifted is within 1e-8 of math.Exp over the range a softmax feeds
// it, 0 below −104 and NaN for NaN.
func TestExpShifted(t *testing.T) {
	worst := 0.0
	for x := -103.99; x <= 1e-3; x += 3.7e-4 {
		worst = max(worst, math.Abs(expShifted(x)/math.Exp(x)-1))
	}
	if worst > 1e-8 {
		t.Errorf("relative error %.3g", worst)
	}
	if expShifted(-200) != 0 || !math.IsNaN(expShifted(math.NaN())) {
		t.Error("expShifted(-200) or expShifted(NaN) wrong")
	}
}

// ExpShifted32 gives expShifted's bits, with and without sums, at every
// length and over values that cross −104, positive exponents, infinities
// and NaN.
func TestExpShifted32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 3, 4, 5, 8, 37, 1000} {
		row, shift, sum := make([]float32, n), make([]float64, n), make([]float64, n)
		for c := range row {
			row[c] = float32(rng.NormFloat64() * 40)
			shift[c] = rng.NormFloat64() * 30
			sum[c] = rng.Float64()
		}
		if n > 7 {
			row[1], row[2], row[3], shift[4] = float32(math.NaN()), float32(math.Inf(-1)), float32(math.Inf(1)), -104
			row[4], row[5], shift[5] = -208, -104, 0
		}
		wantRow, wantSum := make([]float32, n), slices.Clone(sum)
		for c := range row {
			e := expShifted(float64(row[c]) - shift[c])
			wantRow[c] = float32(e)
			wantSum[c] += e
		}
		noSum := slices.Clone(row)
		ExpShifted32(row, shift, sum)
		ExpShifted32(noSum, shift, nil)
		for c := range row {
			same := func(a, b float64) bool { return a == b || (a != a && b != b) }
			if !same(float64(row[c]), float64(wantRow[c])) || !same(float64(noSum[c]), float64(wantRow[c])) || !same(sum[c], wantSum[c]) {
				t.Fatalf("n=%d c=%d: row %v, without sums %v, sum %v; want %v and %v", n, c, row[c], noSum[c], sum[c], wantRow[c], wantSum[c])
			}
		}
	}
}

func BenchmarkExpShifted32(b *testing.B) {
	row, shift, sum := make([]float32, 4096), make([]float64, 4096), make([]float64, 4096)
	for i := 0; i < b.N; i++ {
		for c := range row {
			row[c] = float32(-(c % 50))
		}
		ExpShifted32(row, shift, sum)
	}
}

// GELU32 gives geluGo's bits, which are nn's float32 GELU before it moved
// here, with and without slopes, over ordinary values, values whose
// exponent math.Exp takes another way (|z| > 37.6), ±0, infinities and
// NaN, at lengths that are not multiples of 4; and e^{−z²/2} inside it is
// math.Exp's.
func TestGELU32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, 20003)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 4)
	}
	copy(x[100:], []float32{0, float32(math.Copysign(0, -1)), 37.5, -37.7, 38, 40, 1e20, float32(math.Inf(1)),
		float32(math.Inf(-1)), float32(math.NaN()), 1e-30, -1e-30})
	y, slope := make([]float32, len(x)), make([]float64, len(x))
	wy, ws := make([]float32, len(x)), make([]float64, len(x))
	GELU32(y, slope, x)
	geluGo(wy, ws, x, 0)
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b) }
	for i := range x {
		if !same(float64(y[i]), float64(wy[i])) || !same(slope[i], ws[i]) {
			t.Fatalf("GELU(%v) = %v, slope %v; want %v, %v", x[i], y[i], slope[i], wy[i], ws[i])
		}
	}
	y2 := make([]float32, 7)
	GELU32(y2, nil, x[:7])
	if !slices.Equal(y2, wy[:7]) {
		t.Errorf("without slopes: %v, want %v", y2, wy[:7])
	}
	// The worst error against the exact GELU, z·erfc(−z/√2)/2.
	worst := 0.0
	for z := -8.0; z <= 8; z += 1e-3 {
		var g [1]float32
		GELU32(g[:], nil, []float32{float32(z)})
		zz := float64(float32(z))
		worst = max(worst, math.Abs(float64(g[0])-zz*math.Erfc(-zz/math.Sqrt2)/2))
	}
	if worst > 2e-6 {
		t.Errorf("GELU error %.3g", worst)
	}
}

func BenchmarkGELU32(b *testing.B) {
	x, y, s := make([]float32, 4096), make([]float32, 4096), make([]float64, 4096)
	for i := range x {
		x[i] = float32(i%200)*0.05 - 5
	}
	for i := 0; i < b.N; i++ {
		GELU32(y, s, x)
	}
}
