package tensor

import (
	"fmt"
	"math"
)

// expChunk is how many float32 values ExpNegAbs widens at a time, in a
// buffer on the stack.
const expChunk = 256

// ExpNegAbs sets dst[i] = e^{−|x[i]|}: the Gaussian kernel exp(−d/γ) of
// non-negative scaled distances, which never overflows. dst may be x. On
// AVX2+FMA four values at a time run in assembly, float64 throughout
// (relative error ≤ 1e-14 against math.Exp; e^{−|x|} is floored at
// e^{−708} ≈ 3e-308, which float32 rounds to 0); the rest use math.Exp.
func ExpNegAbs[T Float](dst, x []T) {
	if len(dst) != len(x) {
		panic(fmt.Sprintf("tensor: ExpNegAbs lengths %d and %d", len(dst), len(x)))
	}
	switch d := any(dst).(type) {
	case []float64:
		expNegAbs64(d, any(x).([]float64))
		return
	}
	if !haveAVX2FMA {
		for i, v := range x {
			dst[i] = T(math.Exp(-math.Abs(float64(v))))
		}
		return
	}
	var buf [expChunk]float64
	for lo := 0; lo < len(x); lo += expChunk {
		hi := min(lo+expChunk, len(x))
		b := buf[:hi-lo]
		for i, v := range x[lo:hi] {
			b[i] = float64(v)
		}
		expNegAbs64(b, b)
		for i, v := range b {
			dst[lo+i] = T(v)
		}
	}
}

func expNegAbs64(dst, x []float64) {
	n := 0
	if haveAVX2FMA {
		n = len(x) &^ 3
		if n > 0 {
			expNegAbs64AVX(&dst[0], &x[0], n)
		}
	}
	for i := n; i < len(x); i++ {
		dst[i] = math.Exp(-math.Abs(x[i]))
	}
}

// GaussianRow32 turns one row of inner products g[j] = u·v_j into the
// scaled squared distances a[j] = max(nu + nv[j] − 2·g[j], 0)·inv, where
// nu = ‖u‖², nv[j] = ‖v_j‖² and inv = 1/γ, and the Gaussian kernel values
// k[j] = e^{−a[j]}, the fused inner loop of a kernel matrix by matrix
// products. k may be g. On AVX2+FMA eight values at a time run in float32
// assembly: e^{−a} to within 2e-7 relative error (float32 rounding and a
// degree-7 polynomial), floored at e^{−87} ≈ 1.6e-38; the rest, and
// builds without it, compute a in float64 and use math.Exp.
func GaussianRow32(k, a, g, nv []float32, nu, inv float32) {
	n := len(g)
	if len(k) != n || len(a) != n || len(nv) != n {
		panic(fmt.Sprintf("tensor: GaussianRow32 lengths %d, %d, %d and %d", len(k), len(a), len(g), len(nv)))
	}
	done := 0
	if haveAVX2FMA {
		done = n &^ 7
		if done > 0 {
			gaussRow32AVX(&k[0], &a[0], &g[0], &nv[0], done, nu, inv)
		}
	}
	for j := done; j < n; j++ {
		v := float32(max(float64(nu)+float64(nv[j])-2*float64(g[j]), 0) * float64(inv))
		a[j], k[j] = v, float32(math.Exp(-float64(v)))
	}
}

// ExpShifted32 sets row[c] = float32(e^{row[c] − shift[c]}) and, when sum
// is not nil, adds the float64 value to sum[c]: the exponentials of a
// softmax over keys, shift being the running maximum (so the exponents
// are ≤ 0). The exponential is expShifted's, to a relative 1e-8 (far
// below float32's resolution); on AVX2 four values at a time run in
// assembly with the same operations in the same order, so every build
// gives the same bits.
func ExpShifted32(row []float32, shift, sum []float64) {
	n := len(row)
	if len(shift) < n || (sum != nil && len(sum) < n) {
		panic(fmt.Sprintf("tensor: ExpShifted32 of %d values with %d shifts and %d sums", n, len(shift), len(sum)))
	}
	done := 0
	if haveAVX2FMA {
		done = n &^ 3
		if done > 0 {
			var s *float64
			if sum != nil {
				s = &sum[0]
			}
			expShifted32AVX(&row[0], &shift[0], s, done)
		}
	}
	for c := done; c < n; c++ {
		e := expShifted(float64(row[c]) - shift[c])
		row[c] = float32(e)
		if sum != nil {
			sum[c] += e
		}
	}
}

