//go:build !purego

#include "textflag.h"

// The alignment's tanh passes on NEON: Tanh32's rational approximation
// x·P(x²)/Q(x²) in float32 after clamping x to [−9, 9], four lanes at a
// time, with every step of Horner's scheme one fused multiply-add (FMLA),
// and the last m mod 4 elements of a block in scalar code that performs the
// same operations (FMADDS): an element's τ does not depend on where in a
// block it falls. The Go kernels (tanh_go.go) compiled for arm64 fuse the
// same multiply-adds, so the two sets agree there except where the compiler
// chooses otherwise; the tests hold both to math.Tanh and to each other
// within 2 units in the last place.
//
// Go's assembler has no vector FADD, FMUL, FDIV, FMAX, FMIN or FCVTL for
// floating point; they are WORD-encoded below, each with the instruction
// it is (encodings from llvm-mc -triple=aarch64 -mattr=+neon), and the
// tests run them under qemu-user in CI.
//
// Registers: V16-V29 hold tanhConstNEON, broadcast (LOAD_TANH_NEON): −9,
// 9, P0-P6, Q0-Q2, 1, −1; their low lanes, F16-F29, serve the scalar code.
// Nothing else writes them.

#define LOAD_TANH_NEON(r) \
	MOVD    $·tanhConstNEON(SB), r; \
	VLD1R.P 4(r), [V16.S4]; \
	VLD1R.P 4(r), [V17.S4]; \
	VLD1R.P 4(r), [V18.S4]; \
	VLD1R.P 4(r), [V19.S4]; \
	VLD1R.P 4(r), [V20.S4]; \
	VLD1R.P 4(r), [V21.S4]; \
	VLD1R.P 4(r), [V22.S4]; \
	VLD1R.P 4(r), [V23.S4]; \
	VLD1R.P 4(r), [V24.S4]; \
	VLD1R.P 4(r), [V25.S4]; \
	VLD1R.P 4(r), [V26.S4]; \
	VLD1R.P 4(r), [V27.S4]; \
	VLD1R.P 4(r), [V28.S4]; \
	VLD1R.P 4(r), [V29.S4]

// TANH4 replaces the four lanes x of V0 by τ = tanh(x): clamp (FMAX, FMIN:
// a NaN stays NaN), x² in V1, P(x²) by Horner into V3 and Q(x²) into V4
// (the two chains interleaved), then x·P/Q. Scratch: V1-V5.
#define TANH4 \
	WORD  $0x4e30f400; /* FMAX V0.4S, V0.4S, V16.4S */ \
	WORD  $0x4eb1f400; /* FMIN V0.4S, V0.4S, V17.4S */ \
	WORD  $0x6e20dc01; /* FMUL V1.4S, V0.4S, V0.4S */ \
	VMOV  V19.B16, V2.B16; \
	VMOV  V26.B16, V4.B16; \
	VFMLA V18.S4, V1.S4, V2.S4; \
	VFMLA V25.S4, V1.S4, V4.S4; \
	VMOV  V20.B16, V3.B16; \
	VMOV  V27.B16, V5.B16; \
	VFMLA V2.S4, V1.S4, V3.S4; \
	VFMLA V4.S4, V1.S4, V5.S4; \
	VMOV  V21.B16, V2.B16; \
	VMOV  V28.B16, V4.B16; \
	VFMLA V3.S4, V1.S4, V2.S4; \
	VFMLA V5.S4, V1.S4, V4.S4; \
	VMOV  V22.B16, V3.B16; \
	VFMLA V2.S4, V1.S4, V3.S4; \
	VMOV  V23.B16, V2.B16; \
	VFMLA V3.S4, V1.S4, V2.S4; \
	VMOV  V24.B16, V3.B16; \
	VFMLA V2.S4, V1.S4, V3.S4; \
	WORD  $0x6e23dc00; /* FMUL V0.4S, V0.4S, V3.4S */ \
	WORD  $0x6e24fc00 /* FDIV V0.4S, V0.4S, V4.4S */

// TANH1 is TANH4 on the scalar F0, operation for operation. Scratch:
// F1-F5.
#define TANH1 \
	FMAXS  F16, F0, F0; \
	FMINS  F17, F0, F0; \
	FMULS  F0, F0, F1; \
	FMADDS F1, F19, F18, F2; \
	FMADDS F1, F26, F25, F4; \
	FMADDS F1, F20, F2, F3; \
	FMADDS F1, F27, F4, F5; \
	FMADDS F1, F21, F3, F2; \
	FMADDS F1, F28, F5, F4; \
	FMADDS F1, F22, F2, F3; \
	FMADDS F1, F23, F3, F2; \
	FMADDS F1, F24, F2, F3; \
	FMULS  F3, F0, F0; \
	FDIVS  F4, F0, F0

