//go:build !purego

#include "textflag.h"

// Squash's rows on AVX-512, eight rows a vector for the row sums and one
// row at a time for the values. Each lane does the float64 operations of
// tangent.go's loops in their order (products and sums rounded apart, no
// FMA; each sum in coordinate order from 0.0), so the same bits
// (TestSquashAVX512). A row whose sum of squares is neither 0 nor in
// (1e-280, +Inf), where normT rescales, is left to the Go code: a bit of
// the result per row.

DATA sqConst<>+0(SB)/8, $1.0
DATA sqConst<>+8(SB)/8, $1e-280
DATA sqConst<>+16(SB)/8, $0x7ff0000000000000 // +Inf
DATA sqConst<>+24(SB)/8, $1e-150
GLOBL sqConst<>(SB), RODATA|NOPTR, $32

// SQ_GROUP sets R13 to the rows of the group starting at row R9 (at most
// 8 of the R8 rows) and K1 to as many lanes; CX (c) is kept, AX and R11
// are scratch.
#define SQ_GROUP(label) \
	MOVQ R8, AX; \
	SUBQ R9, AX; \
	CMPQ AX, $8; \
	JLE label; \
	MOVQ $8, AX; \
label: \
	MOVQ AX, R13; \
	MOVQ CX, R11; \
	MOVQ AX, CX; \
	MOVQ $1, AX; \
	SHLQ CX, AX; \
	DECQ AX; \
	MOVQ R11, CX; \
	KMOVW AX, K1

// SQ_GOOD sets K5 to the group's rows whose s² (Z0) normT takes as it is
// (0, or in (1e-280, +Inf)), and adds the others to R12 as bits from
// R9 on; c is reloaded into CX from cArg, AX is scratch.
#define SQ_GOOD(cArg) \
	VBROADCASTSD sqConst<>+8(SB), Z2; \
	VCMPPD $0x1e, Z2, Z0, K1, K3; \
	VBROADCASTSD sqConst<>+16(SB), Z2; \
	VCMPPD $0x11, Z2, Z0, K3, K3; \
	VPXORQ Z2, Z2, Z2; \
	VCMPPD $0x00, Z2, Z0, K1, K4; \
	KORW K3, K4, K5; \
	KANDNW K1, K5, K6; \
	KMOVW K6, AX; \
	MOVQ R9, CX; \
	SHLQ CX, AX; \
	ORQ AX, R12; \
	MOVQ cArg, CX


// func squashFwdAVX512(x, y *float32, c, rows int, offs *int32) (left uint64)
//
// y = squashScale(‖x_r‖)·x_r for rows ≤ 64 rows of c values; offs holds
// {0, c, …, 7c}.
TEXT ·squashFwdAVX512(SB), $64-48
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ c+16(FP), CX
	MOVQ rows+24(FP), R8
	MOVQ offs+32(FP), AX
	VMOVDQU (AX), Y15 // the lanes' row offsets
	XORQ R9, R9 // the first row of the group
	XORQ R12, R12 // the rows left to the Go code
sfgroup:
	CMPQ R9, R8
	JGE sfdone
	SQ_GROUP(sfm)
	// s² of each lane's row, coordinate by coordinate.
	MOVQ R9, AX
	IMULQ CX, AX
	LEAQ (SI)(AX*4), R10 // the group's first row
	VPXORQ Z0, Z0, Z0 // s²
	XORQ R11, R11
sfsum:
	KMOVW K1, K2
	VPXORD Y1, Y1, Y1
	VGATHERDPS (R10)(Y15*4), K2, Y1
	VCVTPS2PD Y1, Z1
	VMULPD Z1, Z1, Z1
	VADDPD Z1, Z0, Z0
	ADDQ $4, R10
	INCQ R11
	CMPQ R11, CX
	JLT sfsum
	SQ_GOOD(c+16(FP))
	// h = squashScale(√s²) = 1/(s + 1/s), 0 at s = 0
	VSQRTPD Z0, Z0
	VBROADCASTSD sqConst<>+0(SB), Z3 // 1
	VDIVPD Z0, Z3, Z4 // 1/s
	VADDPD Z4, Z0, Z4 // s + 1/s
	VDIVPD Z4, Z3, Z4 // 1/(s + 1/s)
	VPXORQ Z2, Z2, Z2
	VCMPPD $0x00, Z2, Z0, K7 // s = 0
	VMOVAPD Z2, K7, Z4
	VMOVUPD Z4, (SP) // h per lane
	// The rows' values: y = float32(h·x), eight values a vector.
	KMOVW K5, R14 // the good rows of the group
	XORQ R11, R11 // the lane
