//go:build !arm64 || purego

package tensor

// haveNEON is false off arm64 (or with the purego tag); the functions below
// are never called.
const haveNEON = false

func gemmRowsNEONRange(d, a, b []float32, n, kk, lo, hi int, acc bool) {
	panic("tensor: gemmRowsNEONRange without NEON")
}

func axpyTermsNEON(row, h, w []float32, c int, src []int32, acc bool) {
	panic("tensor: axpyTermsNEON without NEON")
}

// The GatherDot and tanh kernels' stubs panic behind the (constant) test
// of haveNEON: a stub that always panics would let static analysis of this
// build mark the code after the NEON tests' calls unreachable (the tests
// skip first).
func gatherDotNEON(dst *float32, qw *float64, h *float32, c int, idx *int32, n int, acc bool) {
	if !haveNEON {
		panic("tensor: gatherDotNEON without NEON")
	}
}

func tanhLinksNEON(out, tau, p1, p2, w *float32, child, parent *int32, n, k, m int) {
	if !haveNEON {
		panic("tensor: tanhLinksNEON without NEON")
	}
}

func tanhBackNEON(dst, dst2 *float32, dw *float64, tau, p1, p2, w, up *float32, child, parent *int32, n, k, m int) {
	if !haveNEON {
		panic("tensor: tanhBackNEON without NEON")
	}
}

func tanhLinkNEON(out, tau, x, y, w *float32, k, m int) {
	if !haveNEON {
		panic("tensor: tanhLinkNEON without NEON")
	}
}

func tanhBackLinkNEON(dst, dst2 *float32, dw *float64, x, y, tau, w, up *float32, k, m int) {
	if !haveNEON {
		panic("tensor: tanhBackLinkNEON without NEON")
	}
}
