//go:build !purego

#include "textflag.h"
#include "routing_gate32_amd64.h"

// The float32 gate's kernels on AVX2 (routing_gate32.go): two links a
// vector, link j of a pair in lanes 4j … 4j+3, each lane doing the Go
// kernels' float32 operations in their order, as the AVX-512 kernels of
// routing_gate32_amd64.s do four links at a time, so all three give the same
// bits (TestGate32Kernels). The backward kernel takes four links an
// iteration, the first pair into the accumulators' lane groups 0-1 and the
// second into 2-3, which the groups' links mod 4 are. The operands are a
// gate32Args (offsets in routing_gate32_amd64.h); the kernels run the
// first n &^ 3 links.

#define V_SIGN 0
#define V_LOG2E 32
#define V_LN2HI 64
#define V_LN2LO 96
#define V_ONE 128
#define V_BIAS 160
#define V_P0 192
#define V_P1 224
#define V_P2 256
#define V_P3 288
#define V_P4 320
#define V_P5 352
#define V_P6 384
#define V_P7 416
#define V_EPS 448
#define V_MIN 480
#define V_NHALF 512

// g32v: the AVX2 kernels' constants as eight-lane vectors (32 bytes each, at
// the offsets V_*): the sign bit, log₂e, ln 2 in two parts, 1, the exponent
// bias, 1/k! for k = 7 … 0, 1e-9, −87 and −½.
DATA g32v<>+0(SB)/4, $0x80000000
DATA g32v<>+4(SB)/4, $0x80000000
DATA g32v<>+8(SB)/4, $0x80000000
DATA g32v<>+12(SB)/4, $0x80000000
DATA g32v<>+16(SB)/4, $0x80000000
DATA g32v<>+20(SB)/4, $0x80000000
DATA g32v<>+24(SB)/4, $0x80000000
DATA g32v<>+28(SB)/4, $0x80000000
DATA g32v<>+32(SB)/4, $0x3fb8aa3b
DATA g32v<>+36(SB)/4, $0x3fb8aa3b
DATA g32v<>+40(SB)/4, $0x3fb8aa3b
DATA g32v<>+44(SB)/4, $0x3fb8aa3b
DATA g32v<>+48(SB)/4, $0x3fb8aa3b
DATA g32v<>+52(SB)/4, $0x3fb8aa3b
DATA g32v<>+56(SB)/4, $0x3fb8aa3b
DATA g32v<>+60(SB)/4, $0x3fb8aa3b
DATA g32v<>+64(SB)/4, $0x3f317200
DATA g32v<>+68(SB)/4, $0x3f317200
DATA g32v<>+72(SB)/4, $0x3f317200
DATA g32v<>+76(SB)/4, $0x3f317200
DATA g32v<>+80(SB)/4, $0x3f317200
DATA g32v<>+84(SB)/4, $0x3f317200
DATA g32v<>+88(SB)/4, $0x3f317200
DATA g32v<>+92(SB)/4, $0x3f317200
DATA g32v<>+96(SB)/4, $0x35bfbe8e
DATA g32v<>+100(SB)/4, $0x35bfbe8e
DATA g32v<>+104(SB)/4, $0x35bfbe8e
DATA g32v<>+108(SB)/4, $0x35bfbe8e
DATA g32v<>+112(SB)/4, $0x35bfbe8e
DATA g32v<>+116(SB)/4, $0x35bfbe8e
DATA g32v<>+120(SB)/4, $0x35bfbe8e
DATA g32v<>+124(SB)/4, $0x35bfbe8e
DATA g32v<>+128(SB)/4, $0x3f800000
DATA g32v<>+132(SB)/4, $0x3f800000
DATA g32v<>+136(SB)/4, $0x3f800000
DATA g32v<>+140(SB)/4, $0x3f800000
DATA g32v<>+144(SB)/4, $0x3f800000
DATA g32v<>+148(SB)/4, $0x3f800000
DATA g32v<>+152(SB)/4, $0x3f800000
DATA g32v<>+156(SB)/4, $0x3f800000
DATA g32v<>+160(SB)/4, $127
DATA g32v<>+164(SB)/4, $127
DATA g32v<>+168(SB)/4, $127
DATA g32v<>+172(SB)/4, $127
DATA g32v<>+176(SB)/4, $127
DATA g32v<>+180(SB)/4, $127
DATA g32v<>+184(SB)/4, $127
DATA g32v<>+188(SB)/4, $127
DATA g32v<>+192(SB)/4, $0x39500d01
DATA g32v<>+196(SB)/4, $0x39500d01
DATA g32v<>+200(SB)/4, $0x39500d01
DATA g32v<>+204(SB)/4, $0x39500d01
DATA g32v<>+208(SB)/4, $0x39500d01
DATA g32v<>+212(SB)/4, $0x39500d01
DATA g32v<>+216(SB)/4, $0x39500d01
DATA g32v<>+220(SB)/4, $0x39500d01
DATA g32v<>+224(SB)/4, $0x3ab60b61
DATA g32v<>+228(SB)/4, $0x3ab60b61
DATA g32v<>+232(SB)/4, $0x3ab60b61
DATA g32v<>+236(SB)/4, $0x3ab60b61
DATA g32v<>+240(SB)/4, $0x3ab60b61
DATA g32v<>+244(SB)/4, $0x3ab60b61
DATA g32v<>+248(SB)/4, $0x3ab60b61
DATA g32v<>+252(SB)/4, $0x3ab60b61
DATA g32v<>+256(SB)/4, $0x3c088889
DATA g32v<>+260(SB)/4, $0x3c088889
DATA g32v<>+264(SB)/4, $0x3c088889
DATA g32v<>+268(SB)/4, $0x3c088889
DATA g32v<>+272(SB)/4, $0x3c088889
DATA g32v<>+276(SB)/4, $0x3c088889
DATA g32v<>+280(SB)/4, $0x3c088889
DATA g32v<>+284(SB)/4, $0x3c088889
DATA g32v<>+288(SB)/4, $0x3d2aaaab
DATA g32v<>+292(SB)/4, $0x3d2aaaab
DATA g32v<>+296(SB)/4, $0x3d2aaaab
DATA g32v<>+300(SB)/4, $0x3d2aaaab
DATA g32v<>+304(SB)/4, $0x3d2aaaab
DATA g32v<>+308(SB)/4, $0x3d2aaaab
DATA g32v<>+312(SB)/4, $0x3d2aaaab
DATA g32v<>+316(SB)/4, $0x3d2aaaab
DATA g32v<>+320(SB)/4, $0x3e2aaaab
DATA g32v<>+324(SB)/4, $0x3e2aaaab
DATA g32v<>+328(SB)/4, $0x3e2aaaab
DATA g32v<>+332(SB)/4, $0x3e2aaaab
DATA g32v<>+336(SB)/4, $0x3e2aaaab
DATA g32v<>+340(SB)/4, $0x3e2aaaab
DATA g32v<>+344(SB)/4, $0x3e2aaaab
DATA g32v<>+348(SB)/4, $0x3e2aaaab
DATA g32v<>+352(SB)/4, $0x3f000000
DATA g32v<>+356(SB)/4, $0x3f000000
DATA g32v<>+360(SB)/4, $0x3f000000
DATA g32v<>+364(SB)/4, $0x3f000000
DATA g32v<>+368(SB)/4, $0x3f000000
DATA g32v<>+372(SB)/4, $0x3f000000
DATA g32v<>+376(SB)/4, $0x3f000000
DATA g32v<>+380(SB)/4, $0x3f000000
DATA g32v<>+384(SB)/4, $0x3f800000
DATA g32v<>+388(SB)/4, $0x3f800000
DATA g32v<>+392(SB)/4, $0x3f800000
DATA g32v<>+396(SB)/4, $0x3f800000
DATA g32v<>+400(SB)/4, $0x3f800000
DATA g32v<>+404(SB)/4, $0x3f800000
DATA g32v<>+408(SB)/4, $0x3f800000
DATA g32v<>+412(SB)/4, $0x3f800000
DATA g32v<>+416(SB)/4, $0x3f800000
DATA g32v<>+420(SB)/4, $0x3f800000
DATA g32v<>+424(SB)/4, $0x3f800000
DATA g32v<>+428(SB)/4, $0x3f800000
DATA g32v<>+432(SB)/4, $0x3f800000
DATA g32v<>+436(SB)/4, $0x3f800000
DATA g32v<>+440(SB)/4, $0x3f800000
DATA g32v<>+444(SB)/4, $0x3f800000
DATA g32v<>+448(SB)/4, $0x3089705f
DATA g32v<>+452(SB)/4, $0x3089705f
DATA g32v<>+456(SB)/4, $0x3089705f
DATA g32v<>+460(SB)/4, $0x3089705f
DATA g32v<>+464(SB)/4, $0x3089705f
DATA g32v<>+468(SB)/4, $0x3089705f
DATA g32v<>+472(SB)/4, $0x3089705f
DATA g32v<>+476(SB)/4, $0x3089705f
DATA g32v<>+480(SB)/4, $0xc2ae0000
DATA g32v<>+484(SB)/4, $0xc2ae0000
DATA g32v<>+488(SB)/4, $0xc2ae0000
DATA g32v<>+492(SB)/4, $0xc2ae0000
DATA g32v<>+496(SB)/4, $0xc2ae0000
DATA g32v<>+500(SB)/4, $0xc2ae0000
DATA g32v<>+504(SB)/4, $0xc2ae0000
DATA g32v<>+508(SB)/4, $0xc2ae0000
DATA g32v<>+512(SB)/4, $0xbf000000
DATA g32v<>+516(SB)/4, $0xbf000000
DATA g32v<>+520(SB)/4, $0xbf000000
DATA g32v<>+524(SB)/4, $0xbf000000
DATA g32v<>+528(SB)/4, $0xbf000000
DATA g32v<>+532(SB)/4, $0xbf000000
DATA g32v<>+536(SB)/4, $0xbf000000
DATA g32v<>+540(SB)/4, $0xbf000000
GLOBL g32v<>(SB), RODATA|NOPTR, $544

