//go:build !purego

package capsule

// wrapRowNone handles the blocks of one child row that cannot wrap and
// returns a bit for each block left to the Go code (see the assembly).
//
//go:noescape
func wrapRowNone(xT, xS *float32, tt4, s4 int, bias *float32, d4 int, out *float32, rk *int32, wrap *float64, lim *float32, maskT, maskS uint16, nq int) (missed uint64)

// wrapRowCopy is the wrap's backward pass of one child row for the blocks
// that did not wrap, and returns a bit for each block left to the Go code.
//
//go:noescape
func wrapRowCopy(grad, gT, gS *float32, tt4, s4, d4 int, rk *int32, wrap *float64, maskT, maskS uint16, nq int) (missed uint64)
