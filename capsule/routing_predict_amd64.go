//go:build !purego

package capsule

import "math/bits"

// wrapRowNone handles the blocks of one child row that cannot wrap and
// returns a bit for each block left to the Go code (see the assembly):
// wrapRowNoneZ on AVX-512, wrapRowNoneY on AVX2, with the same results.
// maskT and maskS have the first tt and s of 16 bits set.
func wrapRowNone(xT, xS *float32, tt4, s4 int, bias *float32, d4 int, out *float32, rk *int32, wrap *float64, lim *float32, maskT, maskS uint16, nq int) (missed uint64) {
	if haveAVX512 && !wrapAVX2Only {
		return wrapRowNoneZ(xT, xS, tt4, s4, bias, d4, out, rk, wrap, lim, maskT, maskS, nq)
	}
	return wrapRowNoneY(xT, xS, tt4, s4, bias, d4, out, rk, wrap, lim, laneMask(maskT), laneMask(maskS), nq)
}

// wrapRowCopy is the wrap's backward pass of one child row for the blocks
// that did not wrap, and returns a bit for each block left to the Go code:
// wrapRowCopyZ on AVX-512, wrapRowCopyY on AVX2, with the same results.
func wrapRowCopy(grad, gT, gS *float32, tt4, s4, d4 int, rk *int32, wrap *float64, maskT, maskS uint16, nq int) (missed uint64) {
	if haveAVX512 && !wrapAVX2Only {
		return wrapRowCopyZ(grad, gT, gS, tt4, s4, d4, rk, wrap, maskT, maskS, nq)
	}
	return wrapRowCopyY(grad, gT, gS, tt4, s4, d4, rk, wrap, laneMask(maskT), laneMask(maskS), nq)
}

// laneMasks[16−c : 32−c] has its first c of 16 lanes set (−1), the rest
// clear: the AVX2 kernels' form of a mask whose first c bits are set.
var laneMasks = [32]int32{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}

// laneMask is the 16 AVX2 lanes of mask, whose set bits come first.
func laneMask(mask uint16) *int32 {
	return &laneMasks[16-bits.OnesCount16(mask)]
}

//go:noescape
func wrapRowNoneZ(xT, xS *float32, tt4, s4 int, bias *float32, d4 int, out *float32, rk *int32, wrap *float64, lim *float32, maskT, maskS uint16, nq int) (missed uint64)

//go:noescape
func wrapRowCopyZ(grad, gT, gS *float32, tt4, s4, d4 int, rk *int32, wrap *float64, maskT, maskS uint16, nq int) (missed uint64)

//go:noescape
func wrapRowNoneY(xT, xS *float32, tt4, s4 int, bias *float32, d4 int, out *float32, rk *int32, wrap *float64, lim *float32, maskT, maskS *int32, nq int) (missed uint64)

//go:noescape
func wrapRowCopyY(grad, gT, gS *float32, tt4, s4, d4 int, rk *int32, wrap *float64, maskT, maskS *int32, nq int) (missed uint64)