sfrow:
	BTQ R11, R14
	JNC sfnextrow
	LEAQ (SP), AX
	VBROADCASTSD (AX)(R11*8), Z5
	MOVQ R9, AX
	ADDQ R11, AX
	IMULQ CX, AX
	LEAQ (SI)(AX*4), R10
	LEAQ (DI)(AX*4), BX
	MOVQ CX, DX
sfval:
	CMPQ DX, $8
	JLT sftail
	VCVTPS2PD (R10), Z6
	VMULPD Z6, Z5, Z6
	VCVTPD2PS Z6, Y6
	VMOVUPS Y6, (BX)
	ADDQ $32, R10
	ADDQ $32, BX
	SUBQ $8, DX
	JMP sfval
sftail:
	TESTQ DX, DX
	JZ sfnextrow
	MOVQ CX, R15
	MOVQ DX, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	MOVQ R15, CX
	KMOVW AX, K2
	VMOVUPS.Z (R10), K2, Y6
	VCVTPS2PD Y6, Z6
	VMULPD Z6, Z5, Z6
	VCVTPD2PS Z6, Y6
	VMOVUPS Y6, K2, (BX)
sfnextrow:
	INCQ R11
	CMPQ R11, R13
	JLT sfrow
	ADDQ $8, R9
	JMP sfgroup
sfdone:
	MOVQ R12, left+40(FP)
	VZEROUPPER
	RET

// func squashBackAVX512(x, gr, gx *float32, c, rows int, offs *int32) (left uint64)
//
// gx += float32(h·g + b·x) per row, h = squashScale(s), s = ‖x_r‖,
// b = h'(s)/s·(g·x) for s > 1e-150 (else 0), with
// h'(s) = (1/s − s)/(s + 1/s)/(1 + s·s).
TEXT ·squashBackAVX512(SB), $128-56
	MOVQ x+0(FP), SI
	MOVQ gr+8(FP), DI
	MOVQ c+24(FP), CX
	MOVQ rows+32(FP), R8
	MOVQ offs+40(FP), AX
	VMOVDQU (AX), Y15
	XORQ R9, R9
	XORQ R12, R12
sbgroup:
	CMPQ R9, R8
	JGE sbdone
	SQ_GROUP(sbm)
	MOVQ R9, AX
	IMULQ CX, AX
	LEAQ (SI)(AX*4), R10 // x, the group's first row
	LEAQ (DI)(AX*4), BX // g
	VPXORQ Z0, Z0, Z0 // s²
	VPXORQ Z7, Z7, Z7 // g·x
	XORQ R11, R11
sbsum:
	KMOVW K1, K2
	VPXORD Y1, Y1, Y1
	VGATHERDPS (R10)(Y15*4), K2, Y1
	KMOVW K1, K2
	VPXORD Y8, Y8, Y8
	VGATHERDPS (BX)(Y15*4), K2, Y8
	VCVTPS2PD Y1, Z1
	VCVTPS2PD Y8, Z8
	VMULPD Z8, Z1, Z8 // x·g
	VMULPD Z1, Z1, Z1
	VADDPD Z1, Z0, Z0
	VADDPD Z8, Z7, Z7
	ADDQ $4, R10
	ADDQ $4, BX
	INCQ R11
	CMPQ R11, CX
	JLT sbsum
	SQ_GOOD(c+24(FP))
	VSQRTPD Z0, Z0 // s
	VBROADCASTSD sqConst<>+0(SB), Z3 // 1
	VDIVPD Z0, Z3, Z4 // 1/s
	VADDPD Z4, Z0, Z5 // s + 1/s
	VDIVPD Z5, Z3, Z6 // h = 1/(s + 1/s)
	VPXORQ Z2, Z2, Z2
	VCMPPD $0x00, Z2, Z0, K7
	VMOVAPD Z2, K7, Z6 // h = 0 at s = 0
	VMOVUPD Z6, (SP)
	// b = ((1/s − s)/(s + 1/s)/(1 + s·s))·(g·x)/s for s > 1e-150, else 0
	VSUBPD Z0, Z4, Z9 // 1/s − s
	VDIVPD Z5, Z9, Z9
	VMULPD Z0, Z0, Z10
	VADDPD Z10, Z3, Z10 // 1 + s·s
	VDIVPD Z10, Z9, Z9 // h'(s)
	VMULPD Z7, Z9, Z9 // h'·(g·x)
	VDIVPD Z0, Z9, Z9 // /s
	VBROADCASTSD sqConst<>+24(SB), Z2
	VCMPPD $0x1e, Z2, Z0, K7 // s > 1e-150
	VPXORQ Z11, Z11, Z11
	VMOVAPD Z9, K7, Z11
	VMOVUPD Z11, 64(SP) // b per lane
	KMOVW K5, R14
	XORQ R11, R11
