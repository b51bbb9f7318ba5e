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

// cosMask<>+4·(4−c) holds four int32 lanes whose first c are set.
DATA cosMask<>+0(SB)/4, $-1
DATA cosMask<>+4(SB)/4, $-1
DATA cosMask<>+8(SB)/4, $-1
DATA cosMask<>+12(SB)/4, $-1
DATA cosMask<>+16(SB)/4, $0
DATA cosMask<>+20(SB)/4, $0
DATA cosMask<>+24(SB)/4, $0
DATA cosMask<>+28(SB)/4, $0
GLOBL cosMask<>(SB), RODATA|NOPTR, $32

// COS_MASK4 loads into x the mask of the first n (a register, 0-4) of four
// int32 lanes; AX is scratch.
#define COS_MASK4(n, x) \
	LEAQ cosMask<>+16(SB), AX; \
	SHLQ $2, n; \
	SUBQ n, AX; \
	SHRQ $2, n; \
	VMOVDQU (AX), x

// func cosBackAVX2(a *cosBackArgs)
//
// cosBackAVX512 on AVX2: four positions of a segment at a time in the
// lanes of float64 vectors (X10 the chunk's int32 lane mask, Y11 the same
// widened to 64-bit lanes), the terms added to self one lane at a time in
// position order, then the segment's row update four values a vector (the
// last d mod 4 masked by X15). The same operations lane for lane as the Go
// loops, so the same bits.
TEXT ·cosBackAVX2(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), SI
	MOVQ C_LINK(SI), BX
	MOVQ C_OTHER(SI), DX
	MOVQ C_G(SI), R12
	MOVQ C_DOT(SI), R13
	MOVQ C_PARTNER(SI), R14
	MOVQ C_W(SI), R15
	MOVQ C_LO(SI), R8
	MOVQ C_HI(SI), R9
	MOVQ C_D(SI), CX
	ANDQ $3, CX
	COS_MASK4(CX, X15) // the row's last d mod 4 values
	CMPQ R8, R9
	JGE cydone
cyseg:
	MOVQ C_OWN(SI), AX
	VBROADCASTSD (AX)(R8*8), Y14 // n_s
	MOVQ C_PTR(SI), AX
	MOVLQSX (AX)(R8*4), R10 // q
	MOVLQSX 4(AX)(R8*4), R11 // the segment's end
	VXORPD X13, X13, X13 // self
cychunk:
	CMPQ R10, R11
	JGE cyrow
	MOVQ R11, CX
	SUBQ R10, CX
	CMPQ CX, $4
	JLE cymask
	MOVQ $4, CX
cymask:
	COS_MASK4(CX, X10) // the chunk's CX lanes
	VPMOVSXDQ X10, Y11
	TESTQ BX, BX
	JZ cyinorder
	VPMASKMOVD (BX)(R10*4), X10, X1 // the links
	VXORPS X2, X2, X2
	VMOVDQA X10, X3
	VGATHERDPS X3, (R12)(X1*4), X2 // G
	VXORPS X9, X9, X9
	VMOVDQA X10, X3
	VGATHERDPS X3, (R13)(X1*4), X9 // dot
	JMP cypartner
cyinorder:
	VMASKMOVPS (R12)(R10*4), X10, X2
	VMASKMOVPS (R13)(R10*4), X10, X9
cypartner:
	VPMASKMOVD (DX)(R10*4), X10, X3 // the partners
	VXORPD Y4, Y4, Y4
	VMOVDQA Y11, Y5
	VGATHERDPD Y5, (R14)(X3*8), Y4 // their norms
	VMULPD Y4, Y14, Y5 // den = n_s·partner
	VCVTPS2PD X2, Y6 // G
	VDIVPD Y5, Y6, Y7 // G/den
	VCVTPD2PSY Y7, X7
	VMASKMOVPS X7, X10, (R15)(R10*4) // w
	VCVTPS2PD X9, Y8
	VDIVPD Y5, Y8, Y8 // κ̂ = dot/den
	VMULPD Y8, Y6, Y8 // G·κ̂
cyadd:
	VADDSD X8, X13, X13 // self += the next term, in order
	VPERMPD $0x39, Y8, Y8
	DECQ CX
	JNZ cyadd
	ADDQ $4, R10
	JMP cychunk
cyrow:
	// c = −self/(n_s·n_s); grad row s += float32(c·val row s).
	VMULSD X14, X14, X12
	VXORPD cosSign<>(SB), X13, X13
	VDIVSD X12, X13, X12
	VBROADCASTSD X12, Y12
	MOVQ C_D(SI), CX
	MOVQ R8, AX
	IMULQ CX, AX
	SHLQ $2, AX // the row's byte offset
	MOVQ C_VAL(SI), R10
	ADDQ AX, R10
	MOVQ C_GRAD(SI), R11
	ADDQ AX, R11
	SHRQ $2, CX // whole 4-value chunks
	JZ cytail
cyrowloop:
	VCVTPS2PD (R10), Y0
	VMULPD Y0, Y12, Y0
	VCVTPD2PSY Y0, X0
	VADDPS (R11), X0, X0
	VMOVUPS X0, (R11)
	ADDQ $16, R10
	ADDQ $16, R11
	DECQ CX
	JNZ cyrowloop
cytail:
	VPTEST X15, X15
	JZ cynext
	VMASKMOVPS (R10), X15, X0
	VCVTPS2PD X0, Y0
	VMULPD Y0, Y12, Y0
	VCVTPD2PSY Y0, X0
	VMASKMOVPS (R11), X15, X1
	VADDPS X1, X0, X0
	VMASKMOVPS X0, X15, (R11)
cynext:
	INCQ R8
	CMPQ R8, R9
	JLT cyseg
cydone:
	VZEROUPPER
	RET