// expShifter rounds to an integer when added: x·log₂e + expShifter holds
// round(x·log₂e) in its low mantissa bits.
const expShifter = 0x1.8p52

// expShifted is e^x for x ≤ 0 to a relative 1e-8, at a fraction of
// math.Exp's cost: e^x = 2^n·e^y with n = round(x/ln2) (by expShifter),
// |y| ≤ ln2/2, and e^y from its degree-7 Taylor polynomial, whose error
// is below (ln2/2)⁸/8! ≈ 5e-9. It is 0 for x ≤ −104 (under float32's
// smallest subnormal) and NaN for NaN. It is the segment softmax's
// expFloat32 except for how n is rounded (ties to even here, and no
// rounding of x·log₂e + ½), so the two can differ in the last bits; each
// keeps the bits its op has always had.
func expShifted(x float64) float64 {
	if !(x > -104) {
		if x != x {
			return x
		}
		return 0
	}
	t := x*math.Log2E + expShifter
	y := x - (t-expShifter)*math.Ln2
	e := 1 + y*(1+y*(1.0/2+y*(1.0/6+y*(1.0/24+y*(1.0/120+y*(1.0/720+y*(1.0/5040)))))))
	return e * math.Float64frombits((math.Float64bits(t)-math.Float64bits(expShifter)+1023)<<52)
}

// GELU32 sets y[i] = float32(z·Φ(z)) for z = float64(x[i]), the exact GELU
// with float32 resolution, and, when slope is not nil, slope[i] = Φ(z) +
// z·φ(z), its derivative. Φ(z) comes from Abramowitz and Stegun's 7.1.26
// approximation of erf (error below 1.5e-7, float32's resolution), which
// shares e^{−z²/2} with the density φ: erfc(a) ≈ t·P(t)·e^{−a²},
// t = 1/(1 + 0.3275911a), a = |z|/√2. On AVX2+FMA four values at a time
// run in assembly with geluGo's operations in its order, e^{−z²/2} as
// math.Exp computes it, so every build gives the same bits.
func GELU32(y []float32, slope []float64, x []float32) {
	n := len(x)
	if len(y) != n || (slope != nil && len(slope) != n) {
		panic(fmt.Sprintf("tensor: GELU32 of %d values into %d and %d", n, len(y), len(slope)))
	}
	i := 0
	if haveAVX2FMA {
		for n4 := n &^ 3; i < n4; {
			var s *float64
			if slope != nil {
				s = &slope[i]
			}
			i += gelu32AVX(&y[i], s, &x[i], n4-i)
			if i < n4 { // a group with a very large |z| or a NaN
				geluGo(y[i:i+4], slope, x[i:i+4], i)
				i += 4
			}
		}
	}
	geluGo(y[i:], slope, x[i:], i)
}

// geluGo is GELU32 for the values x, whose slopes (if any) go to
// slope[off:].
func geluGo(y []float32, slope []float64, x []float32, off int) {
	for i, v := range x {
		z := float64(v)
		e := math.Exp(-z * z / 2)
		pdf := e / math.Sqrt(2*math.Pi)
		a := math.Abs(z) / math.Sqrt2
		t := 1 / (1 + 0.3275911*a)
		erfc := t * (0.254829592 + t*(-0.284496736+t*(1.421413741+t*(-1.453152027+t*1.061405429)))) * e
		cdf := erfc / 2
		if z >= 0 {
			cdf = 1 - erfc/2
		}
		y[i] = float32(z * cdf)
		if slope != nil {
			slope[off+i] = cdf + z*pdf
		}
	}
}