// func tanhLinksNEON(out, tau, p1, p2, w *float32, child, parent *int32, n, k, m int)
//
// For each link, each block: the lane sums s0-s3 of w·τ over the block's
// whole groups of four (FMLA), the tail's terms added to s0 (FMADDS), then
// out = (s0+s1)+(s2+s3), the Go kernel's order.
TEXT ·tanhLinksNEON(SB), NOSPLIT, $0-80
	LOAD_TANH_NEON(R0)
	MOVD out+0(FP), R0
	MOVD tau+8(FP), R1
	MOVD p1+16(FP), R2
	MOVD p2+24(FP), R3
	MOVD w+32(FP), R4
	MOVD child+40(FP), R5
	MOVD parent+48(FP), R6
	MOVD n+56(FP), R7
	MOVD k+64(FP), R8
	MOVD m+72(FP), R9
	LSR  $2, R9, R10
	LSL  $2, R10      // m4: the block's elements in whole groups of four
	SUB  R10, R9, R11 // the tail, m mod 4
	MUL  R8, R9, R12
	LSL  $2, R12      // bytes per row

link:
	CBZ    R7, done
	MOVW.P 4(R5), R13
	MUL    R12, R13
	ADD    R2, R13   // x: row child[t] of p1
	MOVD   $0, R14
	CBZ    R3, rows
	MOVW.P 4(R6), R14
	MUL    R12, R14
	ADD    R3, R14   // y: row parent[t] of p2

rows:
	MOVD R4, R15 // w
	MOVD R8, R16 // blocks left

block:
	VEOR V8.B16, V8.B16, V8.B16
	MOVD R10, R17

vec:
	CBZ    R17, tail
	VLD1.P 16(R13), [V0.S4]
	CBZ    R14, vnoy
	VLD1.P 16(R14), [V1.S4]
	WORD   $0x4e21d400 // FADD V0.4S, V0.4S, V1.4S

vnoy:
	TANH4
	VLD1.P 16(R15), [V6.S4]
	CBZ    R1, vnotau
	VST1.P [V0.S4], 16(R1)

vnotau:
	VFMLA V6.S4, V0.S4, V8.S4
	SUB   $4, R17
	B     vec

tail:
	VDUP V8.S[1], V9.S4
	VDUP V8.S[2], V10.S4
	VDUP V8.S[3], V11.S4
	MOVD R11, R17

stail:
	CBZ    R17, bsum
	FMOVS.P 4(R13), F0
	CBZ    R14, snoy
	FMOVS.P 4(R14), F1
	FADDS  F1, F0, F0

snoy:
	TANH1
	FMOVS.P 4(R15), F6
	CBZ     R1, snotau
	FMOVS.P F0, 4(R1)

snotau:
	FMADDS F6, F8, F0, F8 // s0 += w·τ
	SUB    $1, R17
	B      stail

bsum:
	FADDS   F9, F8, F8
	FADDS   F11, F10, F10
	FADDS   F10, F8, F8
	FMOVS.P F8, 4(R0)
	SUB     $1, R16
	CBNZ    R16, block
	SUB     $1, R7
	B       link

done:
	RET

// func tanhBackNEON(dst, dst2 *float32, dw *float64, tau, p1, p2, w, up *float32, child, parent *int32, n, k, m int)
//
// Per element: δ = ((τ²−1)·w)·(−up), τ²−1 one fused multiply-add (as the
// Go kernel's th*th − 1 compiles on arm64), added to dst and dst2; dw +=
// float64(up)·float64(τ), an exact product, so its bits are the Go
// kernel's. The row pointers advance with the elements; dw restarts at its
// row's start for every link.
TEXT ·tanhBackNEON(SB), NOSPLIT, $0-104
	LOAD_TANH_NEON(R0)
	MOVD dst+0(FP), R0
	MOVD dst2+8(FP), R1
	MOVD dw+16(FP), R2
	MOVD tau+24(FP), R3
	MOVD p1+32(FP), R4
	MOVD p2+40(FP), R5
	MOVD w+48(FP), R6
	MOVD up+56(FP), R7
	MOVD child+64(FP), R8
	MOVD parent+72(FP), R9
	MOVD n+80(FP), R10
	MOVD k+88(FP), R11
	MOVD m+96(FP), R12
	LSR  $2, R12, R13
	LSL  $2, R13      // m4
	SUB  R13, R12, R14 // m mod 4
	MUL  R11, R12, R15
	LSL  $2, R15      // bytes per row

