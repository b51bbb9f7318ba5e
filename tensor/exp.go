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
