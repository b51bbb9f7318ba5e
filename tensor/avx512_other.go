//go:build !amd64 || purego

package tensor

// haveAVX512 is false off amd64 (or with the purego tag); the functions
// below are never called.
const haveAVX512 = false

func gemmRowsZ1(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int) {
	panic("tensor: gemmRowsZ1 without AVX-512")
}

func gemmRowsZ2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int) {
	panic("tensor: gemmRowsZ2 without AVX-512")
}

func gemmRowsZ3(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int) {
	panic("tensor: gemmRowsZ3 without AVX-512")
}

func gemmRowsZ4(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int) {
	panic("tensor: gemmRowsZ4 without AVX-512")
}

func gemmRowsZ1x2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int) {
	panic("tensor: gemmRowsZ1x2 without AVX-512")
}

func gemmRowsZ2x2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int) {
	panic("tensor: gemmRowsZ2x2 without AVX-512")
}

func tanhAddDotLinksZ16(out, tau, p1, p2, w *float32, child, parent *int32, n, k int) {
	panic("tensor: tanhAddDotLinksZ16 without AVX-512")
}

func gemmRowsZ4x2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int) {
	panic("tensor: gemmRowsZ4x2 without AVX-512")
}

func gemmRowsZ4x2S(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int, state *float32, mode int) {
	panic("tensor: gemmRowsZ4x2S without AVX-512")
}

func gemmRowsZ4x2ST(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int, state *float32, mode int) {
	panic("tensor: gemmRowsZ4x2ST without AVX-512")
}

func tanhDotBackLinksZ16(dst, dst2 *float32, dw *float64, tau, w, up *float32, child, parent *int32, n, k int) {
	panic("tensor: tanhDotBackLinksZ16 without AVX-512")
}

func axpyRowsZ64(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool) {
	panic("tensor: axpyRowsZ64 without AVX-512")
}
