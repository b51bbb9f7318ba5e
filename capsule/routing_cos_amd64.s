//go:build !purego

#include "textflag.h"

// The operands of cosBackAVX512 (cosBackArgs, offsets checked by
// TestCosBackArgsLayout).
#define C_PTR 0
#define C_LINK 8
#define C_OTHER 16
#define C_G 24
#define C_DOT 32
#define C_OWN 40
#define C_PARTNER 48
#define C_W 56
#define C_VAL 64
#define C_GRAD 72
#define C_D 80
#define C_LO 88
#define C_HI 96
#define C_TAIL 104

DATA cosSign<>+0(SB)/8, $0x8000000000000000
DATA cosSign<>+8(SB)/8, $0
GLOBL cosSign<>(SB), RODATA|NOPTR, $16

// func cosBackAVX512(a *cosBackArgs)
//
// Eight positions of a segment at a time in the lanes of float64 vectors:
// G_e and dot_e (gathered through link, or read in order when link is nil)
// and the partners' norms (gathered through other); den = n_s·partner,
// w = float32(G/den), the terms G·(dot/den), added to self one lane at a
// time in position order; then the segment's row update, eight values a
// vector.
TEXT ·cosBackAVX512(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), SI
	MOVQ C_LINK(SI), BX
	MOVQ C_OTHER(SI), DX
	MOVQ C_G(SI), R12
	MOVQ C_DOT(SI), R13
	MOVQ C_PARTNER(SI), R14
	MOVQ C_W(SI), R15
	MOVQ C_LO(SI), R8
	MOVQ C_HI(SI), R9
	MOVQ C_TAIL(SI), AX
	KMOVW AX, K2
	CMPQ R8, R9
	JGE cbdone
cbseg:
	MOVQ C_OWN(SI), AX
	VMOVSD (AX)(R8*8), X14 // n_s
	VBROADCASTSD X14, Z14
	MOVQ C_PTR(SI), AX
	MOVLQSX (AX)(R8*4), R10 // q
	MOVLQSX 4(AX)(R8*4), R11 // the segment's end
	VXORPD X13, X13, X13 // self
cbchunk:
	CMPQ R10, R11
	JGE cbrow
	MOVQ R11, CX
	SUBQ R10, CX
	CMPQ CX, $8
	JLE cbmask
	MOVQ $8, CX
cbmask:
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1 // the chunk's CX lanes
	TESTQ BX, BX
	JZ cbinorder
	VMOVDQU32.Z (BX)(R10*4), K1, Y1 // the links
	KMOVW K1, K3
	VPXORD Z2, Z2, Z2
	VGATHERDPS (R12)(Y1*4), K3, Y2 // G
	KMOVW K1, K3
	VPXORD Z9, Z9, Z9
	VGATHERDPS (R13)(Y1*4), K3, Y9 // dot
	JMP cbpartner
cbinorder:
	VMOVUPS.Z (R12)(R10*4), K1, Y2
	VMOVUPS.Z (R13)(R10*4), K1, Y9
cbpartner:
	VMOVDQU32.Z (DX)(R10*4), K1, Y3 // the partners
	KMOVW K1, K4
	VPXORD Z4, Z4, Z4
	VGATHERDPD (R14)(Y3*8), K4, Z4 // their norms
	VMULPD Z4, Z14, Z5 // den = n_s·partner
	VCVTPS2PD Y2, Z6 // G
	VDIVPD Z5, Z6, Z7 // G/den
	VCVTPD2PS Z7, Y7
	VMOVUPS Y7, K1, (R15)(R10*4) // w
	VCVTPS2PD Y9, Z8
	VDIVPD Z5, Z8, Z8 // κ̂ = dot/den
	VMULPD Z8, Z6, Z8 // G·κ̂
cbadd:
	VADDSD X8, X13, X13 // self += the next term, in order
	VALIGNQ $1, Z8, Z8, Z8
	DECQ CX
	JNZ cbadd
	ADDQ $8, R10
	JMP cbchunk
cbrow:
	// c = −self/(n_s·n_s); grad row s += float32(c·val row s).
	VMULSD X14, X14, X15
	VXORPD cosSign<>(SB), X13, X13
	VDIVSD X15, X13, X12
	VBROADCASTSD X12, Z12
	MOVQ C_D(SI), CX
	MOVQ R8, AX
	IMULQ CX, AX
	SHLQ $2, AX // the row's byte offset
	MOVQ C_VAL(SI), R10
	ADDQ AX, R10
	MOVQ C_GRAD(SI), R11
	ADDQ AX, R11
	SHRQ $3, CX // whole 8-value chunks
	JZ cbtail
cbrowloop:
	VCVTPS2PD (R10), Z0
	VMULPD Z0, Z12, Z0
	VCVTPD2PS Z0, Y0
	VADDPS (R11), Y0, Y0
	VMOVUPS Y0, (R11)
	ADDQ $32, R10
	ADDQ $32, R11
	DECQ CX
	JNZ cbrowloop
cbtail:
	KORTESTW K2, K2
	JZ cbnext
	VMOVUPS.Z (R10), K2, Y0
	VCVTPS2PD Y0, Z0
	VMULPD Z0, Z12, Z0
	VCVTPD2PS Z0, Y0
	VMOVUPS.Z (R11), K2, Y1
	VADDPS Y1, Y0, Y0
	VMOVUPS Y0, K2, (R11)
cbnext:
	INCQ R8
	CMPQ R8, R9
	JLT cbseg
cbdone:
	VZEROUPPER
	RET
