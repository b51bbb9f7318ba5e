//go:build !purego

package tensor

// tanhConstNEON is what tanh_neon_arm64.s broadcasts into V16-V29 once per
// call: the clamp bounds −9 and 9, Tanh32's numerator coefficients (highest
// power first), its denominator's, 1 and −1. Taken from tanh_go.go's
// constants, so the assembly and tanhF32 use the same float32 values.
//
//lint:ignore U1000 read by tanh_neon_arm64.s
var tanhConstNEON = [14]float32{-9, 9, tanhP0, tanhP1, tanhP2, tanhP3, tanhP4, tanhP5, tanhP6, tanhQ0, tanhQ1, tanhQ2, 1, -1}

// tanhLinksNEON is the forward kernel of the alignment's tanh on NEON, for
// n links at once (tanh_neon_arm64.s): link t reads x = row child[t] of p1
// and y = row parent[t] of p2 (p2 nil: y = 0, parent unread), rows of k·m
// elements; for each of its k blocks of m ≥ 1 elements it stores τ =
// tanh(x+y) at tau (unless nil; tau advances over all links' rows) and
// out = Σ w·τ. Callers check the lengths and indices.
//
//go:noescape
func tanhLinksNEON(out, tau, p1, p2, w *float32, child, parent *int32, n, k, m int)

// tanhBackNEON is the backward kernel on NEON for n links at once: link t
// takes τ from tau (advancing over the links' rows) or, when tau is nil,
// recomputes it from row child[t] of p1 and row parent[t] of p2 (p2 nil:
// y = 0) with tanhLinksNEON's arithmetic; for each of its k blocks of m ≥ 1
// elements, with upstream gradient up[t·k+b], it adds δ = (τ²−1)·w·(−up) to
// row parent[t] of dst and row child[t] of dst2 (each unless nil) and up·τ
// to dw in float64 (unless nil; one row shared by all links). child and
// parent are read for every link. Callers check the lengths and indices.
//
//go:noescape
func tanhBackNEON(dst, dst2 *float32, dw *float64, tau, p1, p2, w, up *float32, child, parent *int32, n, k, m int)

// tanhLinkNEON runs tanhLinksNEON on one link whose rows are x and y (y
// may be nil), in k blocks of m elements.
func tanhLinkNEON(out, tau, x, y, w *float32, k, m int) {
	var at0 [1]int32
	tanhLinksNEON(out, tau, x, y, w, &at0[0], &at0[0], 1, k, m)
}

// tanhBackLinkNEON runs tanhBackNEON on one link: τ from tau, or from x
// and y when tau is nil.
func tanhBackLinkNEON(dst, dst2 *float32, dw *float64, x, y, tau, w, up *float32, k, m int) {
	var at0 [1]int32
	tanhBackNEON(dst, dst2, dw, tau, x, y, w, up, &at0[0], &at0[0], 1, k, m)
}
