package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLog64 asks for math.Log's bits exactly: over random positive values
// of every binade, the reduction's boundary f1 = √2/2 and its neighbours,
// powers of two, 1 and its neighbours, and blocks holding the special
// values (0, −0, negatives, subnormals, +Inf, NaN) at every lane, with
// lengths that are not multiples of the vector width.
func TestLog64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var x []float64
	for i := 0; i < 20000; i++ {
		x = append(x, math.Ldexp(0.5+rng.Float64()/2, rng.IntN(2046)-1021))
	}
	for e := -1022; e <= 1023; e += 7 {
		h := math.Ldexp(math.Sqrt2/2, e)
		x = append(x, h, math.Nextafter(h, 0), math.Nextafter(h, math.Inf(1)), math.Ldexp(1, e))
	}
	x = append(x, 1, math.Nextafter(1, 0), math.Nextafter(1, 2), 1e-9, 1+1e-9, math.MaxFloat64, 0x1p-1022, 0.5, 2, math.E)
	specials := []float64{0, math.Copysign(0, -1), -1, -math.MaxFloat64, 0x1p-1074, 0x1p-1030, math.Inf(1), math.Inf(-1), math.NaN()}
	for lane := 0; lane < 4; lane++ {
		for _, v := range specials {
			blk := []float64{0.3, 7, 1e-9, 12345}
			blk[lane] = v
			x = append(x, blk...)
		}
	}
	for _, n := range []int{len(x), len(x) - 1, len(x) - 2, len(x) - 3, 3, 0} {
		dst := make([]float64, n)
		Log64(dst, x[:n])
		for i, v := range x[:n] {
			if want := math.Log(v); math.Float64bits(dst[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(dst[i])) {
				t.Fatalf("n = %d: Log64(%v) = %v (%#x), math.Log: %v (%#x)", n, v, dst[i], math.Float64bits(dst[i]), want, math.Float64bits(want))
			}
		}
	}
	if haveAVX2FMA { // the kernel itself takes plain blocks, not the fallback
		src, out := []float64{1, 2, 1e-9, 4, 0.5, 6, 7, 1e300}, make([]float64, 8)
		if n := log64AVX(&out[0], &src[0], 8); n != 8 {
			t.Errorf("log64AVX did %d of 8 plain values", n)
		}
	}
	in := []float64{0.25, 4, 1e-9, 3, 8}
	Log64(in, in)
	if in[0] != math.Log(0.25) || in[4] != math.Log(8) {
		t.Errorf("in place: %v", in)
	}
}

// logBenchInput returns 4,096 couplings-like inputs and a destination.
func logBenchInput(b *testing.B) (dst, x []float64) {
	x = make([]float64, 4096)
	for i := range x {
		x[i] = float64(i%997+1)*1e-3 + 1e-9
	}
	b.SetBytes(int64(8 * len(x)))
	return make([]float64, len(x)), x
}

func BenchmarkLog64(b *testing.B) {
	dst, x := logBenchInput(b)
	for i := 0; i < b.N; i++ {
		Log64(dst, x)
	}
}

// BenchmarkMathLog is the scalar loop Log64 replaces.
func BenchmarkMathLog(b *testing.B) {
	dst, x := logBenchInput(b)
	for i := 0; i < b.N; i++ {
		for j, v := range x {
			dst[j] = math.Log(v)
		}
	}
}