// g32bidx2 spreads two links' scalars over their lane groups; g32cidx2 gathers
// the first lane of each group into lanes 0-1 (VPERMPS).
DATA g32bidx2<>+0(SB)/4, $0
DATA g32bidx2<>+4(SB)/4, $0
DATA g32bidx2<>+8(SB)/4, $0
DATA g32bidx2<>+12(SB)/4, $0
DATA g32bidx2<>+16(SB)/4, $1
DATA g32bidx2<>+20(SB)/4, $1
DATA g32bidx2<>+24(SB)/4, $1
DATA g32bidx2<>+28(SB)/4, $1
GLOBL g32bidx2<>(SB), RODATA|NOPTR, $32
DATA g32cidx2<>+0(SB)/4, $0
DATA g32cidx2<>+4(SB)/4, $4
DATA g32cidx2<>+8(SB)/4, $0
DATA g32cidx2<>+12(SB)/4, $0
DATA g32cidx2<>+16(SB)/4, $0
DATA g32cidx2<>+20(SB)/4, $0
DATA g32cidx2<>+24(SB)/4, $0
DATA g32cidx2<>+28(SB)/4, $0
GLOBL g32cidx2<>(SB), RODATA|NOPTR, $32

// RHOY sets r = ρ = h·WC (WC's rows from the operands) for the links' h in
// h: r = h₀·WC₀, then r += h_k'·WC_k'. Scratch: t.
#define RHOY(h, r, t) \
	VPERMILPS $0x00, h, r; \
	VMULPS G_WC+0(SI), r, r; \
	VPERMILPS $0x55, h, t; \
	VMULPS G_WC+64(SI), t, t; \
	VADDPS t, r, r; \
	VPERMILPS $0xAA, h, t; \
	VMULPS G_WC+128(SI), t, t; \
	VADDPS t, r, r; \
	VPERMILPS $0xFF, h, t; \
	VMULPS G_WC+192(SI), t, t; \
	VADDPS t, r, r

