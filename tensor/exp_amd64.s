//go:build !purego

#include "textflag.h"

DATA gaussc<>+0(SB)/4, $2.0
DATA gaussc<>+4(SB)/4, $87.0 // the largest a taken: e^{−87} ≈ 1.6e-38 stays normal
DATA gaussc<>+8(SB)/4, $0x80000000 // sign bit
DATA gaussc<>+12(SB)/4, $1.44269504088896341 // log2e
DATA gaussc<>+16(SB)/4, $0.693359375 // ln2 high part (Cephes C1)
DATA gaussc<>+20(SB)/4, $-2.12194440e-4 // ln2 low part (C2)
DATA gaussc<>+24(SB)/4, $12583039.0 // 1.5·2^23 + 127
DATA gaussc<>+28(SB)/4, $1.9841269841269841e-4 // 1/7!
DATA gaussc<>+32(SB)/4, $1.3888888888888889e-3 // 1/6!
DATA gaussc<>+36(SB)/4, $8.3333333333333333e-3 // 1/5!
DATA gaussc<>+40(SB)/4, $4.1666666666666667e-2 // 1/4!
DATA gaussc<>+44(SB)/4, $0.16666666666666667 // 1/3!
DATA gaussc<>+48(SB)/4, $0.5 // 1/2!
DATA gaussc<>+52(SB)/4, $1.0 // 1/1! and 1/0!
GLOBL gaussc<>(SB), RODATA|NOPTR, $56

// func gaussRow32AVX(k, a, dot, nv *float32, n int, nu, inv float32)
//
// For j < n (n a multiple of 8): a[j] = max(nu + nv[j] − 2·g[j], 0)·inv
// and k[j] = e^{−min(a[j], 87)}: with n = round(x·log₂e) for x = −a,
// r = x − n·ln2 (two-part ln2, |r| ≤ ln2/2), e^r by its degree-7 Taylor
// polynomial (truncation below 6e-9) times 2^n built in the exponent
// bits. A NaN passes through both.
TEXT ·gaussRow32AVX(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), DI
	MOVQ a+8(FP), R8
	MOVQ dot+16(FP), SI
	MOVQ nv+24(FP), DX
	MOVQ n+32(FP), CX
	VBROADCASTSS nu+40(FP), Y15
	VBROADCASTSS inv+44(FP), Y14
	SHRQ $3, CX
	JZ gdone
	VBROADCASTSS gaussc<>+0(SB), Y13  // 2
	VXORPS Y12, Y12, Y12              // 0
	VBROADCASTSS gaussc<>+4(SB), Y11  // 87
	VBROADCASTSS gaussc<>+8(SB), Y10  // sign bit
	VBROADCASTSS gaussc<>+12(SB), Y9  // log2e
	VBROADCASTSS gaussc<>+16(SB), Y8  // C1
	VBROADCASTSS gaussc<>+20(SB), Y7  // C2
	VBROADCASTSS gaussc<>+24(SB), Y6  // 1.5·2^23 + 127
gloop:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VADDPS Y15, Y1, Y1
	VFNMADD231PS Y13, Y0, Y1 // nu + nv − 2g
	VMAXPS Y1, Y12, Y1       // max(·, 0), a NaN passes
	VMULPS Y14, Y1, Y1       // a
	VMOVUPS Y1, (R8)
	VMINPS Y1, Y11, Y2       // min(a, 87), a NaN passes
	VXORPS Y10, Y2, Y2       // x = −a
	VMULPS Y9, Y2, Y3
	VROUNDPS $0, Y3, Y3      // n
	VMOVAPS Y2, Y4
	VFNMADD231PS Y8, Y3, Y4
	VFNMADD231PS Y7, Y3, Y4  // r
	VBROADCASTSS gaussc<>+28(SB), Y5
	VBROADCASTSS gaussc<>+32(SB), Y0
	VFMADD213PS Y0, Y4, Y5
	VBROADCASTSS gaussc<>+36(SB), Y0
	VFMADD213PS Y0, Y4, Y5
	VBROADCASTSS gaussc<>+40(SB), Y0
	VFMADD213PS Y0, Y4, Y5
	VBROADCASTSS gaussc<>+44(SB), Y0
	VFMADD213PS Y0, Y4, Y5
	VBROADCASTSS gaussc<>+48(SB), Y0
	VFMADD213PS Y0, Y4, Y5
	VBROADCASTSS gaussc<>+52(SB), Y0
	VFMADD213PS Y0, Y4, Y5
	VFMADD213PS Y0, Y4, Y5   // e^r
	VADDPS Y6, Y3, Y3
	VPSLLD $23, Y3, Y3       // 2^n
	VMULPS Y3, Y5, Y5
	VMOVUPS Y5, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R8
	ADDQ $32, DI
	DECQ CX
	JNZ gloop
