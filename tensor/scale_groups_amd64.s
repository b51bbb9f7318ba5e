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

// The lane of s that each of eight lanes takes: two groups of four.
DATA sgperm2<>+0(SB)/4, $0
DATA sgperm2<>+4(SB)/4, $0
DATA sgperm2<>+8(SB)/4, $0
DATA sgperm2<>+12(SB)/4, $0
DATA sgperm2<>+16(SB)/4, $1
DATA sgperm2<>+20(SB)/4, $1
DATA sgperm2<>+24(SB)/4, $1
DATA sgperm2<>+28(SB)/4, $1
GLOBL sgperm2<>(SB), RODATA|NOPTR, $32

// func scaleGroups4Y(dst, x, s *float32, n int, acc bool)
//
// scaleGroups4Z on AVX2: four groups in two vectors of two, s[e] spread
// over its group's lanes (groups 2 and 3 from s shifted by two lanes), one
// product and, with acc, one sum per lane: the same operations, so the
// same bits.
TEXT ·scaleGroups4Y(SB), NOSPLIT, $0-33
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ s+16(FP), DX
	MOVQ n+24(FP), CX
	MOVBLZX acc+32(FP), AX
	SHRQ $2, CX
	JZ sydone
	VMOVUPS sgperm2<>(SB), Y3
syloop:
	VMOVUPS (DX), X1
	VPERMPS Y1, Y3, Y2
	VMOVHLPS X1, X1, X4
	VPERMPS Y4, Y3, Y5
	VMULPS (SI), Y2, Y2
	VMULPS 32(SI), Y5, Y5
	TESTQ AX, AX
	JZ systore
	VADDPS (DI), Y2, Y2
	VADDPS 32(DI), Y5, Y5
systore:
	VMOVUPS Y2, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $16, DX
	DECQ CX
	JNZ syloop
sydone:
	VZEROUPPER
	RET
