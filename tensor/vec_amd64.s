//go:build !purego

#include "textflag.h"

// Elementwise float32 kernels on AVX2 over n elements, n a multiple of 8
// (the Go wrappers in vec.go run the last n mod 8). Each loop handles 16
// elements per iteration when it can, then 8.

// func vecAdd32(dst, a, b *float32, n int)
// dst = a + b
TEXT ·vecAdd32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
add16:
	CMPQ CX, $16
	JLT add8
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VADDPS (DX)(AX*4), Y0, Y0
	VADDPS 32(DX)(AX*4), Y1, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ $16, AX
	SUBQ $16, CX
	JMP add16
add8:
	TESTQ CX, CX
	JZ adddone
	VMOVUPS (SI)(AX*4), Y0
	VADDPS (DX)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
adddone:
	VZEROUPPER
	RET

// func vecMul32(dst, a, b *float32, n int)
// dst = a ⊙ b
TEXT ·vecMul32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
mul16:
	CMPQ CX, $16
	JLT mul8
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VMULPS (DX)(AX*4), Y0, Y0
	VMULPS 32(DX)(AX*4), Y1, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ $16, AX
	SUBQ $16, CX
	JMP mul16
mul8:
	TESTQ CX, CX
	JZ muldone
	VMOVUPS (SI)(AX*4), Y0
	VMULPS (DX)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
muldone:
	VZEROUPPER
	RET

// func vecMulAdd32(dst, a, b *float32, n int)
// dst += a ⊙ b
TEXT ·vecMulAdd32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
fma16:
	CMPQ CX, $16
	JLT fma8
	VMOVUPS (DI)(AX*4), Y0
	VMOVUPS 32(DI)(AX*4), Y1
	VMOVUPS (SI)(AX*4), Y2
	VMOVUPS 32(SI)(AX*4), Y3
	VFMADD231PS (DX)(AX*4), Y2, Y0
	VFMADD231PS 32(DX)(AX*4), Y3, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ $16, AX
	SUBQ $16, CX
	JMP fma16
fma8:
	TESTQ CX, CX
	JZ fmadone
	VMOVUPS (DI)(AX*4), Y0
	VMOVUPS (SI)(AX*4), Y2
	VFMADD231PS (DX)(AX*4), Y2, Y0
	VMOVUPS Y0, (DI)(AX*4)
fmadone:
	VZEROUPPER
	RET

// func vecReLU32(dst, x *float32, n int)
// dst = max(x, 0); MAXPS returns its second source when either is NaN, and
// that source is x, so NaN propagates.
TEXT ·vecReLU32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	VXORPS Y7, Y7, Y7
relu16:
	CMPQ CX, $16
	JLT relu8
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VMAXPS Y0, Y7, Y0
	VMAXPS Y1, Y7, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ $16, AX
	SUBQ $16, CX
	JMP relu16
relu8:
	TESTQ CX, CX
	JZ reludone
	VMOVUPS (SI)(AX*4), Y0
	VMAXPS Y0, Y7, Y0
	VMOVUPS Y0, (DI)(AX*4)
reludone:
	VZEROUPPER
	RET

