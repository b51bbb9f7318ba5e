//go:build !amd64 || purego

package capsule

func wrapRowNone(xT, xS *float32, tt4, s4 int, bias *float32, d4 int, out *float32, rk *int32, wrap *float64, lim *float32, maskT, maskS uint16, nq int) (missed uint64) {
	panic("capsule: wrapRowNone without AVX-512")
}

func wrapRowCopy(grad, gT, gS *float32, tt4, s4, d4 int, rk *int32, wrap *float64, maskT, maskS uint16, nq int) (missed uint64) {
	panic("capsule: wrapRowCopy without AVX-512")
}
