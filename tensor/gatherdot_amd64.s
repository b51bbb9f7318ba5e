//go:build !purego

#include "textflag.h"

// func gatherDotAVX(dst, q, h *float32, stride int, idx *int32, n, blocks int, acc bool, mask *int32)
//
// For each of the n rows idx[e] of h: one float32 accumulator over the
// full 8-column blocks and the masked tail (VMASKMOVPS never touches the
// masked lanes, so a row may end anywhere), summed across lanes and stored
// (or added) to dst[e].
TEXT ·gatherDotAVX(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ stride+24(FP), R8
	SHLQ $2, R8
	MOVQ idx+32(FP), R9
	MOVQ n+40(FP), CX
	MOVQ blocks+48(FP), R10
	MOVQ mask+64(FP), BX
	TESTQ BX, BX
	JZ gstart
	VMOVDQU (BX), Y15
	MOVQ R10, R11
	SHLQ $5, R11
	VMASKMOVPS (SI)(R11*1), Y15, Y14 // the tail of q
gstart:
	TESTQ CX, CX
	JZ gdone
gloop:
	MOVLQSX (R9), R11
	IMULQ R8, R11
	LEAQ (DX)(R11*1), R12
	MOVQ SI, R13
	MOVQ R10, AX
	VXORPS Y0, Y0, Y0
	TESTQ AX, AX
	JZ gtail
gblock:
	VMOVUPS (R12), Y1
	VFMADD231PS (R13), Y1, Y0
	ADDQ $32, R12
	ADDQ $32, R13
	DECQ AX
	JNZ gblock
gtail:
	TESTQ BX, BX
	JZ gsum
	VMASKMOVPS (R12), Y15, Y1
	VFMADD231PS Y14, Y1, Y0
gsum:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	CMPB acc+56(FP), $0
	JE gstore
	VADDSS (DI), X0, X0
gstore:
	VMOVSS X0, (DI)
	ADDQ $4, DI
	ADDQ $4, R9
	DECQ CX
	JNZ gloop
gdone:
	VZEROUPPER
	RET