blink:
	CBZ    R10, bdone
	MOVW.P 4(R8), R16 // child[t]
	MOVW.P 4(R9), R17 // parent[t]
	MUL    R15, R16
	MUL    R15, R17
	MOVD   $0, R19    // x, unless τ is stored
	MOVD   $0, R20    // y
	CBNZ   R3, bdst
	ADD    R4, R16, R19
	CBZ    R5, bdst
	ADD    R5, R17, R20

bdst:
	MOVD $0, R21 // dst's row parent[t]
	CBZ  R0, bdst2
	ADD  R0, R17, R21

bdst2:
	MOVD $0, R22 // dst2's row child[t]
	CBZ  R1, brow
	ADD  R1, R16, R22

brow:
	MOVD R2, R23  // dw
	MOVD R6, R24  // w
	MOVD R11, R25 // blocks left

bblock:
	FMOVS.P 4(R7), F12
	FNEGS   F12, F13
	VDUP    V13.S[0], V13.S4 // −up
	FCVTSD  F12, F14
	VDUP    V14.D[0], V14.D2 // up in float64
	MOVD    R13, R16

bvec:
	CBZ    R16, btail
	CBZ    R3, bvrec
	VLD1.P 16(R3), [V0.S4]
	B      bvgot

bvrec:
	VLD1.P 16(R19), [V0.S4]
	CBZ    R20, bvnoy
	VLD1.P 16(R20), [V1.S4]
	WORD   $0x4e21d400 // FADD V0.4S, V0.4S, V1.4S

bvnoy:
	TANH4

bvgot:
	VLD1.P 16(R24), [V5.S4]
	VMOV   V29.B16, V6.B16
	VFMLA  V0.S4, V0.S4, V6.S4 // τ²−1
	WORD   $0x6e25dcc6         // FMUL V6.4S, V6.4S, V5.4S
	WORD   $0x6e2ddcc6         // FMUL V6.4S, V6.4S, V13.4S
	CBZ    R21, bvnod
	VLD1   (R21), [V7.S4]
	WORD   $0x4e26d4e7         // FADD V7.4S, V7.4S, V6.4S
	VST1.P [V7.S4], 16(R21)

bvnod:
	CBZ    R22, bvnod2
	VLD1   (R22), [V7.S4]
	WORD   $0x4e26d4e7 // FADD V7.4S, V7.4S, V6.4S
	VST1.P [V7.S4], 16(R22)

bvnod2:
	CBZ    R23, bvnodw
	WORD   $0x0e617801 // FCVTL V1.2D, V0.2S
	WORD   $0x4e617802 // FCVTL2 V2.2D, V0.4S
	VLD1   (R23), [V3.D2, V4.D2]
	VFMLA  V14.D2, V1.D2, V3.D2
	VFMLA  V14.D2, V2.D2, V4.D2
	VST1.P [V3.D2, V4.D2], 32(R23)

bvnodw:
	SUB $4, R16
	B   bvec

btail:
	MOVD R14, R16

bstail:
	CBZ     R16, bnext
	CBZ     R3, bsrec
	FMOVS.P 4(R3), F0
	B       bsgot

bsrec:
	FMOVS.P 4(R19), F0
	CBZ     R20, bsnoy
	FMOVS.P 4(R20), F1
	FADDS   F1, F0, F0

bsnoy:
	TANH1

bsgot:
	FMOVS.P 4(R24), F5
	FMADDS  F0, F29, F0, F6 // τ²−1
	FMULS   F5, F6, F6
	FMULS   F13, F6, F6
	CBZ     R21, bsnod
	FMOVS   (R21), F7
	FADDS   F6, F7, F7
	FMOVS.P F7, 4(R21)

bsnod:
	CBZ     R22, bsnod2
	FMOVS   (R22), F7
	FADDS   F6, F7, F7
	FMOVS.P F7, 4(R22)

bsnod2:
	CBZ     R23, bsnodw
	FCVTSD  F0, F1
	FMOVD   (R23), F3
	FMADDD  F1, F3, F14, F3
	FMOVD.P F3, 8(R23)

bsnodw:
	SUB $1, R16
	B   bstail

bnext:
	SUB  $1, R25
	CBNZ R25, bblock
	SUB  $1, R10
	B    blink

bdone:
	RET
