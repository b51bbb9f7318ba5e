//go:build !purego

#include "textflag.h"

// func axpyRowsNEON(row, h *float32, c int, idx *int32, w *float32, n int, acc bool, cols int)
//
// row[0:cols] = (acc ? row[0:cols] : 0) + Σ_e w[e]·h[idx[e]·c : +cols] over
// the n terms in order (w nil: unit weights; a zero weight is skipped, as
// an entry DropoutCSR dropped), one fused multiply-add per term and
// element; cols is a multiple of 4. 16-column blocks keep four
// accumulators, then 4-column blocks. Callers check the indices.
TEXT ·axpyRowsNEON(SB), NOSPLIT, $0-64
	MOVD  row+0(FP), R0
	MOVD  h+8(FP), R1
	MOVD  c+16(FP), R2
	MOVD  idx+24(FP), R3
	MOVD  w+32(FP), R4
	MOVD  n+40(FP), R5
	MOVBU acc+48(FP), R6
	MOVD  cols+56(FP), R7
	LSL   $2, R2          // the row stride in bytes
	MOVD  $0, R8          // byte offset of the column block
	FMOVS $(1.0), F18
	VDUP  V18.S[0], V18.S4 // the unit weight

blk16:
	CMP  $16, R7
	BLT  blk4
	ADD  R0, R8, R9
	CBZ  R6, zero16
	VLD1 (R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	B    terms16

zero16:
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16

terms16:
	MOVD R3, R10 // idx
	MOVD R4, R11 // w
	MOVD R5, R12 // terms left

loop16:
	CBZ   R12, store16
	MOVW.P 4(R10), R13     // idx[e], sign-extended
	VMOV  V18.B16, V16.B16
	CBZ   R11, unit16
	FMOVS.P 4(R11), F17
	FCMPS $(0.0), F17
	BEQ   skip16
	VDUP  V17.S[0], V16.S4

unit16:
	MUL   R2, R13, R14
	ADD   R1, R14, R14
	ADD   R8, R14, R14     // &h[idx[e]·c + j]
	VLD1  (R14), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA V4.S4, V16.S4, V0.S4
	VFMLA V5.S4, V16.S4, V1.S4
	VFMLA V6.S4, V16.S4, V2.S4
	VFMLA V7.S4, V16.S4, V3.S4

skip16:
	SUB $1, R12
	B   loop16

store16:
	VST1 [V0.S4, V1.S4, V2.S4, V3.S4], (R9)
	ADD  $64, R8
	SUB  $16, R7
	B    blk16

blk4:
	CMP  $4, R7
	BLT  done
	ADD  R0, R8, R9
	CBZ  R6, zero4
	VLD1 (R9), [V0.S4]
	B    terms4

zero4:
	VEOR V0.B16, V0.B16, V0.B16

terms4:
	MOVD R3, R10
	MOVD R4, R11
	MOVD R5, R12

loop4:
	CBZ   R12, store4
	MOVW.P 4(R10), R13
	VMOV  V18.B16, V16.B16
	CBZ   R11, unit4
	FMOVS.P 4(R11), F17
	FCMPS $(0.0), F17
	BEQ   skip4
	VDUP  V17.S[0], V16.S4

unit4:
	MUL   R2, R13, R14
	ADD   R1, R14, R14
	ADD   R8, R14, R14
	VLD1  (R14), [V4.S4]
	VFMLA V4.S4, V16.S4, V0.S4

skip4:
	SUB $1, R12
	B   loop4

store4:
	VST1 [V0.S4], (R9)
	ADD  $16, R8
	SUB  $4, R7
	B    blk4

done:
	RET
