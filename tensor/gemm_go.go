package tensor

// gemmRowsGo computes rows [lo, hi) of d (+)= a·b for the Go kernel set
// (float32, the shapes gemmRowsFit accepts): d is m×n, a m×kk, b kk×n,
// all row-major. It works on register tiles of two rows by four columns:
// each step of the inner dimension loads four values of b's row once for
// both rows of d and two values of a, and updates eight independent sums,
// so that the loads are shared and the additions do not wait on each
// other. Each output element adds its kk products in order, with one
// rounding per product and per sum (the compiler fuses them on arm64),
// starting from d's value with acc and from zero without. Rows of d are
// independent, so the workers of a Gemm split them.
func gemmRowsGo(d, a, b []float32, n, kk, lo, hi int, acc bool) {
	i := lo
	for ; i+2 <= hi; i += 2 {
		a0, a1 := a[i*kk:(i+1)*kk], a[(i+1)*kk:(i+2)*kk]
		a1 = a1[:len(a0)]
		d0, d1 := d[i*n:(i+1)*n], d[(i+1)*n:(i+2)*n]
		j := 0
		for ; j+4 <= n; j += 4 {
			o0, o1 := d0[j:j+4:j+4], d1[j:j+4:j+4]
			var c00, c01, c02, c03, c10, c11, c12, c13 float32
			if acc {
				c00, c01, c02, c03 = o0[0], o0[1], o0[2], o0[3]
				c10, c11, c12, c13 = o1[0], o1[1], o1[2], o1[3]
			}
			for p, x0 := range a0 {
				x1 := a1[p]
				bp := b[p*n+j : p*n+j+4 : p*n+j+4]
				b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
				c00 += x0 * b0
				c01 += x0 * b1
				c02 += x0 * b2
				c03 += x0 * b3
				c10 += x1 * b0
				c11 += x1 * b1
				c12 += x1 * b2
				c13 += x1 * b3
			}
			o0[0], o0[1], o0[2], o0[3] = c00, c01, c02, c03
			o1[0], o1[1], o1[2], o1[3] = c10, c11, c12, c13
		}
		for ; j < n; j++ {
			var c0, c1 float32
			if acc {
				c0, c1 = d0[j], d1[j]
			}
			for p, x0 := range a0 {
				bv := b[p*n+j]
				c0 += x0 * bv
				c1 += a1[p] * bv
			}
			d0[j], d1[j] = c0, c1
		}
	}
	if i < hi { // the odd last row: tiles of one row by four columns
		a0, d0 := a[i*kk:(i+1)*kk], d[i*n:(i+1)*n]
		j := 0
		for ; j+4 <= n; j += 4 {
			o0 := d0[j : j+4 : j+4]
			var c0, c1, c2, c3 float32
			if acc {
				c0, c1, c2, c3 = o0[0], o0[1], o0[2], o0[3]
			}
			for p, x0 := range a0 {
				bp := b[p*n+j : p*n+j+4 : p*n+j+4]
				c0 += x0 * bp[0]
				c1 += x0 * bp[1]
				c2 += x0 * bp[2]
				c3 += x0 * bp[3]
			}
			o0[0], o0[1], o0[2], o0[3] = c0, c1, c2, c3
		}
		for ; j < n; j++ {
			var c0 float32
			if acc {
				c0 = d0[j]
			}
			for p, x0 := range a0 {
				c0 += x0 * b[p*n+j]
			}
			d0[j] = c0
		}
	}
}

// gemmRowsGoMaxN is the widest output for which the Go kernel set runs
// gemmRowsGo where gonum has assembly (amd64): wider products, whose
// gonum axpys and dots are long enough for its SSE loops, run faster
// there. Without gonum's assembly (arm64) gemmRowsGo takes every width
// the row kernels take (gemmRowsMaxN).
const gemmRowsGoMaxN = 16

// gemmRowsGoFits reports whether a row-kernel product n columns wide
// runs as such in this kernel set: always on AVX2, and in the Go set
// where gemmRowsGo beats gonum.
func gemmRowsGoFits(n int) bool {
	return haveAVX2FMA || !gonumAsm || n < gemmRowsGoMaxN
}