gdone:
	VZEROUPPER
	RET

DATA shexpc<>+0(SB)/8, $0x3ff71547652b82fe // log2e
DATA shexpc<>+8(SB)/8, $0x4338000000000000 // expShifter = 1.5·2^52
DATA shexpc<>+16(SB)/8, $0x3fe62e42fefa39ef // ln2
DATA shexpc<>+24(SB)/8, $0x3f2a01a01a01a01a // 1/5040
DATA shexpc<>+32(SB)/8, $0x3f56c16c16c16c17 // 1/720
DATA shexpc<>+40(SB)/8, $0x3f81111111111111 // 1/120
DATA shexpc<>+48(SB)/8, $0x3fa5555555555555 // 1/24
DATA shexpc<>+56(SB)/8, $0x3fc5555555555555 // 1/6
DATA shexpc<>+64(SB)/8, $0x3fe0000000000000 // 1/2
DATA shexpc<>+72(SB)/8, $0x3ff0000000000000 // 1
DATA shexpc<>+80(SB)/8, $-104.0
DATA shexpc<>+88(SB)/8, $1023
GLOBL shexpc<>(SB), RODATA|NOPTR, $96

// func expShifted32AVX(row *float32, shift, sum *float64, n int)
//
// expShifted for four values at a time (n a multiple of 4), with the same
// operations in the same order, none fused, so the same bits:
// x = float64(row) − shift, t = x·log₂e + 1.5·2^52,
// y = x − (t − 1.5·2^52)·ln2, e = Horner's degree-7 Taylor polynomial
// of e^y times 2^round(x·log₂e) from t's bits; 0 where x ≤ −104, x where
// x is NaN. row = float32(e); sum += e when sum is not nil.
TEXT ·expShifted32AVX(SB), NOSPLIT, $0-32
	MOVQ row+0(FP), DI
	MOVQ shift+8(FP), SI
	MOVQ sum+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JZ xdone
	VBROADCASTSD shexpc<>+0(SB), Y15  // log2e
	VBROADCASTSD shexpc<>+8(SB), Y14  // shifter
	VBROADCASTSD shexpc<>+16(SB), Y13 // ln2
	VBROADCASTSD shexpc<>+72(SB), Y12 // 1
	VBROADCASTSD shexpc<>+80(SB), Y11 // −104
	VPBROADCASTQ shexpc<>+88(SB), Y10 // 1023
xloop:
	VCVTPS2PD (DI), Y0
	VSUBPD (SI), Y0, Y0      // x
	VMULPD Y15, Y0, Y1
	VADDPD Y14, Y1, Y1       // t
	VSUBPD Y14, Y1, Y2
	VMULPD Y13, Y2, Y2
	VSUBPD Y2, Y0, Y2        // y = x − (t − shifter)·ln2
	VBROADCASTSD shexpc<>+24(SB), Y3
	VMULPD Y2, Y3, Y3        // y/5040
	VBROADCASTSD shexpc<>+32(SB), Y4
	VADDPD Y4, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD shexpc<>+40(SB), Y4
	VADDPD Y4, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD shexpc<>+48(SB), Y4
	VADDPD Y4, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD shexpc<>+56(SB), Y4
	VADDPD Y4, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD shexpc<>+64(SB), Y4
	VADDPD Y4, Y3, Y3
	VMULPD Y2, Y3, Y3
	VADDPD Y12, Y3, Y3
	VMULPD Y2, Y3, Y3
	VADDPD Y12, Y3, Y3       // e^y
	VPSUBQ Y14, Y1, Y5
	VPADDQ Y10, Y5, Y5
	VPSLLQ $52, Y5, Y5       // 2^n
	VMULPD Y5, Y3, Y3        // e
	VCMPPD $0x1e, Y11, Y0, Y6 // x > −104 (false for NaN)
	VANDPD Y6, Y3, Y3
	VCMPPD $3, Y0, Y0, Y7    // x is NaN
	VANDPD Y7, Y0, Y7
	VORPD Y7, Y3, Y3
	VCVTPD2PSY Y3, X8
	VMOVUPS X8, (DI)
	TESTQ DX, DX
	JZ xnext
	VADDPD (DX), Y3, Y3
	VMOVUPD Y3, (DX)
	ADDQ $32, DX