// HORNERY is one step of e^r's polynomial: p = p·r + c, p in Y6, r in Y5.
#define HORNERY(off) \
	VMULPS Y5, Y6, Y6; \
	VADDPS g32v<>+off(SB), Y6, Y6

// func gate32FwdAVX2(a *gate32Args)
//
// gate32FwdAVX512 on AVX2, two links a step. Registers: Y9 −½, Y10-Y12
// α_r, α_a, α_c, Y13 the sign bit, Y14 −87, Y15 the link-broadcast index;
// Y0-Y8 scratch.
TEXT ·gate32FwdAVX2(SB), NOSPLIT, $0-8
	G32_ARGS
	SHRQ $2, CX
	SHLQ $1, CX // pairs
	JZ vfdone
	VMOVDQU g32bidx2<>(SB), Y15
	VMOVUPS g32v<>+V_MIN(SB), Y14
	VMOVUPS g32v<>+V_SIGN(SB), Y13
	VBROADCASTSS G_AC(SI), Y12
	VBROADCASTSS G_AA(SI), Y11
	VBROADCASTSS G_AR(SI), Y10
	VMOVUPS g32v<>+V_NHALF(SB), Y9
vfloop:
	// L = α_c·((−½d)·d) + α_a·A, d = κ̂ − β (κ̂ = 0 without kap)
	VXORPS Y1, Y1, Y1
	TESTQ AX, AX
	JZ vfkap0
	VMOVSD (AX), X0
	VPERMPS Y0, Y15, Y1
	ADDQ $8, AX
