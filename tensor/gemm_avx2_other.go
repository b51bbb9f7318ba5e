//go:build !amd64 || purego

package tensor

// gemmRowsAVX2 is never called off amd64 or in a purego build (haveAVX2FMA
// is false there).
func gemmRowsAVX2(d, a, b, state []float32, n, kk, lo, hi int, acc bool) {
	panic("tensor: gemmRowsAVX2 without AVX2")
}