sbrow:
	BTQ R11, R14
	JNC sbnextrow
	LEAQ (SP), AX
	VBROADCASTSD (AX)(R11*8), Z5 // h
	VBROADCASTSD 64(AX)(R11*8), Z12 // b
	MOVQ R9, AX
	ADDQ R11, AX
	IMULQ CX, AX
	LEAQ (SI)(AX*4), R10 // x
	LEAQ (DI)(AX*4), BX // g
	MOVQ gx+16(FP), DX
	LEAQ (DX)(AX*4), DX // gx
	MOVQ CX, R15
sbval:
	CMPQ R15, $8
	JLT sbtail
	VCVTPS2PD (BX), Z6
	VMULPD Z6, Z5, Z6 // h·g
	VCVTPS2PD (R10), Z13
	VMULPD Z13, Z12, Z13 // b·x
	VADDPD Z13, Z6, Z6
	VCVTPD2PS Z6, Y6
	VADDPS (DX), Y6, Y6
	VMOVUPS Y6, (DX)
	ADDQ $32, R10
	ADDQ $32, BX
	ADDQ $32, DX
	SUBQ $8, R15
	JMP sbval
sbtail:
	TESTQ R15, R15
	JZ sbnextrow
	MOVQ CX, AX
	MOVQ R15, CX
	MOVQ $1, R15
	SHLQ CX, R15
	DECQ R15
	MOVQ AX, CX
	KMOVW R15, K2
	VMOVUPS.Z (BX), K2, Y6
	VCVTPS2PD Y6, Z6
	VMULPD Z6, Z5, Z6
	VMOVUPS.Z (R10), K2, Y13
	VCVTPS2PD Y13, Z13
	VMULPD Z13, Z12, Z13
	VADDPD Z13, Z6, Z6
	VCVTPD2PS Z6, Y6
	VMOVUPS.Z (DX), K2, Y14
	VADDPS Y14, Y6, Y6
	VMOVUPS Y6, K2, (DX)
sbnextrow:
	INCQ R11
	CMPQ R11, R13
	JLT sbrow
	ADDQ $8, R9
	JMP sbgroup
sbdone:
	MOVQ R12, left+48(FP)
	VZEROUPPER
	RET

// The same on AVX2: four rows a vector of float64 lanes for the row sums,
// one row at a time for the values, four values a vector (the last c mod
// 4 masked). Each lane does the Go loops' float64 operations in their
// order, so the same bits (TestSquashAVX2).

// sqMask<>+4·(4−n) holds four int32 lanes whose first n are set.
DATA sqMask<>+0(SB)/4, $-1
DATA sqMask<>+4(SB)/4, $-1
DATA sqMask<>+8(SB)/4, $-1
DATA sqMask<>+12(SB)/4, $-1
DATA sqMask<>+16(SB)/4, $0
DATA sqMask<>+20(SB)/4, $0
DATA sqMask<>+24(SB)/4, $0
DATA sqMask<>+28(SB)/4, $0
GLOBL sqMask<>(SB), RODATA|NOPTR, $32

// SQ_MASK4 loads into x the mask of the first n (a register, 0-4) of four
// int32 lanes; AX is scratch.
#define SQ_MASK4(n, x) \
	LEAQ sqMask<>+16(SB), AX; \
	SHLQ $2, n; \
	SUBQ n, AX; \
	SHRQ $2, n; \
	VMOVDQU (AX), x

// SQ_GROUP4 sets R13 to the rows of the group starting at row R9 (at most
// 4 of the R8 rows) and X14 to as many int32 lanes; AX is scratch.
#define SQ_GROUP4(label) \
	MOVQ R8, R13; \
	SUBQ R9, R13; \
	CMPQ R13, $4; \
	JLE label; \
	MOVQ $4, R13; \
label: \
	SQ_MASK4(R13, X14)

// SQ_GOOD4 sets R14 to the group's rows whose s² (Y0) normT takes as it
// is (0, or in (1e-280, +Inf)), and adds the group's other rows to R12 as
// bits from R9 on; CX (c) is kept, AX, DX and Y2-Y4 are scratch.
#define SQ_GOOD4 \
	VBROADCASTSD sqConst<>+8(SB), Y2; \
	VCMPPD $0x1e, Y2, Y0, Y3; \
	VBROADCASTSD sqConst<>+16(SB), Y2; \
	VCMPPD $0x11, Y2, Y0, Y4; \
	VANDPD Y4, Y3, Y3; \
	VXORPD Y2, Y2, Y2; \
	VCMPPD $0x00, Y2, Y0, Y4; \
	VORPD Y4, Y3, Y3; \
	VMOVMSKPD Y3, R14; \
	MOVQ $1, AX; \
	MOVQ CX, DX; \
	MOVQ R13, CX; \
	SHLQ CX, AX; \
	DECQ AX; \
	ANDQ AX, R14; \
	XORQ R14, AX; \
	MOVQ R9, CX; \
	SHLQ CX, AX; \
	ORQ AX, R12; \
	MOVQ DX, CX