vfkap0:
	VSUBPS G_BETA(SI), Y1, Y1
	VMULPS Y9, Y1, Y2
	VMULPS Y1, Y2, Y2
	VMULPS Y12, Y2, Y2
	VMULPS (DX), Y11, Y3
	VADDPS Y3, Y2, Y2
	// + f·ρ, f = α_r·ℓ (without lc, no such term)
	TESTQ R13, R13
	JZ vfnor
	VMOVUPS (BX), Y4
	RHOY(Y4, Y6, Y5)
	VCVTPD2PSX (R13), X5
	VPERMPS Y5, Y15, Y5
	VMULPS Y10, Y5, Y5
	VMULPS Y6, Y5, Y5
	VADDPS Y5, Y2, Y2
	ADDQ $32, BX
	ADDQ $16, R13
vfnor:
	// σ(L) as in gate32FwdAVX512
	VORPS Y13, Y2, Y3
	VMAXPS Y3, Y14, Y3
	VMULPS g32v<>+V_LOG2E(SB), Y3, Y4
	VROUNDPS $0, Y4, Y4
	VMULPS g32v<>+V_LN2HI(SB), Y4, Y5
	VSUBPS Y5, Y3, Y5
	VMULPS g32v<>+V_LN2LO(SB), Y4, Y6
	VSUBPS Y6, Y5, Y5
	VMOVUPS g32v<>+V_P0(SB), Y6
	HORNERY(V_P1)
	HORNERY(V_P2)
	HORNERY(V_P3)
	HORNERY(V_P4)
	HORNERY(V_P5)
	HORNERY(V_P6)
	HORNERY(V_P7)
	VCVTPS2DQ Y4, Y7
	VPADDD g32v<>+V_BIAS(SB), Y7, Y7
	VPSLLD $23, Y7, Y7
	VMULPS Y7, Y6, Y6
	VADDPS g32v<>+V_ONE(SB), Y6, Y7
	VMOVUPS g32v<>+V_ONE(SB), Y8
	VDIVPS Y7, Y8, Y7
	VMULPS Y7, Y6, Y6
	VBLENDVPS Y2, Y6, Y7, Y8
	VMOVUPS Y8, (R10)
	TESTQ DI, DI
	JZ vfnoout
	SUM4(Y8, Y0, Y1)
	VDIVPS Y0, Y8, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, DI
