//go:build !purego

#include "textflag.h"

// The lane of s that each of sixteen lanes takes: four groups of four.
DATA sgperm<>+0(SB)/4, $0
DATA sgperm<>+4(SB)/4, $0
DATA sgperm<>+8(SB)/4, $0
DATA sgperm<>+12(SB)/4, $0
DATA sgperm<>+16(SB)/4, $1
DATA sgperm<>+20(SB)/4, $1
DATA sgperm<>+24(SB)/4, $1
DATA sgperm<>+28(SB)/4, $1
DATA sgperm<>+32(SB)/4, $2
DATA sgperm<>+36(SB)/4, $2
DATA sgperm<>+40(SB)/4, $2
DATA sgperm<>+44(SB)/4, $2
DATA sgperm<>+48(SB)/4, $3
DATA sgperm<>+52(SB)/4, $3
DATA sgperm<>+56(SB)/4, $3
DATA sgperm<>+60(SB)/4, $3
GLOBL sgperm<>(SB), RODATA|NOPTR, $64

// func scaleGroups4Z(dst, x, s *float32, n int, acc bool)
//
// ScaleGroups for groups of four and n groups (a multiple of 4): four
// groups a vector, s[e] spread over its group's lanes, one product and,
// with acc, one sum per lane.
TEXT ·scaleGroups4Z(SB), NOSPLIT, $0-33
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ s+16(FP), DX
	MOVQ n+24(FP), CX
	MOVBLZX acc+32(FP), AX
	SHRQ $2, CX
	JZ sgdone
	VMOVUPS sgperm<>(SB), Z3
sgloop:
	VMOVUPS (DX), X1
	VPERMPS Z1, Z3, Z2
	VMULPS (SI), Z2, Z2
	TESTQ AX, AX
	JZ sgstore
	VADDPS (DI), Z2, Z2
sgstore:
	VMOVUPS Z2, (DI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $16, DX
	DECQ CX
	JNZ sgloop
sgdone:
	VZEROUPPER
	RET