// func squashFwdAVX2(x, y *float32, c, rows int, offs *int32) (left uint64)
//
// squashFwdAVX512 on AVX2; offs holds {0, c, 2c, 3c, …}.
TEXT ·squashFwdAVX2(SB), $32-48
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ c+16(FP), CX
	MOVQ rows+24(FP), R8
	MOVQ offs+32(FP), AX
	VMOVDQU (AX), X15 // the lanes' row offsets
	MOVQ CX, R15
	ANDQ $3, R15
	SQ_MASK4(R15, X13) // a row's last c mod 4 values
	XORQ R9, R9 // the first row of the group
	XORQ R12, R12 // the rows left to the Go code
yfgroup:
	CMPQ R9, R8
	JGE yfdone
	SQ_GROUP4(yfm)
	// s² of each lane's row, coordinate by coordinate.
	MOVQ R9, AX
	IMULQ CX, AX
	LEAQ (SI)(AX*4), R10 // the group's first row
	VXORPD Y0, Y0, Y0 // s²
	XORQ R11, R11
yfsum:
	VMOVDQA X14, X2
	VXORPS X1, X1, X1
	VGATHERDPS X2, (R10)(X15*4), X1
	VCVTPS2PD X1, Y1
	VMULPD Y1, Y1, Y1
	VADDPD Y1, Y0, Y0
	ADDQ $4, R10
	INCQ R11
	CMPQ R11, CX
	JLT yfsum
	SQ_GOOD4
	// h = squashScale(√s²) = 1/(s + 1/s), 0 at s = 0
	VSQRTPD Y0, Y0
	VBROADCASTSD sqConst<>+0(SB), Y3 // 1
	VDIVPD Y0, Y3, Y4 // 1/s
	VADDPD Y4, Y0, Y4 // s + 1/s
	VDIVPD Y4, Y3, Y4 // 1/(s + 1/s)
	VXORPD Y2, Y2, Y2
	VCMPPD $0x00, Y2, Y0, Y5 // s = 0
	VBLENDVPD Y5, Y2, Y4, Y4
	VMOVUPD Y4, (SP) // h per lane
	// The rows' values: y = float32(h·x), four values a vector.
	XORQ R11, R11 // the lane
yfrow:
	BTQ R11, R14
	JNC yfnextrow
	LEAQ (SP), AX
	VBROADCASTSD (AX)(R11*8), Y5
	MOVQ R9, AX
	ADDQ R11, AX
	IMULQ CX, AX
	LEAQ (SI)(AX*4), R10
	LEAQ (DI)(AX*4), BX
	MOVQ CX, DX
	SHRQ $2, DX
	JZ yftail
yfval:
	VCVTPS2PD (R10), Y6
	VMULPD Y6, Y5, Y6
	VCVTPD2PSY Y6, X6
	VMOVUPS X6, (BX)
	ADDQ $16, R10
	ADDQ $16, BX
	DECQ DX
	JNZ yfval
yftail:
	TESTQ R15, R15
	JZ yfnextrow
	VMASKMOVPS (R10), X13, X6
	VCVTPS2PD X6, Y6
	VMULPD Y6, Y5, Y6
	VCVTPD2PSY Y6, X6
	VMASKMOVPS X6, X13, (BX)
yfnextrow:
	INCQ R11
	CMPQ R11, R13
	JLT yfrow
	ADDQ $4, R9
	JMP yfgroup
yfdone:
	MOVQ R12, left+40(FP)
	VZEROUPPER
	RET

// func squashBackAVX2(x, gr, gx *float32, c, rows int, offs *int32) (left uint64)
//
// squashBackAVX512 on AVX2.
TEXT ·squashBackAVX2(SB), $64-56
	MOVQ x+0(FP), SI
	MOVQ gr+8(FP), DI
	MOVQ c+24(FP), CX
	MOVQ rows+32(FP), R8
	MOVQ offs+40(FP), AX
	VMOVDQU (AX), X15
	MOVQ CX, R15
	ANDQ $3, R15
	SQ_MASK4(R15, X13)
	XORQ R9, R9
	XORQ R12, R12