xnext:
	ADDQ $16, DI
	ADDQ $32, SI
	DECQ CX
	JNZ xloop
xdone:
	VZEROUPPER
	RET

DATA geluc<>+0(SB)/8, $0x3ff71547652b82fe  // log2e
DATA geluc<>+8(SB)/8, $0x3fe62e42fefa3000  // ln2, upper part (math.archExp's LN2U)
DATA geluc<>+16(SB)/8, $0x3d53de6af278ece6 // ln2, lower part (LN2L)
DATA geluc<>+24(SB)/8, $0.0625
DATA geluc<>+32(SB)/8, $0x3efa01a01a01a01a // 1/8!
DATA geluc<>+40(SB)/8, $0x3f2a01a01a01a01a // 1/7!
DATA geluc<>+48(SB)/8, $0x3f56c16c16c16c17 // 1/6!
DATA geluc<>+56(SB)/8, $0x3f81111111111111 // 1/5!
DATA geluc<>+64(SB)/8, $0x3fa5555555555555 // 1/4!
DATA geluc<>+72(SB)/8, $0x3fc5555555555555 // 1/3!
DATA geluc<>+80(SB)/8, $0.5
DATA geluc<>+88(SB)/8, $1.0
DATA geluc<>+96(SB)/8, $2.0
DATA geluc<>+104(SB)/8, $-708.0
DATA geluc<>+112(SB)/8, $1023
DATA geluc<>+120(SB)/8, $0x40040d931ff62705 // √(2π)
DATA geluc<>+128(SB)/8, $0x3ff6a09e667f3bcd // √2
DATA geluc<>+136(SB)/8, $0x3fd4f740a93d7b8c // 0.3275911
DATA geluc<>+144(SB)/8, $0x3ff0fb844255a12d // 1.061405429
DATA geluc<>+152(SB)/8, $0xbff7401c57014c39 // −1.453152027
DATA geluc<>+160(SB)/8, $0x3ff6be1c55bae157 // 1.421413741
DATA geluc<>+168(SB)/8, $0xbfd23531cc3c1469 // −0.284496736
DATA geluc<>+176(SB)/8, $0x3fd04f20c6ec5a7e // 0.254829592
DATA geluc<>+184(SB)/8, $0x7fffffffffffffff // abs mask
DATA geluc<>+192(SB)/8, $0x8000000000000000 // sign bit
GLOBL geluc<>(SB), RODATA|NOPTR, $200

