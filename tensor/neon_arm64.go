//go:build !purego

package tensor

import "github.com/prcaps/prcaps/internal/kernels"

// haveNEON selects the NEON kernels on arm64 unless PRCAPS_KERNELS=go.
var haveNEON = kernels.Current() == kernels.NEON

// gemmRowsNEON is the NEON row kernel of Gemm (gemm_neon_arm64.s).
//
//go:noescape
func gemmRowsNEON(d, a, b *float32, ldd, lda, ldb, kk, rows, cols int, acc bool)

// gemmRowsNEONRange is gemmRows on NEON: rows [lo, hi) of d (+)= a·b, d
// m×n, a m×kk, b kk×n. The columns up to the last multiple of 4 run in
// gemmRowsNEON, the last n mod 4 in Go; each element adds its kk products
// in order, with one fused multiply-add per term in the assembly (and
// wherever the compiler fuses the Go loop's). kk ≥ 1 (Gemm returns earlier for an empty inner dimension).
func gemmRowsNEONRange(d, a, b []float32, n, kk, lo, hi int, acc bool) {
	if n4 := n &^ 3; n4 > 0 {
		gemmRowsNEON(&d[lo*n], &a[lo*kk], &b[0], n, kk, n, kk, hi-lo, n4, acc)
	}
	for j := n &^ 3; j < n; j++ {
		for i := lo; i < hi; i++ {
			var c float32
			if acc {
				c = d[i*n+j]
			}
			for p, x := range a[i*kk : (i+1)*kk] {
				c += x * b[p*n+j] // the arm64 compiler fuses this
			}
			d[i*n+j] = c
		}
	}
}
