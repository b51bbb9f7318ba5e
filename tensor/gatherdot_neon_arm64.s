//go:build !purego

#include "textflag.h"

// func gatherDotNEON(dst *float32, qw *float64, h *float32, c int, idx *int32, n int, acc bool)
//
// For e < n: dst[e] = s (acc: dst[e] += s, in float32) with s the dot
// product of q (widened to float64 in qw, c values) and row idx[e] of h (c
// float32 columns), gatherDotGo's sums exactly: the columns j ≡ 0, 1, 2, 3
// (mod 4) of the 4-column blocks in four float64 chains (two vectors of
// two lanes), the last c mod 4 columns added to the first chain, then
// (s0+s1)+(s2+s3) rounded to float32. A product of two float32 values is
// exact in float64, so a fused multiply-add gives the Go loop's bits.
// Go's assembler has no FCVTL (float32 lanes to float64); it is
// WORD-encoded (llvm-mc -triple=aarch64 -mattr=+neon -show-encoding).
// Callers check the indices.
TEXT ·gatherDotNEON(SB), NOSPLIT, $0-49
	MOVD  dst+0(FP), R0
	MOVD  qw+8(FP), R1
	MOVD  h+16(FP), R2
	MOVD  c+24(FP), R3
	MOVD  idx+32(FP), R4
	MOVD  n+40(FP), R5
	MOVBU acc+48(FP), R6
	LSL   $2, R3, R7 // the row stride in bytes
	AND   $3, R3, R8 // c mod 4
	SUB   R8, R3, R8 // the columns of the 4-blocks

link:
	CBZ    R5, done
	MOVW.P 4(R4), R9 // idx[e], sign-extended
	MUL    R7, R9, R12
	ADD    R2, R12, R12 // &h[idx[e]·c]
	MOVD   R1, R11      // &qw[0]
	MOVD   R8, R13      // 4-block columns left
	VEOR   V0.B16, V0.B16, V0.B16 // s0, s1
	VEOR   V1.B16, V1.B16, V1.B16 // s2, s3

block:
	CBZ    R13, lanes
	VLD1.P 16(R12), [V2.S4]
	WORD   $0x0e617843 // FCVTL  V3.2D, V2.2S
	WORD   $0x4e617844 // FCVTL2 V4.2D, V2.4S
	VLD1.P 32(R11), [V5.D2, V6.D2]
	VFMLA  V5.D2, V3.D2, V0.D2
	VFMLA  V6.D2, V4.D2, V1.D2
	SUB    $4, R13
	B      block

lanes:
	// s0 is F0 (V0's low lane) and s2 F1; s1 and s3 move to F2 and F3.
	VMOV  V0.D[1], R9
	VMOV  V1.D[1], R10
	FMOVD R9, F2
	FMOVD R10, F3
	SUB   R8, R3, R13 // the last c mod 4 columns

tail:
	CBZ     R13, sum
	FMOVS.P 4(R12), F4
	FCVTSD  F4, F4
	FMOVD.P 8(R11), F5
	FMADDD  F5, F0, F4, F0 // s0 += qw[j]·row[j]
	SUB     $1, R13
	B       tail

sum:
	FADDD  F2, F0, F0 // s0 + s1
	FADDD  F3, F1, F1 // s2 + s3
	FADDD  F1, F0, F0
	FCVTDS F0, F0
	CBZ    R6, store
	FMOVS  (R0), F6
	FADDS  F6, F0, F0

store:
	FMOVS.P F0, 4(R0)
	SUB     $1, R5
	B       link

done:
	RET
