//go:build !purego

#include "textflag.h"

// func gemmRowsNEON(d, a, b *float32, ldd, lda, ldb, kk, rows, cols int, acc bool)
//
// For each of rows rows: d[r, 0:cols] = (acc ? d[r, 0:cols] : 0) +
// Σ_p a[r, p]·b[p, 0:cols], p = 0 … kk−1 in order, one fused multiply-add
// per term and element; cols is a multiple of 4, kk ≥ 1; ldd, lda and ldb
// are the row strides in elements. 16-column blocks keep four independent
// accumulators (so the FMLA latency overlaps), then 4-column blocks.
TEXT ·gemmRowsNEON(SB), NOSPLIT, $0-73
	MOVD  d+0(FP), R0
	MOVD  a+8(FP), R1
	MOVD  b+16(FP), R2
	MOVD  ldd+24(FP), R3
	MOVD  lda+32(FP), R4
	MOVD  ldb+40(FP), R5
	MOVD  kk+48(FP), R6
	MOVD  rows+56(FP), R7
	MOVD  cols+64(FP), R8
	MOVBU acc+72(FP), R9
	LSL   $2, R3
	LSL   $2, R4
	LSL   $2, R5

row:
	CBZ  R7, done
	MOVD $0, R10  // byte offset of the column block
	MOVD R8, R11  // columns left

blk16:
	CMP  $16, R11
	BLT  blk4
	ADD  R0, R10, R12 // &d[r, j]
	CBZ  R9, zero16
	VLD1 (R12), [V0.S4, V1.S4, V2.S4, V3.S4]
	B    terms16

zero16:
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16

terms16:
	MOVD R1, R13      // &a[r, 0]
	ADD  R2, R10, R14 // &b[0, j]
	MOVD R6, R15

loop16:
	VLD1R.P 4(R13), [V16.S4]
	VLD1    (R14), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD     R5, R14
	VFMLA   V4.S4, V16.S4, V0.S4
	VFMLA   V5.S4, V16.S4, V1.S4
	VFMLA   V6.S4, V16.S4, V2.S4
	VFMLA   V7.S4, V16.S4, V3.S4
	SUBS    $1, R15
	BNE     loop16
	VST1    [V0.S4, V1.S4, V2.S4, V3.S4], (R12)
	ADD     $64, R10
	SUB     $16, R11
	B       blk16

blk4:
	CMP  $4, R11
	BLT  nextrow
	ADD  R0, R10, R12
	CBZ  R9, zero4
	VLD1 (R12), [V0.S4]
	B    terms4

zero4:
	VEOR V0.B16, V0.B16, V0.B16

terms4:
	MOVD R1, R13
	ADD  R2, R10, R14
	MOVD R6, R15

loop4:
	VLD1R.P 4(R13), [V16.S4]
	VLD1    (R14), [V4.S4]
	ADD     R5, R14
	VFMLA   V4.S4, V16.S4, V0.S4
	SUBS    $1, R15
	BNE     loop4
	VST1    [V0.S4], (R12)
	ADD     $16, R10
	SUB     $4, R11
	B       blk4

nextrow:
	ADD R3, R0
	ADD R4, R1
	SUB $1, R7
	B   row

done:
	RET
