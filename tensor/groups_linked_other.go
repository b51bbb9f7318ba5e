//go:build !amd64 || purego

package tensor

func axpyRows16Tail4Links(dst *float32, h *float32, stride int, idx, link *int32, w *float32, n int, acc bool, mask int) {
	panic("tensor: axpyRows16Tail4Links without AVX-512")
}