// func vecReLUGradScaled32(dst, grad, y *float32, s float32, n int)
// dst += grad·s where y > 0, and +0 elsewhere (ordered: a NaN y passes
// nothing); the product is rounded to float32 before the addition.
TEXT ·vecReLUGradScaled32(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ y+16(FP), DX
	VBROADCASTSS s+24(FP), Y6
	MOVQ n+32(FP), CX
	XORQ AX, AX
	VXORPS Y7, Y7, Y7
rs8:
	TESTQ CX, CX
	JZ rsdone
	VMOVUPS (DX)(AX*4), Y0
	VCMPPS $0x1e, Y7, Y0, Y1 // y > 0 (GT_OQ)
	VMULPS (SI)(AX*4), Y6, Y2
	VANDPS Y2, Y1, Y1
	VADDPS (DI)(AX*4), Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP rs8
rsdone:
	VZEROUPPER
	RET

// func maxIndex32(src *int32, n int) uint32
// The largest of n int32 read as uint32 (a negative index is then larger
// than any row count), n a multiple of 16; 0 when n is 0.
TEXT ·maxIndex32(SB), NOSPLIT, $0-20
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	SHRQ $4, CX
	JZ mdone
mloop:
	VPMAXUD (SI), Y0, Y0
	VPMAXUD 32(SI), Y1, Y1
	ADDQ $64, SI
	DECQ CX
	JNZ mloop
mdone:
	VPMAXUD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+16(FP)
	VZEROUPPER
	RET

// func gather32(dst, src *float32, idx *int32, n int)
// dst[i] = src[idx[i]] for n indices, n a multiple of 8 (VPGATHERDD; the
// caller has checked the indices).
TEXT ·gather32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	JZ gdone
gloop:
	VMOVDQU (DX), Y0
	VPCMPEQD Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPGATHERDD Y1, (SI)(Y0*4), Y2
	VMOVDQU Y2, (DI)
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ gloop
gdone:
	VZEROUPPER
	RET

// Constants of expFloat32, bit for bit the float64 values of its Go source.
DATA exp64c<>+0(SB)/8, $0x3ff71547652b82fe   // log2(e)
DATA exp64c<>+8(SB)/8, $0x3fe0000000000000   // 0.5
DATA exp64c<>+16(SB)/8, $0x3fe62e42fefa39ef  // ln 2
DATA exp64c<>+24(SB)/8, $0x3f2a01a01a01a01a  // 1/5040
DATA exp64c<>+32(SB)/8, $0x3f56c16c16c16c17  // 1/720
DATA exp64c<>+40(SB)/8, $0x3f81111111111111  // 1/120
DATA exp64c<>+48(SB)/8, $0x3fa5555555555555  // 1/24
DATA exp64c<>+56(SB)/8, $0x3fc5555555555555  // 1/6
DATA exp64c<>+64(SB)/8, $0x3ff0000000000000  // 1
DATA exp64c<>+72(SB)/8, $0xc05a000000000000  // −104
DATA exp64c<>+80(SB)/4, $1023
GLOBL exp64c<>(SB), RODATA|NOPTR, $84

// func expFloat32Vec(dst, x *float64, n int)
// dst[i] = expFloat32(x[i]) for n values, n a multiple of 4: the same
// operations per lane (separate multiplies and adds; the scale 2^n built
// from the integer n), NaN passed through and 0 below −104.
TEXT ·expFloat32Vec(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JZ xdone
	VBROADCASTSD exp64c<>+0(SB), Y8
	VBROADCASTSD exp64c<>+8(SB), Y9
	VBROADCASTSD exp64c<>+16(SB), Y10
	VBROADCASTSD exp64c<>+64(SB), Y11
	VBROADCASTSD exp64c<>+72(SB), Y12
	VPBROADCASTD exp64c<>+80(SB), X13
	VXORPD Y14, Y14, Y14
xloop:
	VMOVUPD (SI), Y0
	VMULPD Y8, Y0, Y1
	VADDPD Y9, Y1, Y1
	VROUNDPD $1, Y1, Y1 // n = floor(x·log2 e + ½)
	VMULPD Y10, Y1, Y2
	VSUBPD Y2, Y0, Y2 // y = x − n·ln 2
	VBROADCASTSD exp64c<>+24(SB), Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD exp64c<>+32(SB), Y5
	VADDPD Y5, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD exp64c<>+40(SB), Y5
	VADDPD Y5, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD exp64c<>+48(SB), Y5
	VADDPD Y5, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD exp64c<>+56(SB), Y5
	VADDPD Y5, Y3, Y3
	VMULPD Y2, Y3, Y3
	VADDPD Y9, Y3, Y3
	VMULPD Y2, Y3, Y3
	VADDPD Y11, Y3, Y3
	VMULPD Y2, Y3, Y3
	VADDPD Y11, Y3, Y3 // p
	VCVTPD2DQY Y1, X4
	VPADDD X13, X4, X4
	VPMOVSXDQ X4, Y4
	VPSLLQ $52, Y4, Y4 // 2^n
	VMULPD Y4, Y3, Y3
	VCMPPD $1, Y12, Y0, Y5 // x < −104
	VBLENDVPD Y5, Y14, Y3, Y3
	VCMPPD $3, Y0, Y0, Y5 // x is NaN
	VBLENDVPD Y5, Y0, Y3, Y3
	VMOVUPD Y3, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ xloop
xdone:
	VZEROUPPER
	RET

// func sumRowsWiden32(acc *float64, x *float32, rows, cols int)
//
// acc[c] += float64(x[r·cols+c]) for r = 0 … rows−1 in order and c < cols, cols
// a multiple of 4: each acc[c] takes its terms in the order of the Go loop
// (VCVTPS2PD is exact, VADDPD rounds as the scalar addition).
TEXT ·sumRowsWiden32(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ rows+16(FP), CX
	MOVQ cols+24(FP), DX
	TESTQ CX, CX
	JZ swdone
swrow:
	XORQ AX, AX
swcol:
	VCVTPS2PD (SI)(AX*4), Y0
	VADDPD (DI)(AX*8), Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, DX
	JLT swcol
	LEAQ (SI)(DX*4), SI
	DECQ CX
	JNZ swrow
swdone:
	VZEROUPPER
	RET

// func addScaledRowsWiden32(acc, pw *float64, w, z *float32, cls *int32, ks *float64, m, d int)
//
// For each of the m pairs (c = cls[q], k = ks[q]) in order: acc[j] +=
// k·float64(w[c·d+j]) and pw[c·d+j] += k·float64(z[j]) for j < d. Each
// product and each sum rounds as the scalar float64 loop's (VCVTPS2PD and
// VCVTSS2SD are exact, no FMA), so the bits are the loop's.
TEXT ·addScaledRowsWiden32(SB), NOSPLIT, $0-64
	MOVQ acc+0(FP), DI
	MOVQ pw+8(FP), R8
	MOVQ w+16(FP), R9
	MOVQ z+24(FP), SI
	MOVQ cls+32(FP), R10
	MOVQ ks+40(FP), R11
	MOVQ m+48(FP), CX
	MOVQ d+56(FP), DX
	MOVQ DX, R12
	ANDQ $-4, R12
	TESTQ CX, CX
	JZ asdone
aspair:
	MOVLQSX (R10), AX
	IMULQ DX, AX
	LEAQ (R9)(AX*4), R13
	LEAQ (R8)(AX*8), R14
	VBROADCASTSD (R11), Y0
	XORQ BX, BX
	CMPQ BX, R12
	JGE astail
asvec:
	VCVTPS2PD (R13)(BX*4), Y1
	VMULPD Y0, Y1, Y1
	VADDPD (DI)(BX*8), Y1, Y1
	VMOVUPD Y1, (DI)(BX*8)
	VCVTPS2PD (SI)(BX*4), Y2
	VMULPD Y0, Y2, Y2
	VADDPD (R14)(BX*8), Y2, Y2
	VMOVUPD Y2, (R14)(BX*8)
	ADDQ $4, BX
	CMPQ BX, R12
	JLT asvec
astail:
	CMPQ BX, DX
	JGE asnext
	VCVTSS2SD (R13)(BX*4), X1, X1
	VMULSD X0, X1, X1
	VADDSD (DI)(BX*8), X1, X1
	VMOVSD X1, (DI)(BX*8)
	VCVTSS2SD (SI)(BX*4), X2, X2
	VMULSD X0, X2, X2
	VADDSD (R14)(BX*8), X2, X2
	VMOVSD X2, (R14)(BX*8)
	INCQ BX
	JMP astail
asnext:
	ADDQ $4, R10
	ADDQ $8, R11
	DECQ CX
	JNZ aspair
asdone:
	VZEROUPPER
	RET

// DM_DECIDE loads eight uniforms at (DX)(AX*4) and sets Y1 to the mask
// values: val (Y7) where u ≥ thr (Y5; unsigned: max(u, thr) = u), else +0.
#define DM_DECIDE \
	VMOVDQU (DX)(AX*4), Y0; \
	VPMAXUD Y5, Y0, Y1; \
	VPCMPEQD Y1, Y0, Y1; \
	VANDPS Y7, Y1, Y1

// func dropoutMask32(dst, src *float32, words *uint64, n int, thr uint32, scale, val float32)
// m = val where the uniform u ≥ thr, else +0 (DM_DECIDE); dst = m, or
// dst = (src·scale)·m with src non-nil. n a multiple of 8.
TEXT ·dropoutMask32(SB), NOSPLIT, $0-44
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ words+16(FP), DX
	MOVQ n+24(FP), CX
	MOVL thr+32(FP), BX
	VMOVD BX, X5
	VPBROADCASTD X5, Y5
	VBROADCASTSS scale+36(FP), Y6
	VBROADCASTSS val+40(FP), Y7
	XORQ AX, AX
	TESTQ SI, SI
	JZ dmmask
dmmul:
	TESTQ CX, CX
	JZ dmdone
	DM_DECIDE
	VMULPS (SI)(AX*4), Y6, Y2
	VMULPS Y1, Y2, Y2
	VMOVUPS Y2, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP dmmul
dmmask:
	TESTQ CX, CX
	JZ dmdone
	DM_DECIDE
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP dmmask
dmdone:
	VZEROUPPER
	RET
