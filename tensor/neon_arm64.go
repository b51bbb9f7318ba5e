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
	j0, t := n&^3, n&3
	if t == 0 {
		return
	}
	// The last n mod 4 columns of each row together, one load of a's value
	// for all of them; each element adds its products in order, one fused
	// multiply-add each (the arm64 compiler fuses c += x*b), as the
	// assembly does.
	for i := lo; i < hi; i++ {
		ai, di := a[i*kk:(i+1)*kk], d[i*n+j0:i*n+n]
		var c0, c1, c2 float32
		if acc {
			c0 = di[0]
			if t > 1 {
				c1 = di[1]
			}
			if t > 2 {
				c2 = di[2]
			}
		}
		switch t {
		case 1:
			for p, x := range ai {
				c0 += x * b[p*n+j0]
			}
			di[0] = c0
		case 2:
			for p, x := range ai {
				bp := b[p*n+j0 : p*n+j0+2 : p*n+j0+2]
				c0 += x * bp[0]
				c1 += x * bp[1]
			}
			di[0], di[1] = c0, c1
		default:
			for p, x := range ai {
				bp := b[p*n+j0 : p*n+j0+3 : p*n+j0+3]
				c0 += x * bp[0]
				c1 += x * bp[1]
				c2 += x * bp[2]
			}
			di[0], di[1], di[2] = c0, c1, c2
		}
	}
}

// gatherDotNEON is gatherDotGo on NEON (gatherdot_neon_arm64.s): dst[e]
// (+)= q·h[idx[e]] for e < n, q widened into qw, with gatherDotGo's four
// float64 chains and so its bits. Callers check the indices.
//
//go:noescape
func gatherDotNEON(dst *float32, qw *float64, h *float32, c int, idx *int32, n int, acc bool)

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
