//go:build !arm64 || purego

package tensor

// haveNEON is false off arm64 (or with the purego tag); the function below
// is never called.
const haveNEON = false

func gemmRowsNEONRange(d, a, b []float32, n, kk, lo, hi int, acc bool) {
	panic("tensor: gemmRowsNEONRange without NEON")
}

func axpyTermsNEON(row, h, w []float32, c int, src []int32, acc bool) {
	panic("tensor: axpyTermsNEON without NEON")
}
