//go:build !amd64 || purego

package tensor

// haveAVX2FMA is false off amd64 (or with the purego tag): the portable
// kernels run instead, and the functions below are never called.
const haveAVX2FMA = false

func axpyRows32(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool) {
	panic("tensor: axpyRows32 without AVX2")
}

func axpyRows8(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool) {
	panic("tensor: axpyRows8 without AVX2")
}

func sumRows32(dst *float32, h *float32, stride int, idx *int32, n int, acc bool) {
	panic("tensor: sumRows32 without AVX2")
}

func sumRows8(dst *float32, h *float32, stride int, idx *int32, n int, acc bool) {
	panic("tensor: sumRows8 without AVX2")
}

func axpyRowsTail(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool, mask *int32) {
	panic("tensor: axpyRowsTail without AVX2")
}

func axpyRows16Tail2(dst *float32, h *float32, stride int, idx *int32, w0, w1 *float32, n int, acc bool, mask *int32) {
	panic("tensor: axpyRows16Tail2 without AVX2")
}

func gemmRows32(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool) {
	panic("tensor: gemmRows32 without AVX2")
}

func gemmRows16Tail(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask *int32) {
	panic("tensor: gemmRows16Tail without AVX2")
}

func vecAdd32(dst, a, b *float32, n int)    { panic("tensor: vecAdd32 without AVX2") }
func vecMul32(dst, a, b *float32, n int)    { panic("tensor: vecMul32 without AVX2") }
func vecMulAdd32(dst, a, b *float32, n int) { panic("tensor: vecMulAdd32 without AVX2") }
func vecReLU32(dst, x *float32, n int)      { panic("tensor: vecReLU32 without AVX2") }

func vecReLUGradScaled32(dst, g, y *float32, s float32, n int) {
	panic("tensor: vecReLUGradScaled32 without AVX2")
}

func gatherDotAVX(dst, q, h *float32, stride int, idx *int32, n, blocks int, acc bool, mask *int32, ahead int) {
	panic("tensor: gatherDotAVX without AVX2")
}

func tanhAddDotBackAVX(dst, dst2 *float32, dw *float64, x, y, w, up *float32, k, m int) {
	panic("tensor: tanhAddDotBackAVX without AVX2")
}

func axpyRows16Tail(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool, mask *int32, ahead int) {
	panic("tensor: axpyRows16Tail without AVX2")
}

func axpyLinks16Tail4(dst *float32, h *float32, stride int, child *int32, w *float32, links int, acc bool, mask *int32, ahead int) {
	panic("tensor: axpyLinks16Tail4 without AVX2")
}

func gatherDotLinks4AVX(dst, q, h *float32, stride int, child *int32, links, blocks int, acc bool, mask *int32, ahead int) {
	panic("tensor: gatherDotLinks4AVX without AVX2")
}

func sigmoid64AVX(dst, x *float64, n int) {
	panic("tensor: sigmoid64AVX without AVX2")
}

func expNegAbs64AVX(dst, x *float64, n int) {
	panic("tensor: expNegAbs64AVX without AVX2")
}

func gaussRow32AVX(k, a, dot, nv *float32, n int, nu, inv float32) {
	panic("tensor: gaussRow32AVX without AVX2")
}

func expShifted32AVX(row *float32, shift, sum *float64, n int) {
	panic("tensor: expShifted32AVX without AVX2")
}

func gelu32AVX(y *float32, slope *float64, x *float32, n int) int {
	panic("tensor: gelu32AVX without AVX2")
}

func maxIndex32(src *int32, n int) uint32 { panic("tensor: maxIndex32 without AVX2") }

func gemmRows8(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask *int32) {
	panic("tensor: gemmRows8 without AVX2")
}

func gather32(dst, src *float32, idx *int32, n int) { panic("tensor: gather32 without AVX2") }

func tanhAddDotLinksAVX(out, tau, p1, p2, w *float32, child, parent *int32, n, k, m int) {
	panic("tensor: tanhAddDotLinksAVX without AVX2")
}

func tanhDotBackLinksAVX(dst, dst2 *float32, dw *float64, tau, w, up *float32, child, parent *int32, n, k, m int) {
	panic("tensor: tanhDotBackLinksAVX without AVX2")
}

func expFloat32Vec(dst, x *float64, n int) { panic("tensor: expFloat32Vec without AVX2") }

func sumRowsWiden32(acc *float64, x *float32, rows, cols int) {
	panic("tensor: sumRowsWiden32 without AVX2")
}

func log64AVX(dst, x *float64, n int) int {
	panic("tensor: log64AVX without AVX2")
}

func sumSqDevRowsWiden32(acc *float64, x *float32, mu *float64, rows, cols int) {
	panic("tensor: sumSqDevRowsWiden32 without AVX2")
}

func sumProdRowsWiden32(acc *float64, a, b *float32, rows, cols int) {
	panic("tensor: sumProdRowsWiden32 without AVX2")
}

func normalizeRows32(y, xhat, x, mu, rstd, gamma, beta *float32, rows, cols int) {
	panic("tensor: normalizeRows32 without AVX2")
}

func normalizeGradRows32(dx, grad, xhat, c1, c2, c3 *float32, rows, cols int) {
	panic("tensor: normalizeGradRows32 without AVX2")
}

func addScaledRowsWiden32(acc, pw *float64, w, z *float32, cls *int32, ks *float64, m, d int) {
	panic("tensor: addScaledRowsWiden32 without AVX2")
}

func dropoutMask32(dst, src *float32, words *uint64, n int, thr uint32, scale, val float32) {
	panic("tensor: dropoutMask32 without AVX2")
}
