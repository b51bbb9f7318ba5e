//go:build !purego

package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// gemmRowsOneByOne is gemmRowsAVX2 with the one-row kernels only (the
// path before the blocked kernels): the baseline of BenchmarkGemmRowsAVX2.
func gemmRowsOneByOne(d, a, b, _ []float32, n, kk, lo, hi int, acc bool) {
	rows := hi - lo
	if n > 16 && n < 24 {
		gemmRows16Tail(&d[lo*n], n, &a[lo*kk], kk, &b[0], n, kk, rows, acc, &tailMasks[8-(n-16)])
		return
	}
	j := 0
	for ; j+32 <= n; j += 32 {
		gemmRows32(&d[lo*n+j], n, &a[lo*kk], kk, &b[j], n, kk, rows, acc)
	}
	for ; j < n; j += 8 {
		mask := &tailMasks[0]
		if n-j < 8 {
			mask = &tailMasks[8-(n-j)]
		}
		gemmRows8(&d[lo*n+j], n, &a[lo*kk], kk, &b[j], n, kk, rows, acc, mask)
	}
}

// gemmRowsUnchunked is gemmRowsAVX2 without chunks of the inner dimension.
func gemmRowsUnchunked(d, a, b, _ []float32, n, kk, lo, hi int, acc bool) {
	gemmRowsAVX2(d, a, b, nil, n, kk, lo, hi, acc)
}

// BenchmarkGemmRowsAVX2 times the AVX2 Gemm row kernels on one core,
// blocked (three or four rows per pass, a long inner dimension in chunks),
// blocked without the chunks, and one row at a time, at the shapes of Cora's routing layers and of
// weight gradients.
func BenchmarkGemmRowsAVX2(b *testing.B) {
	if !haveAVX2FMA {
		b.Skip("no AVX2+FMA on this machine")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range []struct{ m, k, n int }{
		{2708, 18, 64},  // the alignment's halves a·W at Cora size
		{2708, 64, 18},  // their input gradient
		{2708, 9, 36},   // the predictions
		{2708, 36, 9},   // their input gradient
		{18, 2708, 64},  // a weight gradient, transposed
		{18, 18333, 64}, // the same at Coauthor CS size
		{300, 128, 32},
	} {
		x, y, c := randDense[float32](rng, s.m, s.k), randDense[float32](rng, s.k, s.n), NewDense[float32](s.m, s.n)
		st := make([]float32, s.m*s.n) // chain B between chunks of a long inner dimension
		for _, v := range []struct {
			name string
			f    func(d, a, b, state []float32, n, kk, lo, hi int, acc bool)
		}{{"blocked", gemmRowsAVX2}, {"unchunked", gemmRowsUnchunked}, {"rows", gemmRowsOneByOne}} {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", s.m, s.k, s.n, v.name), func(b *testing.B) {
				for b.Loop() {
					v.f(c.Data, x.Data, y.Data, st, s.n, s.k, 0, s.m, false)
				}
				b.ReportMetric(float64(2*s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