// func gelu32AVX(y *float32, slope *float64, x *float32, n int) int
//
// geluGo for four values at a time (n a multiple of 4), with the same
// operations in the same order, so the same bits: e^{−z²/2} as
// math.Exp computes it on a CPU with FMA (math/exp_amd64.s: k =
// round(x·log₂e), r = (x − k·ln2 hi − k·ln2 lo, fused)/16, a degree-8
// Taylor polynomial by fused steps, squared four times as (p+2)·p, times
// 2^k), then Abramowitz and Stegun's 7.1.26 for Φ. It stops before the
// first group of four with an exponent −z²/2 not above −708 (or NaN),
// which math.Exp takes another way, and returns how many values it did.
// slope may be nil.
TEXT ·gelu32AVX(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ slope+8(FP), DX
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX
	XORQ AX, AX
	SHRQ $2, CX
	JZ udone
	VBROADCASTSD geluc<>+0(SB), Y15   // log2e
	VBROADCASTSD geluc<>+8(SB), Y14   // ln2 hi
	VBROADCASTSD geluc<>+16(SB), Y13  // ln2 lo
	VBROADCASTSD geluc<>+96(SB), Y12  // 2
	VBROADCASTSD geluc<>+88(SB), Y11  // 1
	VBROADCASTSD geluc<>+104(SB), Y10 // −708
	VBROADCASTSD geluc<>+80(SB), Y9   // 0.5
uloop:
	VCVTPS2PD (SI), Y0       // z
	VMULPD Y0, Y0, Y1
	VBROADCASTSD geluc<>+192(SB), Y2
	VXORPD Y2, Y1, Y1        // (−z)·z
	VMULPD Y9, Y1, Y1        // x = −z·z/2
	VCMPPD $0x1e, Y10, Y1, Y2 // x > −708
	VMOVMSKPD Y2, BX
	CMPQ BX, $15
	JNE udone
	// e = math.Exp(x)
	VMULPD Y15, Y1, Y2
	VCVTPD2DQY Y2, X3        // k, rounded to nearest
	VCVTDQ2PD X3, Y2
	VFNMADD231PD Y14, Y2, Y1
	VFNMADD231PD Y13, Y2, Y1
	VBROADCASTSD geluc<>+24(SB), Y4
	VMULPD Y4, Y1, Y1        // r
	VBROADCASTSD geluc<>+32(SB), Y4
	VBROADCASTSD geluc<>+40(SB), Y5
	VFMADD213PD Y5, Y1, Y4
	VBROADCASTSD geluc<>+48(SB), Y5
	VFMADD213PD Y5, Y1, Y4
	VBROADCASTSD geluc<>+56(SB), Y5
	VFMADD213PD Y5, Y1, Y4
	VBROADCASTSD geluc<>+64(SB), Y5
	VFMADD213PD Y5, Y1, Y4
	VBROADCASTSD geluc<>+72(SB), Y5
	VFMADD213PD Y5, Y1, Y4
	VFMADD213PD Y9, Y1, Y4
	VFMADD213PD Y11, Y1, Y4
	VMULPD Y4, Y1, Y1
	VADDPD Y12, Y1, Y4
	VMULPD Y4, Y1, Y1
	VADDPD Y12, Y1, Y4
	VMULPD Y4, Y1, Y1
	VADDPD Y12, Y1, Y4
	VMULPD Y4, Y1, Y1
	VADDPD Y12, Y1, Y4
	VFMADD213PD Y11, Y4, Y1
	VPMOVSXDQ X3, Y3
	VPBROADCASTQ geluc<>+112(SB), Y4
	VPADDQ Y4, Y3, Y3
	VPSLLQ $52, Y3, Y3
	VMULPD Y3, Y1, Y1        // e
	// φ = e/√(2π); a = |z|/√2; t = 1/(1 + 0.3275911a)
	VBROADCASTSD geluc<>+120(SB), Y4
	VDIVPD Y4, Y1, Y6        // pdf
	VBROADCASTSD geluc<>+184(SB), Y4
	VANDPD Y4, Y0, Y2
	VBROADCASTSD geluc<>+128(SB), Y4
	VDIVPD Y4, Y2, Y2        // a
	VBROADCASTSD geluc<>+136(SB), Y4
	VMULPD Y4, Y2, Y2
	VADDPD Y11, Y2, Y2
	VDIVPD Y2, Y11, Y2       // t
	VBROADCASTSD geluc<>+144(SB), Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD geluc<>+152(SB), Y4
	VADDPD Y4, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD geluc<>+160(SB), Y4
	VADDPD Y4, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD geluc<>+168(SB), Y4
	VADDPD Y4, Y3, Y3
	VMULPD Y2, Y3, Y3
	VBROADCASTSD geluc<>+176(SB), Y4
	VADDPD Y4, Y3, Y3
	VMULPD Y3, Y2, Y3        // t·P(t)
	VMULPD Y1, Y3, Y3        // erfc
	VMULPD Y9, Y3, Y3        // erfc/2
	VSUBPD Y3, Y11, Y4       // 1 − erfc/2
	VXORPD Y5, Y5, Y5
	VCMPPD $0x1d, Y5, Y0, Y5 // z ≥ 0
	VBLENDVPD Y5, Y4, Y3, Y3 // cdf
	VMULPD Y3, Y0, Y4
	VCVTPD2PSY Y4, X4
	VMOVUPS X4, (DI)         // y = float32(z·cdf)
	TESTQ DX, DX
	JZ unext
	VMULPD Y6, Y0, Y4
	VADDPD Y4, Y3, Y4        // cdf + z·pdf
	VMOVUPD Y4, (DX)
	ADDQ $32, DX
unext:
	ADDQ $16, DI
	ADDQ $16, SI
	ADDQ $4, AX
	DECQ CX
	JNZ uloop
udone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
