//go:build !purego

#include "textflag.h"

DATA sigc<>+0(SB)/8, $1.4426950408889634 // log2e
DATA sigc<>+8(SB)/8, $6.93147180369123816490e-01 // ln2hi
DATA sigc<>+16(SB)/8, $1.90821492927058770002e-10 // ln2lo
DATA sigc<>+24(SB)/8, $-708.0 // lo
DATA sigc<>+32(SB)/8, $6755399441056767.0 // magic
DATA sigc<>+40(SB)/8, $1.0 // one
DATA sigc<>+48(SB)/8, $0x8000000000000000 // sign bit
DATA sigc<>+56(SB)/8, $2.08767569878681e-09 // 1/12!
DATA sigc<>+64(SB)/8, $2.505210838544172e-08 // 1/11!
DATA sigc<>+72(SB)/8, $2.755731922398589e-07 // 1/10!
DATA sigc<>+80(SB)/8, $2.7557319223985893e-06 // 1/9!
DATA sigc<>+88(SB)/8, $2.48015873015873e-05 // 1/8!
DATA sigc<>+96(SB)/8, $0.0001984126984126984 // 1/7!
DATA sigc<>+104(SB)/8, $0.001388888888888889 // 1/6!
DATA sigc<>+112(SB)/8, $0.008333333333333333 // 1/5!
DATA sigc<>+120(SB)/8, $0.041666666666666664 // 1/4!
DATA sigc<>+128(SB)/8, $0.16666666666666666 // 1/3!
DATA sigc<>+136(SB)/8, $0.5 // 1/2!
DATA sigc<>+144(SB)/8, $1.0 // 1/1!
DATA sigc<>+152(SB)/8, $1.0 // 1/0!
GLOBL sigc<>(SB), RODATA|NOPTR, $160

// EXP_NEG_ABS_CONSTS loads the constants of EXP_NEG_ABS into Y9-Y15 (Y14
// holds 1, which it does not use).
#define EXP_NEG_ABS_CONSTS \
	VBROADCASTSD sigc<>+48(SB), Y15; \
	VBROADCASTSD sigc<>+40(SB), Y14; \
	VBROADCASTSD sigc<>+0(SB), Y13; \
	VBROADCASTSD sigc<>+8(SB), Y12; \
	VBROADCASTSD sigc<>+16(SB), Y11; \
	VBROADCASTSD sigc<>+24(SB), Y10; \
	VBROADCASTSD sigc<>+32(SB), Y9

// EXP_NEG_ABS sets Y4 = e^{−|Y0|}, four float64 lanes, with Y1-Y5 as
// scratch. For a = max(−|x|, −708) (a NaN passes through):
// n = round(a·log₂e), r = a − n·ln2 (two-part ln2), e^r by its degree-12
// Taylor polynomial (|r| ≤ ln2/2: relative error below 2e-15), times 2^n
// built in the exponent bits (n + 1023 added to 1.5·2^52, shifted up by
// 52).
#define EXP_NEG_ABS \
	VORPD Y15, Y0, Y1; \
	VMAXPD Y1, Y10, Y1; \
	VMULPD Y13, Y1, Y2; \
	VROUNDPD $0, Y2, Y2; \
	VMOVAPD Y1, Y3; \
	VFNMADD231PD Y12, Y2, Y3; \
	VFNMADD231PD Y11, Y2, Y3; \
	VBROADCASTSD sigc<>+56(SB), Y4; \
	VBROADCASTSD sigc<>+64(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+72(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+80(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+88(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+96(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+104(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+112(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+120(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+128(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+136(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+144(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VBROADCASTSD sigc<>+152(SB), Y5; \
	VFMADD213PD Y5, Y3, Y4; \
	VADDPD Y9, Y2, Y5; \
	VPSLLQ $52, Y5, Y5; \
	VMULPD Y5, Y4, Y4

// func sigmoid64AVX(dst, x *float64, n int)
//
// dst[i] = σ(x[i]) for i < n (n a multiple of 4), in the stable form:
// t = e^{−|x|} (EXP_NEG_ABS), σ = 1/(1+t) for x ≥ 0 and t/(1+t) for
// x < 0. dst may be x.
TEXT ·sigmoid64AVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JZ sdone
	EXP_NEG_ABS_CONSTS
sloop:
	VMOVUPD (SI), Y0
	EXP_NEG_ABS        // t = e^{−|x|}
	VADDPD Y14, Y4, Y6
	VDIVPD Y6, Y14, Y7 // 1/(1+t)
	VMULPD Y4, Y7, Y8  // t/(1+t)
	VBLENDVPD Y0, Y8, Y7, Y7
	VMOVUPD Y7, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ sloop
sdone:
	VZEROUPPER
	RET

// func expNegAbs64AVX(dst, x *float64, n int)
//
// dst[i] = e^{−|x[i]|} for i < n (n a multiple of 4), sigmoid64AVX's t
// (EXP_NEG_ABS). dst may be x.
TEXT ·expNegAbs64AVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JZ edone
	EXP_NEG_ABS_CONSTS
eloop:
	VMOVUPD (SI), Y0
	EXP_NEG_ABS
	VMOVUPD Y4, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ eloop
edone:
	VZEROUPPER
	RET
