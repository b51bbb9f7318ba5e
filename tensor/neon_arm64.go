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

// axpyRowsNEON is the NEON row aggregation (axpyrows_neon_arm64.s).
//
//go:noescape
func axpyRowsNEON(row, h *float32, c int, idx *int32, w *float32, n int, acc bool, cols int)

// axpyTermsNEON is axpyTermsGo on NEON (c ≥ 4): the columns up to the last
// multiple of 4 in axpyRowsNEON, the rest in Go; each element adds its
// terms in order, one fused multiply-add per term in the assembly.
func axpyTermsNEON(row, h, w []float32, c int, src []int32, acc bool) {
	c4 := c &^ 3
	var wp *float32
	if w != nil {
		wp = first(w[:len(src)])
	}
	axpyRowsNEON(&row[:c][0], first(h), c, first(src), wp, len(src), acc, c4)
	axpyTermsTail(row, h, w, c, c4, src, acc)
}
