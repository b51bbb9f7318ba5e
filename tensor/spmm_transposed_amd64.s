//go:build !purego

#include "textflag.h"

// func transposedPairs(dst *float32, ldd int, odd *float32, ldo int, h *float32, c int, idx *int32, w *float32, n int, state *uint8, mask *int32, f0, span int)
//
// For each of the n entries: f = idx[e], s = state[f]; the target row is
// odd's row f when s = 1, else dst's row f; target[0:c] += w[e]·h[0:c] by
// VFMADD231PS, as SpMM's row kernels add a term (8 columns a vector, the
// last c mod 8 through the mask at Y15, when mask is not nil); state[f]
// becomes 2 when s = 1, else 1. The target is chosen without a branch: the
// parities of a column's entries come in no pattern a predictor could
// learn.
TEXT ·transposedPairs(SB), NOSPLIT, $0-104
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R12
	SHLQ $2, R12 // dst's row stride in bytes
	MOVQ odd+16(FP), SI
	MOVQ ldo+24(FP), R13
	SHLQ $2, R13 // odd's row stride in bytes
	MOVQ h+32(FP), BX
	MOVQ c+40(FP), R11
	SHRQ $3, R11 // whole 8-column chunks
	MOVQ idx+48(FP), R8
	MOVQ w+56(FP), R9
	MOVQ n+64(FP), CX
	MOVQ state+72(FP), R10
	MOVQ mask+80(FP), DX
	TESTQ DX, DX
	JZ tpentry
	VMOVDQU (DX), Y15
tpentry:
	MOVLQSX (R8), AX // f
	SUBQ f0+88(FP), AX
	CMPQ AX, span+96(FP)
	JAE tpnext // outside the range: f − f0 ≥ span, or below it (negative)
	LEAQ (R10)(AX*1), DX // &state[f]
	MOVBLZX (DX), R14 // s
	MOVQ AX, R15
	IMULQ R12, R15
	ADDQ DI, R15 // dst's row f
	IMULQ R13, AX
	ADDQ SI, AX // odd's row f
	CMPQ R14, $1
	CMOVQEQ AX, R15 // the target row
	SETEQ R14 // s = 1 (the upper bytes are zero: s < 256)
	INCL R14
	MOVB R14, (DX) // 2 after an odd term, 1 after an even one
	VBROADCASTSS (R9), Y0
	MOVQ R11, AX
	XORQ DX, DX // byte offset in the rows
	CMPQ AX, $8
	JNE tpgeneric
	// The first 64 columns of rows of 64-71: every load first, then the
	// FMAs and the stores.
	VMOVUPS (R15), Y1
	VMOVUPS 32(R15), Y2
	VMOVUPS 64(R15), Y3
	VMOVUPS 96(R15), Y4
	VMOVUPS 128(R15), Y5
	VMOVUPS 160(R15), Y6
	VMOVUPS 192(R15), Y7
	VMOVUPS 224(R15), Y8
	VFMADD231PS (BX), Y0, Y1
	VFMADD231PS 32(BX), Y0, Y2
	VFMADD231PS 64(BX), Y0, Y3
	VFMADD231PS 96(BX), Y0, Y4
	VFMADD231PS 128(BX), Y0, Y5
	VFMADD231PS 160(BX), Y0, Y6
	VFMADD231PS 192(BX), Y0, Y7
	VFMADD231PS 224(BX), Y0, Y8
	VMOVUPS Y1, (R15)
	VMOVUPS Y2, 32(R15)
	VMOVUPS Y3, 64(R15)
	VMOVUPS Y4, 96(R15)
	VMOVUPS Y5, 128(R15)
	VMOVUPS Y6, 160(R15)
	VMOVUPS Y7, 192(R15)
	VMOVUPS Y8, 224(R15)
	MOVQ $256, DX
	JMP tptail
tpgeneric:
	TESTQ AX, AX
	JZ tptail
tpchunk:
	VMOVUPS (R15)(DX*1), Y1
	VFMADD231PS (BX)(DX*1), Y0, Y1
	VMOVUPS Y1, (R15)(DX*1)
	ADDQ $32, DX
	DECQ AX
	JNZ tpchunk
tptail:
	CMPQ mask+80(FP), $0
	JEQ tpnext
	VMASKMOVPS (R15)(DX*1), Y15, Y1
	VMASKMOVPS (BX)(DX*1), Y15, Y2
	VFMADD231PS Y2, Y0, Y1
	VMASKMOVPS Y1, Y15, (R15)(DX*1)
tpnext:
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ CX
	JNZ tpentry
	VZEROUPPER
	RET
