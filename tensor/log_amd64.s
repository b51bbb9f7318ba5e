//go:build !purego

#include "textflag.h"

DATA logc<>+0(SB)/8, $0x000FFFFFFFFFFFFF // mantissa bits
DATA logc<>+8(SB)/8, $0.5
DATA logc<>+16(SB)/8, $0x4330000000000000 // 2^52's bits
DATA logc<>+24(SB)/8, $4503599627370496.0 // 2^52
DATA logc<>+32(SB)/8, $1022.0
DATA logc<>+40(SB)/8, $7.07106781186547524401e-01 // √2/2
DATA logc<>+48(SB)/8, $1.0
DATA logc<>+56(SB)/8, $2.0
DATA logc<>+64(SB)/8, $6.666666666666735130e-01 // L1
DATA logc<>+72(SB)/8, $3.999999999940941908e-01 // L2
DATA logc<>+80(SB)/8, $2.857142874366239149e-01 // L3
DATA logc<>+88(SB)/8, $2.222219843214978396e-01 // L4
DATA logc<>+96(SB)/8, $1.818357216161805012e-01 // L5
DATA logc<>+104(SB)/8, $1.531383769920937332e-01 // L6
DATA logc<>+112(SB)/8, $1.479819860511658591e-01 // L7
DATA logc<>+120(SB)/8, $6.93147180369123816490e-01 // ln2 high part
DATA logc<>+128(SB)/8, $1.90821492927058770002e-10 // ln2 low part
DATA logc<>+136(SB)/8, $0x0010000000000000 // smallest normal
DATA logc<>+144(SB)/8, $0x7FF0000000000000 // +Inf
GLOBL logc<>(SB), RODATA|NOPTR, $152

// HORNER is one Horner step in s4 = Y5 of the polynomial in Y6:
// Y6 = Y6·s4 + the constant at logc+off (the kernel's MULSD, then ADDSD).
#define HORNER(off) VMULPD Y5, Y6, Y6; VBROADCASTSD logc<>+off(SB), Y7; VADDPD Y7, Y6, Y6

// func log64AVX(dst, x *float64, n int) int
//
// dst[i] = ln(x[i]) for i < n (n a multiple of 4), stopping before the
// first block of four that holds a value outside [smallest normal, +Inf)
// (zero, negative, subnormal, +Inf, NaN; the caller takes that block);
// returns the number of values done. Each lane makes math.Log's amd64
// operations in their order, without FMA, so the bits are the same:
// f1 = mantissa in [0.5, 1), k = exponent; if f1 ≤ √2/2 then f1 *= 2,
// k −= 1; f = f1 − 1, s = f/(2+f), s2 = s², s4 = s2²,
// t1 = s2·(L1+s4·(L3+s4·(L5+s4·L7))), t2 = s4·(L2+s4·(L4+s4·L6)),
// R = t1+t2, hfsq = 0.5·f·f,
// ln x = k·ln2hi − ((hfsq − (s·(hfsq+R) + k·ln2lo)) − f).
TEXT ·log64AVX(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	SHRQ $2, CX
	JZ ldone
	VBROADCASTSD logc<>+0(SB), Y15   // mantissa bits
	VBROADCASTSD logc<>+8(SB), Y14   // 0.5
	VBROADCASTSD logc<>+16(SB), Y13  // 2^52's bits
	VBROADCASTSD logc<>+24(SB), Y12  // 2^52
	VBROADCASTSD logc<>+40(SB), Y11  // √2/2
	VBROADCASTSD logc<>+48(SB), Y10  // 1
	VBROADCASTSD logc<>+136(SB), Y9  // smallest normal
	VBROADCASTSD logc<>+144(SB), Y8  // +Inf
lloop:
	VMOVUPD (SI), Y0
	// The block is done here only if every lane is a positive normal
	// finite value: smallest normal ≤ x < +Inf (false for NaN).
	VCMPPD $0x1D, Y9, Y0, Y1 // x ≥ min normal (GE_OQ)
	VCMPPD $0x11, Y8, Y0, Y2 // x < +Inf (LT_OQ)
	VANDPD Y2, Y1, Y1
	VMOVMSKPD Y1, DX
	CMPQ DX, $15
	JNE ldone
	// f1 and k.
	VANDPD Y15, Y0, Y1
	VORPD Y14, Y1, Y1 // f1
	VPSRLQ $52, Y0, Y2
	VPOR Y13, Y2, Y2
	VSUBPD Y12, Y2, Y2 // biased exponent, exactly
	VBROADCASTSD logc<>+32(SB), Y3
	VSUBPD Y3, Y2, Y2 // k (exponent − 0x3FE)
	// if f1 ≤ √2/2 { k −= 1; f1 *= 2 } (the kernel's CMPSD NLT)
	VCMPPD $0x05, Y1, Y11, Y3 // NLT(√2/2, f1)
	VANDPD Y10, Y3, Y3 // 0 or 1
	VSUBPD Y3, Y2, Y2
	VADDPD Y10, Y3, Y3 // 1 or 2
	VMULPD Y3, Y1, Y1
	VSUBPD Y10, Y1, Y1 // f
	// s = f/(2+f), s2, s4
	VBROADCASTSD logc<>+56(SB), Y3
	VADDPD Y1, Y3, Y3
	VDIVPD Y3, Y1, Y3 // s
	VMULPD Y3, Y3, Y4 // s2
	VMULPD Y4, Y4, Y5 // s4
	// t1 = s2·(L1+s4·(L3+s4·(L5+s4·L7)))
	VBROADCASTSD logc<>+112(SB), Y6
	HORNER(96)
	HORNER(80)
	HORNER(64)
	VMULPD Y6, Y4, Y4 // t1
	// t2 = s4·(L2+s4·(L4+s4·L6))
	VBROADCASTSD logc<>+104(SB), Y6
	HORNER(88)
	HORNER(72)
	VMULPD Y6, Y5, Y5 // t2
	VADDPD Y5, Y4, Y4 // R = t1 + t2
	// hfsq = 0.5·f·f
	VMULPD Y1, Y14, Y6
	VMULPD Y1, Y6, Y6
	// k·ln2hi − ((hfsq − (s·(hfsq+R) + k·ln2lo)) − f)
	VADDPD Y6, Y4, Y4
	VMULPD Y4, Y3, Y3
	VBROADCASTSD logc<>+128(SB), Y7
	VMULPD Y2, Y7, Y7
	VADDPD Y7, Y3, Y3
	VSUBPD Y3, Y6, Y6
	VSUBPD Y1, Y6, Y6
	VBROADCASTSD logc<>+120(SB), Y7
	VMULPD Y7, Y2, Y2
	VSUBPD Y6, Y2, Y2
	VMOVUPD Y2, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $4, AX
	DECQ CX
	JNZ lloop
ldone:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