vfnoout:
	ADDQ $32, DX
	ADDQ $32, R10
	DECQ CX
	JNZ vfloop
vfdone:
	VZEROUPPER
	RET

// BPAIR is gate32BackAVX512's step for the two links at R8/4 (R8 = 4·the
// first's index), their terms into the accumulators' lane groups at byte
// offset off (0: groups 0-1, 32: groups 2-3). Registers: Y9 −½, Y10-Y12
// α_r, α_a, α_c, Y13 1, Y14 the compaction index, Y15 the link-broadcast
// index; Y0-Y8 scratch. The accumulators are in the operands: a lane left
// alone in the AVX-512 kernel gets +0 here, which leaves it as it is (an
// accumulator that starts at +0 never becomes −0).
#define BPAIR(off, lkap, lnokap, lnoa, lnoc, lnoh, lnext) \
	VMOVUPS (R10)(R8*4), Y0; \
	VMOVUPS (R11)(R8*4), Y1; \
	SUM4(Y0, Y2, Y3); \
	VMULPS (DI)(R8*4), Y1, Y3; \
	SUM4(Y3, Y4, Y5); \
	VSUBPS Y4, Y1, Y4; \
	VDIVPS Y2, Y4, Y4; \
	VMULPS Y0, Y4, Y4; \
	VSUBPS Y0, Y13, Y5; \
	VMULPS Y5, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	TESTQ AX, AX; \
	JZ lkap; \
	VMOVSD (AX)(R8*1), X5; \
	VPERMPS Y5, Y15, Y5; \
lkap: \
	VSUBPS G_BETA(SI), Y5, Y5; \
	VMULPS Y5, Y4, Y6; \
	VXORPS g32v<>+V_SIGN(SB), Y6, Y7; \
	SUM4(Y7, Y1, Y0); \
	VMULPS Y5, Y6, Y8; \
	SUM4(Y8, Y2, Y0); \
	VMULPS Y12, Y4, Y6; \
	VMULPS Y5, Y6, Y6; \
	VADDPS G_ACCB+off(SI), Y6, Y6; \
	VMOVUPS Y6, G_ACCB+off(SI); \
	VMULPS (DX)(R8*4), Y4, Y5; \
	SUM4(Y5, Y3, Y0); \
	VMULPS Y9, Y2, Y7; \
	VBLENDPS $0x22, Y3, Y7, Y7; \
	VXORPS Y8, Y8, Y8; \
	VBLENDPS $0xCC, Y8, Y7, Y7; \
	VADDPS G_ACCA+off(SI), Y7, Y7; \
	VMOVUPS Y7, G_ACCA+off(SI); \
	MOVQ G_GKAP(SI), R9; \
	TESTQ R9, R9; \
	JZ lnokap; \
	VMULPS Y12, Y1, Y7; \
	VPERMPS Y7, Y14, Y7; \
	VMOVSD (R9)(R8*1), X8; \
	VADDPS X8, X7, X7; \
	VMOVSD X7, (R9)(R8*1); \
lnokap: \
	MOVQ G_GA(SI), R9; \
	TESTQ R9, R9; \
	JZ lnoa; \
	VMULPS Y11, Y4, Y7; \
	VADDPS (R9)(R8*4), Y7, Y7; \
	VMOVUPS Y7, (R9)(R8*4); \
