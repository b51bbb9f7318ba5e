//go:build !purego

package tensor

import "github.com/prcaps/prcaps/internal/kernels"

// haveAVX512 reports whether the AVX-512 kernels below (Gemm rows in
// gemm_avx512_amd64.s, the tanh forward pass in tanh_amd64.s) run: the
// kernel set is avx512.
var haveAVX512 = kernels.Current() >= kernels.AVX512

// gemmRowsZ1 to gemmRowsZ4 are gemmRows32 for 16·v columns in v AVX-512
// vectors, v = 1…4, the last vector restricted to the lanes set in mask
// (bit j for column 16·(v−1)+j; masked columns are neither read nor
// written). Each output element gets the operations, in the order, of the
// AVX2 row kernels, so the results are the same bits.
//
//go:noescape
func gemmRowsZ1(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int)

//go:noescape
func gemmRowsZ2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int)

//go:noescape
func gemmRowsZ3(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int)

//go:noescape
func gemmRowsZ4(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int)

// gemmRowsZ1x2, gemmRowsZ2x2 and gemmRowsZ4x2 are gemmRowsZ1, gemmRowsZ2
// and gemmRowsZ4 for pairs of rows (rows 2i and 2i+1 for i < pairs), which
// share their loads of b.
//
//go:noescape
func gemmRowsZ1x2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int)

//go:noescape
func gemmRowsZ4x2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int)

// gemmRowsZ4x2S is gemmRowsZ4x2 over one even-length chunk of the inner
// dimension, chain B kept in state (laid out as dst) between chunks: mode
// bit 0 starts chain B from state, bit 1 sums the chains into dst (the
// last chunk); otherwise chain A is stored to dst and chain B to state.
// Run over consecutive chunks it gives gemmRowsZ4x2's bits.
//
//go:noescape
func gemmRowsZ4x2S(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int, state *float32, mode int)

// gemmRowsZ4x2ST is gemmRowsZ4x2S on aᵀ: the weights of row r are column r
// of a, whose terms are lda floats apart.
//
//go:noescape
func gemmRowsZ4x2ST(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int, state *float32, mode int)

//go:noescape
func gemmRowsZ2x2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int)

// tanhAddDotLinksZ16 is tanhAddDotLinksAVX for m = 16 (the routing
// alignment's default width) on AVX-512, with the same results bit for bit.
//
//go:noescape
func tanhAddDotLinksZ16(out, tau, p1, p2, w *float32, child, parent *int32, n, k int)

// tanhDotBackLinksZ16 is tanhDotBackLinksAVX for m = 16 on AVX-512, the
// same operations lane for lane, so the same bits.
//
//go:noescape
func tanhDotBackLinksZ16(dst, dst2 *float32, dw *float64, tau, w, up *float32, child, parent *int32, n, k int)

// axpyRowsZ64 is axpyRows32 for 64 columns on AVX-512, each column with
// axpyRows32's operations, so the same bits as two axpyRows32 calls.
//
//go:noescape
func axpyRowsZ64(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool)
