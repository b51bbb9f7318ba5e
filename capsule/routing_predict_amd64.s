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

// func wrapRowNoneZ(xT, xS *float32, tt4, s4 int, bias *float32, d4 int, out *float32, rk *int32, wrap *float64, lim *float32, maskT, maskS uint16, nq int) (missed uint64)
TEXT ·wrapRowNoneZ(SB), NOSPLIT, $0-104
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

// func wrapRowCopyZ(grad, gT, gS *float32, tt4, s4, d4 int, rk *int32, wrap *float64, maskT, maskS uint16, nq int) (missed uint64)
//
// The wrap's backward pass of one child row for the blocks that did not
// wrap (kept θ < π): the time part of the output gradient (row rk[q] of d
// floats from grad) goes to the block's row of gT, the space part to gS's,
// both advancing by a block's tt4 and s4 bytes. The other blocks (θ ≥ π or
// a NaN) are left to the Go code, a bit each in the result.
TEXT ·wrapRowCopyZ(SB), NOSPLIT, $0-88
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

// wrapRowNoneY and wrapRowCopyY are wrapRowNone and wrapRowCopy on AVX2:
// the same blocks handled, with the same results, a time or space part of
// up to 16 lanes in two vectors, masked by the first tt (or s) of the 16
// int32 lanes at maskT (maskS).

// func wrapRowNoneY(xT, xS *float32, tt4, s4 int, bias *float32, d4 int, out *float32, rk *int32, wrap *float64, lim *float32, maskT, maskS *int32, nq int) (missed uint64)
TEXT ·wrapRowNoneY(SB), NOSPLIT, $0-112
	MOVQ xT+0(FP), SI
	MOVQ xS+8(FP), R8
	MOVQ bias+32(FP), BX
	MOVQ out+48(FP), DI
	MOVQ rk+56(FP), R12
	MOVQ wrap+64(FP), R13
	MOVQ lim+72(FP), R15
	MOVQ maskT+80(FP), AX
	VMOVDQU (AX), Y12
	VMOVDQU 32(AX), Y13
	MOVQ maskS+88(FP), AX
	VMOVDQU (AX), Y14
	VMOVDQU 32(AX), Y15
	MOVQ nq+96(FP), CX
	XORQ AX, AX // the blocks left to the Go code
	XORQ DX, DX // q
	TESTQ CX, CX
	JZ ynndone
ynnloop:
	VMASKMOVPS (SI), Y12, Y0 // x_T
	VMASKMOVPS 32(SI), Y13, Y4
	VMULPS Y0, Y0, Y1
	VFMADD231PS Y4, Y4, Y1
	VEXTRACTF128 $1, Y1, X2
	VADDPS X2, X1, X1
	VMOVHLPS X1, X1, X2
	VADDPS X2, X1, X1
	VMOVSHDUP X1, X2
	VADDSS X2, X1, X1 // Σ x²
	VMOVSS (R15), X3
	VUCOMISS X1, X3
	JA ynnok // lim > Σ x², neither a NaN
	BTSQ DX, AX
	JMP ynnnext
ynnok:
	MOVLQSX (R12), R14 // rk
	MOVQ R14, R9
	IMULQ d4+40(FP), R9
	ADDQ DI, R9 // the output row
	VMASKMOVPS (BX), Y12, Y2
	VADDPS Y2, Y0, Y0
	VMASKMOVPS Y0, Y12, (R9)
	VMASKMOVPS 32(BX), Y13, Y2
	VADDPS Y2, Y4, Y4
	VMASKMOVPS Y4, Y13, 32(R9)
	MOVQ s4+24(FP), R10
	TESTQ R10, R10
	JZ ynnkeep
	MOVQ tt4+16(FP), R10
	LEAQ (R9)(R10*1), R11 // the output row's space part
	LEAQ (BX)(R10*1), R10 // its bias
	VMASKMOVPS (R8), Y14, Y0
	VMASKMOVPS (R10), Y14, Y2
	VADDPS Y2, Y0, Y0
	VMASKMOVPS Y0, Y14, (R11)
	VMASKMOVPS 32(R8), Y15, Y0
	VMASKMOVPS 32(R10), Y15, Y2
	VADDPS Y2, Y0, Y0
	VMASKMOVPS Y0, Y15, 32(R11)
ynnkeep:
	TESTQ R13, R13
	JZ ynnnext
	LEAQ (R14)(R14*2), R14 // 3·rk
	MOVQ $0, (R13)(R14*8)
	MOVQ $0, 8(R13)(R14*8)
	MOVQ $0x3ff0000000000000, R11 // 1.0
	MOVQ R11, 16(R13)(R14*8)
ynnnext:
	ADDQ tt4+16(FP), SI
	ADDQ s4+24(FP), R8
	ADDQ d4+40(FP), BX
	ADDQ $4, R15
	ADDQ $4, R12
	INCQ DX
	CMPQ DX, CX
	JLT ynnloop
ynndone:
	MOVQ AX, missed+104(FP)
	VZEROUPPER
	RET

// func wrapRowCopyY(grad, gT, gS *float32, tt4, s4, d4 int, rk *int32, wrap *float64, maskT, maskS *int32, nq int) (missed uint64)
TEXT ·wrapRowCopyY(SB), NOSPLIT, $0-96
	MOVQ grad+0(FP), DI
	MOVQ gT+8(FP), SI
	MOVQ gS+16(FP), R8
	MOVQ rk+48(FP), R12
	MOVQ wrap+56(FP), R13
	MOVQ maskT+64(FP), AX
	VMOVDQU (AX), Y12
	VMOVDQU 32(AX), Y13
	MOVQ maskS+72(FP), AX
	VMOVDQU (AX), Y14
	VMOVDQU 32(AX), Y15
	MOVQ nq+80(FP), CX
	MOVQ $0x400921fb54442d18, R11 // π
	MOVQ R11, X3
	XORQ AX, AX
	XORQ DX, DX
	TESTQ CX, CX
	JZ ywcdone
ywcloop:
	MOVLQSX (R12), R14 // rk
	LEAQ (R14)(R14*2), R9
	VMOVSD (R13)(R9*8), X1 // θ
	VUCOMISD X1, X3
	JA ywcok // π > θ, not a NaN
	BTSQ DX, AX
	JMP ywcnext
ywcok:
	MOVQ R14, R9
	IMULQ d4+40(FP), R9
	ADDQ DI, R9 // the output gradient's row
	VMASKMOVPS (R9), Y12, Y0
	VMASKMOVPS Y0, Y12, (SI)
	VMASKMOVPS 32(R9), Y13, Y0
	VMASKMOVPS Y0, Y13, 32(SI)
	MOVQ s4+32(FP), R10
	TESTQ R10, R10
	JZ ywcnext
	MOVQ tt4+24(FP), R10
	VMASKMOVPS (R9)(R10*1), Y14, Y0
	VMASKMOVPS Y0, Y14, (R8)
	VMASKMOVPS 32(R9)(R10*1), Y15, Y0
	VMASKMOVPS Y0, Y15, 32(R8)
ywcnext:
	ADDQ tt4+24(FP), SI
	ADDQ s4+32(FP), R8
	ADDQ $4, R12
	INCQ DX
	CMPQ DX, CX
	JLT ywcloop
ywcdone:
	MOVQ AX, missed+88(FP)
	VZEROUPPER
	RET