lnoa: \
	TESTQ R13, R13; \
	JZ lnext; \
	VMOVUPS (BX)(R8*4), Y6; \
	RHOY(Y6, Y7, Y8); \
	VMULPS Y7, Y4, Y8; \
	SUM4(Y8, Y3, Y0); \
	VCVTPD2PSX (R13)(R8*2), X5; \
	VPERMPS Y5, Y15, Y5; \
	VMULPS Y5, Y3, Y8; \
	VXORPS Y7, Y7, Y7; \
	VBLENDPS $0x44, Y8, Y7, Y8; \
	VADDPS G_ACCA+off(SI), Y8, Y8; \
	VMOVUPS Y8, G_ACCA+off(SI); \
	MOVQ G_GC(SI), R9; \
	TESTQ R9, R9; \
	JZ lnoc; \
	VMULPS Y10, Y3, Y7; \
	VPERMPS Y7, Y14, Y7; \
	VMOVSD (R12)(R8*1), X8; \
	VADDPS g32v<>+V_EPS(SB), X8, X8; \
	VDIVPS X8, X7, X7; \
	VMOVSD (R9)(R8*1), X8; \
	VADDPS X8, X7, X7; \
	VMOVSD X7, (R9)(R8*1); \
lnoc: \
	VMULPS Y10, Y5, Y5; \
	VMULPS Y5, Y6, Y6; \
	VPERMILPS $0x00, Y6, Y7; \
	VMULPS Y4, Y7, Y7; \
	VADDPS G_ACCW+0+off(SI), Y7, Y7; \
	VMOVUPS Y7, G_ACCW+0+off(SI); \
	VPERMILPS $0x55, Y6, Y7; \
	VMULPS Y4, Y7, Y7; \
	VADDPS G_ACCW+64+off(SI), Y7, Y7; \
	VMOVUPS Y7, G_ACCW+64+off(SI); \
	VPERMILPS $0xAA, Y6, Y7; \
	VMULPS Y4, Y7, Y7; \
	VADDPS G_ACCW+128+off(SI), Y7, Y7; \
	VMOVUPS Y7, G_ACCW+128+off(SI); \
	VPERMILPS $0xFF, Y6, Y7; \
	VMULPS Y4, Y7, Y7; \
	VADDPS G_ACCW+192+off(SI), Y7, Y7; \
	VMOVUPS Y7, G_ACCW+192+off(SI); \
	MOVQ G_GH(SI), R9; \
	TESTQ R9, R9; \
	JZ lnoh; \
	VPERMILPS $0x00, Y4, Y7; \
	VMULPS G_WCT+0(SI), Y7, Y7; \
	VPERMILPS $0x55, Y4, Y8; \
	VMULPS G_WCT+64(SI), Y8, Y8; \
	VADDPS Y8, Y7, Y7; \
	VPERMILPS $0xAA, Y4, Y8; \
	VMULPS G_WCT+128(SI), Y8, Y8; \
	VADDPS Y8, Y7, Y7; \
	VPERMILPS $0xFF, Y4, Y8; \
	VMULPS G_WCT+192(SI), Y8, Y8; \
	VADDPS Y8, Y7, Y7; \
	VMULPS Y5, Y7, Y7; \
	VADDPS (R9)(R8*4), Y7, Y7; \
	VMOVUPS Y7, (R9)(R8*4); \
lnoh: \
lnext: \
	ADDQ $8, R8

// func gate32BackAVX2(a *gate32Args)
//
// gate32BackAVX512 on AVX2, four links an iteration (BPAIR twice).
TEXT ·gate32BackAVX2(SB), NOSPLIT, $0-8
	G32_ARGS
	MOVQ G_C(SI), R12
	MOVQ G_G(SI), R11
	SHRQ $2, CX
	JZ vbdone
	VMOVDQU g32bidx2<>(SB), Y15
	VMOVDQU g32cidx2<>(SB), Y14
	VMOVUPS g32v<>+V_ONE(SB), Y13
	VBROADCASTSS G_AC(SI), Y12
	VBROADCASTSS G_AA(SI), Y11
	VBROADCASTSS G_AR(SI), Y10
	VMOVUPS g32v<>+V_NHALF(SB), Y9
	XORQ R8, R8
vbloop:
	BPAIR(0, vb0kap, vb0nokap, vb0noa, vb0noc, vb0noh, vb0next)
	BPAIR(32, vb1kap, vb1nokap, vb1noa, vb1noc, vb1noh, vb1next)
	DECQ CX
	JNZ vbloop
vbdone:
	VZEROUPPER
	RET
