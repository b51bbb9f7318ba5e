//go:build !purego

#include "textflag.h"

// The prediction wrap of one child row in the float32 form (predictGemm):
// a vector pass over its Q blocks that handles the blocks whose time part
// cannot wrap, and leaves the others (a bit each in the result) to the Go
// code. Per block q (the rows of the products advancing by tt4 and s4
// bytes a block, the packed biases by d4): the sum of the squares of the
// time part, in float32 in any order, must be below lim[q], which is the
// wrap limit (πr_k(1−10⁻⁹))² less a margin of 10⁻⁴ that covers the float32
// sum's rounding, so that the float64 sum of the Go code is below the
// limit too and θ < π. Such a block's output is x + b lane by lane (what
// the Go code computes for it: a float32 sum), at row rk[q] of d floats
// from out, and its kept (θ, ‖x‖, h) at 3·rk[q] from wrap (when wrap is
// not nil) are (0, 0, 1). maskT and maskS have the first tt and s lanes
// set (tt, s ≤ 16).

// func wrapRowNone(xT, xS *float32, tt4, s4 int, bias *float32, d4 int, out *float32, rk *int32, wrap *float64, lim *float32, maskT, maskS uint16, nq int) (missed uint64)
TEXT ·wrapRowNone(SB), NOSPLIT, $0-104
	MOVQ xT+0(FP), SI
	MOVQ xS+8(FP), R8
	MOVQ bias+32(FP), BX
	MOVQ out+48(FP), DI
	MOVQ rk+56(FP), R12
	MOVQ wrap+64(FP), R13
	MOVQ lim+72(FP), R15
	MOVWLZX maskT+80(FP), AX
	KMOVW AX, K1
	MOVWLZX maskS+82(FP), AX
	KMOVW AX, K2
	MOVQ nq+88(FP), CX
	XORQ AX, AX // the blocks left to the Go code
	XORQ DX, DX // q
	TESTQ CX, CX
	JZ wndone
wnloop:
	VMOVUPS.Z (SI), K1, Z0 // x_T
	VMULPS Z0, Z0, Z1
	VEXTRACTF64X4 $1, Z1, Y2
	VADDPS Y2, Y1, Y1
	VEXTRACTF128 $1, Y1, X2
	VADDPS X2, X1, X1
	VMOVHLPS X1, X1, X2
	VADDPS X2, X1, X1
	VMOVSHDUP X1, X2
	VADDSS X2, X1, X1 // Σ x²
	VMOVSS (R15), X3
	VUCOMISS X1, X3
	JA wnok // lim > Σ x², neither a NaN
	BTSQ DX, AX
	JMP wnnext
wnok:
	MOVLQSX (R12), R14 // rk
	MOVQ R14, R9
	IMULQ d4+40(FP), R9
	ADDQ DI, R9 // the output row
	VMOVUPS.Z (BX), K1, Z2
	VADDPS Z2, Z0, Z0
	VMOVUPS Z0, K1, (R9)
	KORTESTW K2, K2
	JZ wnkeep
	MOVQ tt4+16(FP), R10
	VMOVUPS.Z (R8), K2, Z0
	VMOVUPS.Z (BX)(R10*1), K2, Z2
	VADDPS Z2, Z0, Z0
	VMOVUPS Z0, K2, (R9)(R10*1)
wnkeep:
	TESTQ R13, R13
	JZ wnnext
	LEAQ (R14)(R14*2), R14 // 3·rk
	MOVQ $0, (R13)(R14*8)
	MOVQ $0, 8(R13)(R14*8)
	MOVQ $0x3ff0000000000000, R11 // 1.0
	MOVQ R11, 16(R13)(R14*8)
wnnext:
	ADDQ tt4+16(FP), SI
	ADDQ s4+24(FP), R8
	ADDQ d4+40(FP), BX
	ADDQ $4, R15
	ADDQ $4, R12
	INCQ DX
	CMPQ DX, CX
	JLT wnloop
wndone:
	MOVQ AX, missed+96(FP)
	VZEROUPPER
	RET

// func wrapRowCopy(grad, gT, gS *float32, tt4, s4, d4 int, rk *int32, wrap *float64, maskT, maskS uint16, nq int) (missed uint64)
//
// The wrap's backward pass of one child row for the blocks that did not
// wrap (kept θ < π): the time part of the output gradient (row rk[q] of d
// floats from grad) goes to the block's row of gT, the space part to gS's,
// both advancing by a block's tt4 and s4 bytes. The other blocks (θ ≥ π or
// a NaN) are left to the Go code, a bit each in the result.
TEXT ·wrapRowCopy(SB), NOSPLIT, $0-88
	MOVQ grad+0(FP), DI
	MOVQ gT+8(FP), SI
	MOVQ gS+16(FP), R8
	MOVQ rk+48(FP), R12
	MOVQ wrap+56(FP), R13
	MOVWLZX maskT+64(FP), AX
	KMOVW AX, K1
	MOVWLZX maskS+66(FP), AX
	KMOVW AX, K2
	MOVQ nq+72(FP), CX
	MOVQ $0x400921fb54442d18, R11 // π
	MOVQ R11, X3
	XORQ AX, AX
	XORQ DX, DX
	TESTQ CX, CX
	JZ wcdone
wcloop:
	MOVLQSX (R12), R14 // rk
	LEAQ (R14)(R14*2), R9
	VMOVSD (R13)(R9*8), X1 // θ
	VUCOMISD X1, X3
	JA wcok // π > θ, not a NaN
	BTSQ DX, AX
	JMP wcnext
wcok:
	MOVQ R14, R9
	IMULQ d4+40(FP), R9
	ADDQ DI, R9 // the output gradient's row
	VMOVUPS.Z (R9), K1, Z0
	VMOVUPS Z0, K1, (SI)
	KORTESTW K2, K2
	JZ wcnext
	MOVQ tt4+24(FP), R10
	VMOVUPS.Z (R9)(R10*1), K2, Z0
	VMOVUPS Z0, K2, (R8)
wcnext:
	ADDQ tt4+24(FP), SI
	ADDQ s4+32(FP), R8
	ADDQ $4, R12
	INCQ DX
	CMPQ DX, CX
	JLT wcloop
wcdone:
	MOVQ AX, missed+80(FP)
	VZEROUPPER
	RET
