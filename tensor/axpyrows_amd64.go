//go:build !purego

package tensor

import "github.com/prcaps/prcaps/internal/kernels"

// haveAVX2FMA reports whether the AVX2+FMA row kernels below run: the
// kernel set (internal/kernels, PRCAPS_KERNELS) is avx2 or avx512.
var haveAVX2FMA = kernels.Current() >= kernels.AVX2

// axpyRows32 sets dst[0:32] to (acc ? dst[0:32] : 0) + Σ_{e<n} w[e]·h[idx[e]·stride : +32],
// holding the 32 sums in registers across all n terms. The caller
// guarantees every idx[e]·stride+32 ≤ len(h) (from h's start) and n ≥ 0.
//
//go:noescape
func axpyRows32(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool)

// axpyRows8 is axpyRows32 for 8 outputs.
//
//go:noescape
func axpyRows8(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool)

// sumRows32 is axpyRows32 with unit weights.
//
//go:noescape
func sumRows32(dst *float32, h *float32, stride int, idx *int32, n int, acc bool)

// sumRows8 is axpyRows8 with unit weights.
//
//go:noescape
func sumRows8(dst *float32, h *float32, stride int, idx *int32, n int, acc bool)

// axpyRowsTail is axpyRows8 restricted to the columns whose mask lane is
// −1 (the first 1-7, see tailMasks); w may be nil for unit weights. Masked
// lanes of h and dst are neither read nor written.
//
//go:noescape
func axpyRowsTail(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool, mask *int32)

// gatherDotAVX sets dst[e] (+)= Σ_{c} q[c]·h[idx[e]·stride + c] for e < n,
// over blocks full 8-column blocks and, when mask is non-nil, the first
// 1-7 columns after them (see tailMasks). The caller guarantees every row
// read lies in h and n ≥ 1.
//
//go:noescape
func gatherDotAVX(dst, q, h *float32, stride int, idx *int32, n, blocks int, acc bool, mask *int32, ahead int)

// axpyRows16Tail is axpyRows32 for rows of 16+t columns, t = 1..7 (the
// first t lanes of mask set, see tailMasks), in one pass; w must not be nil.
//
//go:noescape
func axpyRows16Tail(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool, mask *int32, ahead int)

// axpyLinks16Tail4 is axpyRows16Tail over the rows child[e]·4 + r (r = 0 …
// 3) of links links, with the weights w[4e + r]: the same bits as
// axpyRows16Tail on that index written out. links ≥ 1.
//
//go:noescape
func axpyLinks16Tail4(dst *float32, h *float32, stride int, child *int32, w *float32, links int, acc bool, mask *int32, ahead int)

// gatherDotLinks4AVX is gatherDotAVX over the rows child[e]·4 + r (r = 0 …
// 3) of links links: the same bits as gatherDotAVX on that index written
// out. links ≥ 1.
//
//go:noescape
func gatherDotLinks4AVX(dst, q, h *float32, stride int, child *int32, links, blocks int, acc bool, mask *int32, ahead int)

// axpyRows16Tail2 is axpyRows16Tail for two output rows, dst[0:stride]
// with weights w0 and dst[stride:2·stride] with w1, that sum the same
// source rows: each source row is read once for both.
//
//go:noescape
func axpyRows16Tail2(dst *float32, h *float32, stride int, idx *int32, w0, w1 *float32, n int, acc bool, mask *int32)

// gemmRows32 is a 32-column block of a dense product a·b for rows output
// rows with axpyRows32's arithmetic: dst[r·ldd : +32] = (acc ? dst[r·ldd :
// +32] : 0) + Σ_{p<k} a[r·lda+p]·b[p·ldb : +32]. The caller guarantees
// every row read and written lies in its slice.
//
//go:noescape
func gemmRows32(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool)

// gemmRows16Tail is gemmRows32 for products of 17-23 columns (mask as in
// axpyRows16Tail), with axpyRows16Tail's arithmetic.
//
//go:noescape
func gemmRows16Tail(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask *int32)

// gemmRows8 is gemmRows32 for an 8-column block (mask all ones) or its
// first 1-7 columns (mask as in axpyRowsTail), with axpyRows8's (or
// axpyRowsTail's) arithmetic.
//
//go:noescape
func gemmRows8(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask *int32)

// tanhAddDotBackAVX is TanhAddDotBack2 for k blocks of m elements (m a
// multiple of 8); dst, dst2, y and dw may be nil.
//
//go:noescape
func tanhAddDotBackAVX(dst, dst2 *float32, dw *float64, x, y, w, up *float32, k, m int)

// tanhAddDotLinksAVX is TanhAddDotLinks (m a multiple of 8); tau and p2
// may be nil.
//
//go:noescape
func tanhAddDotLinksAVX(out, tau, p1, p2, w *float32, child, parent *int32, n, k, m int)

// tanhDotBackLinksAVX is TanhDotBackLinks (m a multiple of 8); dst, dst2
// and dw may be nil.
//
//go:noescape
func tanhDotBackLinksAVX(dst, dst2 *float32, dw *float64, tau, w, up *float32, child, parent *int32, n, k, m int)

// sigmoid64AVX is Sigmoid64 for n a multiple of 4; dst may be x.
//
//go:noescape
func sigmoid64AVX(dst, x *float64, n int)

// expNegAbs64AVX is ExpNegAbs on float64 for n a multiple of 4; dst may
// be x.
//
//go:noescape
func expNegAbs64AVX(dst, x *float64, n int)

// gaussRow32AVX is GaussianRow32 for n a multiple of 8.
//
//go:noescape
func gaussRow32AVX(k, a, dot, nv *float32, n int, nu, inv float32)

// expShifted32AVX is ExpShifted32 for n a multiple of 4; sum may be nil.
//
//go:noescape
func expShifted32AVX(row *float32, shift, sum *float64, n int)

// gelu32AVX is GELU32 for n a multiple of 4, up to the first group of
// four it leaves to the scalar code; it returns how many values it did.
// slope may be nil.
//
//go:noescape
func gelu32AVX(y *float32, slope *float64, x *float32, n int) int

// log64AVX is Log64 for n a multiple of 4, up to the first block with a
// value that is not positive, normal and finite; it returns how many values
// it did.
//
//go:noescape
func log64AVX(dst, x *float64, n int) int
