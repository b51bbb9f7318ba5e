package capsule

import "github.com/prcaps/prcaps/autodiff"

// cosBackArgs are the operands of cosBackAVX512 and cosBackAVX2, linkCos's backward loop
// over segments: a child's links in child order (backwardChildren) or a
// parent's (backwardParents). Segment s has the positions
// ptr[s] … ptr[s+1]−1; position q is link link[q] (or link q itself when
// link is nil) with partner other[q]. For each segment, with n_s = own[s]:
//
//	den_q = n_s·partner[other[q]], w[q] = float32(G_e/den_q),
//	self = Σ_q G_e·(dot_e/den_q) in position order from 0.0,
//	c = −self/(n_s·n_s), grad row s += float32(c·val row s),
//
// each lane with the float64 operations of the Go loops in their order, so
// the same bits (TestLinkCosBackwardAVX512). The field offsets are fixed
// by the assembly (TestCosBackArgsLayout).
type cosBackArgs struct {
	ptr, link, other *int32
	g, dot           *float32
	own, partner     *float64
	w, val, grad     *float32
	d                int    // row length of val and grad
	lo, hi           int    // segments
	tail             uint64 // mask of the last d mod 8 lanes of a row (0: none)
}

// cosBackVec reports whether linkCos's backward loops run on AVX2 or
// AVX-512 (float32, rows of at most 64 values).
func cosBackVec[T autodiff.Float](d int) bool {
	return isFloat32[T]() && haveAVX2 && !cosVecOff && d <= 64
}

// cosBack runs linkCos's backward loop on the segments of a:
// cosBackAVX512 on AVX-512, cosBackAVX2 on AVX2, with the same results.
func cosBack(a *cosBackArgs) {
	if haveAVX512 && !cosAVX2Only {
		cosBackAVX512(a)
		return
	}
	cosBackAVX2(a)
}

// cosVecOff makes linkCos's backward loops take the Go code, and
// cosAVX2Only the AVX2 kernel on AVX-512 (tests).
var cosVecOff, cosAVX2Only = false, false