ybgroup:
	CMPQ R9, R8
	JGE ybdone
	SQ_GROUP4(ybm)
	MOVQ R9, AX
	IMULQ CX, AX
	LEAQ (SI)(AX*4), R10 // x, the group's first row
	LEAQ (DI)(AX*4), BX // g
	VXORPD Y0, Y0, Y0 // s²
	VXORPD Y7, Y7, Y7 // g·x
	XORQ R11, R11
ybsum:
	VMOVDQA X14, X2
	VXORPS X1, X1, X1
	VGATHERDPS X2, (R10)(X15*4), X1
	VMOVDQA X14, X2
	VXORPS X8, X8, X8
	VGATHERDPS X2, (BX)(X15*4), X8
	VCVTPS2PD X1, Y1
	VCVTPS2PD X8, Y8
	VMULPD Y8, Y1, Y8 // x·g
	VMULPD Y1, Y1, Y1
	VADDPD Y1, Y0, Y0
	VADDPD Y8, Y7, Y7
	ADDQ $4, R10
	ADDQ $4, BX
	INCQ R11
	CMPQ R11, CX
	JLT ybsum
	SQ_GOOD4
	VSQRTPD Y0, Y0 // s
	VBROADCASTSD sqConst<>+0(SB), Y3 // 1
	VDIVPD Y0, Y3, Y4 // 1/s
	VADDPD Y4, Y0, Y5 // s + 1/s
	VDIVPD Y5, Y3, Y6 // h = 1/(s + 1/s)
	VXORPD Y2, Y2, Y2
	VCMPPD $0x00, Y2, Y0, Y8
	VBLENDVPD Y8, Y2, Y6, Y6 // h = 0 at s = 0
	VMOVUPD Y6, (SP)
	// b = ((1/s − s)/(s + 1/s)/(1 + s·s))·(g·x)/s for s > 1e-150, else 0
	VSUBPD Y0, Y4, Y9 // 1/s − s
	VDIVPD Y5, Y9, Y9
	VMULPD Y0, Y0, Y10
	VADDPD Y10, Y3, Y10 // 1 + s·s
	VDIVPD Y10, Y9, Y9 // h'(s)
	VMULPD Y7, Y9, Y9 // h'·(g·x)
	VDIVPD Y0, Y9, Y9 // /s
	VBROADCASTSD sqConst<>+24(SB), Y2
	VCMPPD $0x1e, Y2, Y0, Y8 // s > 1e-150
	VANDPD Y8, Y9, Y9
	VMOVUPD Y9, 32(SP) // b per lane
	XORQ R11, R11
ybrow:
	BTQ R11, R14
	JNC ybnextrow
	LEAQ (SP), AX
	VBROADCASTSD (AX)(R11*8), Y5 // h
	VBROADCASTSD 32(AX)(R11*8), Y12 // b
	MOVQ R9, AX
	ADDQ R11, AX
	IMULQ CX, AX
	LEAQ (SI)(AX*4), R10 // x
	LEAQ (DI)(AX*4), BX // g
	MOVQ gx+16(FP), DX
	LEAQ (DX)(AX*4), DX // gx
	MOVQ CX, AX
	SHRQ $2, AX
	JZ ybtail
ybval:
	VCVTPS2PD (BX), Y6
	VMULPD Y6, Y5, Y6 // h·g
	VCVTPS2PD (R10), Y11
	VMULPD Y11, Y12, Y11 // b·x
	VADDPD Y11, Y6, Y6
	VCVTPD2PSY Y6, X6
	VADDPS (DX), X6, X6
	VMOVUPS X6, (DX)
	ADDQ $16, R10
	ADDQ $16, BX
	ADDQ $16, DX
	DECQ AX
	JNZ ybval
ybtail:
	TESTQ R15, R15
	JZ ybnextrow
	VMASKMOVPS (BX), X13, X6
	VCVTPS2PD X6, Y6
	VMULPD Y6, Y5, Y6
	VMASKMOVPS (R10), X13, X11
	VCVTPS2PD X11, Y11
	VMULPD Y11, Y12, Y11
	VADDPD Y11, Y6, Y6
	VCVTPD2PSY Y6, X6
	VMASKMOVPS (DX), X13, X11
	VADDPS X11, X6, X6
	VMASKMOVPS X6, X13, (DX)
ybnextrow:
	INCQ R11
	CMPQ R11, R13
	JLT ybrow
	ADDQ $4, R9
	JMP ybgroup
ybdone:
	MOVQ R12, left+48(FP)
	VZEROUPPER
	RET
