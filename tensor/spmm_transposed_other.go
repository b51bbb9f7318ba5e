//go:build !amd64 || purego

package tensor

func transposedPairs(dst *float32, ldd int, odd *float32, ldo int, h *float32, c int, idx *int32, w *float32, n int, state *uint8, mask *int32, f0, span int) {
	panic("tensor: transposedPairs without AVX2")
}
