//go:build !purego

#include "textflag.h"

// The default gate (K = 4, all three terms) in float32 training, one link
// per iteration with its four perspectives in the lanes of a float64
// vector. Each lane does the float64 operations of routing_gate4.go in
// their order, with separate multiplies and adds (no FMA), and every sum
// over the perspectives is formed lane by lane in the Go code's order
// ((0 + x0) + x1) + x2) + x3, so the kernels give its bits
// (TestLinkGate4MatchesGeneric). The operands are a gate4Args (offsets
// below, checked by TestGate4ArgsLayout).

#define A_KAP 0
#define A_H 8
#define A_A 16
#define A_G 24
#define A_GA 32
#define A_C 40
#define A_LC 48
#define A_SIG 56
#define A_OUT 64
#define A_GKAP 72
#define A_GA_OUT 80
#define A_GC 88
#define A_GH 96
#define A_N 104
#define A_BETA 112
#define A_WC0 144
#define A_WC1 176
#define A_WC2 208
#define A_WC3 240
#define A_AC 272
#define A_AA 280
#define A_AR 288
#define A_PART0 296
#define A_PART4 328
#define A_PART6 344
#define A_PART7 352
#define A_PART11 384
#define A_PART15 416
#define A_PART19 448

DATA g4neghalf<>+0(SB)/8, $-0.5
DATA g4neghalf<>+8(SB)/8, $-0.5
DATA g4neghalf<>+16(SB)/8, $-0.5
DATA g4neghalf<>+24(SB)/8, $-0.5
GLOBL g4neghalf<>(SB), RODATA|NOPTR, $32

DATA g4ones<>+0(SB)/8, $1.0
DATA g4ones<>+8(SB)/8, $1.0
DATA g4ones<>+16(SB)/8, $1.0
DATA g4ones<>+24(SB)/8, $1.0
GLOBL g4ones<>(SB), RODATA|NOPTR, $32

DATA g4sign<>+0(SB)/8, $0x8000000000000000
DATA g4sign<>+8(SB)/8, $0x8000000000000000
DATA g4sign<>+16(SB)/8, $0x8000000000000000
DATA g4sign<>+24(SB)/8, $0x8000000000000000
GLOBL g4sign<>(SB), RODATA|NOPTR, $32

// ∂α factors: ∂α_c −= ½·dac, ∂α_a += daa, ∂α_r += ℓ·dlc (lane 2 is set to ℓ).
DATA g4dafac<>+0(SB)/8, $-0.5
DATA g4dafac<>+8(SB)/8, $1.0
DATA g4dafac<>+16(SB)/8, $0.0
DATA g4dafac<>+24(SB)/8, $0.0
GLOBL g4dafac<>(SB), RODATA|NOPTR, $32

DATA g4eps<>+0(SB)/8, $1e-9
GLOBL g4eps<>(SB), RODATA|NOPTR, $8

// LANE_MUL_ADD adds lane i (imm = i·0x55) of src, broadcast, times mul to
// acc. Scratch: t.
#define LANE_MUL_ADD(imm, src, mul, acc, t) \
	VPERMPD imm, src, t; \
	VMULPD mul, t, t; \
	VADDPD t, acc, acc

// RPRE sets r = ρ = h·WC for the link's h (float64 in h): r = 0, then
// r += h_k'·WC[k',:] for k' = 0..3. Scratch: t.
#define RPRE(h, r, t) \
	VXORPD r, r, r; \
	LANE_MUL_ADD($0x00, h, A_WC0(SI), r, t); \
	LANE_MUL_ADD($0x55, h, A_WC1(SI), r, t); \
	LANE_MUL_ADD($0xAA, h, A_WC2(SI), r, t); \
	LANE_MUL_ADD($0xFF, h, A_WC3(SI), r, t)

// SUM4 sets out = (((0 + a_i) + b_i) + c_i) + d_i... transposed: lane i of
// out is the sum over the lanes of the i-th operand, ((0 + x0) + x1) + x2)
// + x3, for the four operands a, b, c, d (all clobbered, as are t0, t1).
#define SUM4(a, b, c, d, t0, t1, out) \
	VUNPCKLPD b, a, t0; \
	VUNPCKHPD b, a, t1; \
	VUNPCKLPD d, c, a; \
	VUNPCKHPD d, c, b; \
	VPERM2F128 $0x20, a, t0, c; \
	VPERM2F128 $0x20, b, t1, d; \
	VPERM2F128 $0x31, a, t0, t0; \
	VPERM2F128 $0x31, b, t1, t1; \
	VXORPD out, out, out; \
	VADDPD c, out, out; \
	VADDPD d, out, out; \
	VADDPD t0, out, out; \
	VADDPD t1, out, out

// func gate4LogitsAVX(p *gate4Args)
//
// sig[e] = α_c·((−½d)·d) + α_a·A_e + (α_r·ℓ_e)·ρ_e with d = κ̂_e − β, for
// the n links (logits4).
TEXT ·gate4LogitsAVX(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), SI
	MOVQ A_KAP(SI), AX
	MOVQ A_H(SI), BX
	MOVQ A_A(SI), DX
	MOVQ A_LC(SI), R13
	MOVQ A_SIG(SI), R10
	MOVQ A_N(SI), CX
	VBROADCASTSD A_AC(SI), Y13
	VBROADCASTSD A_AA(SI), Y14
	VMOVUPD A_BETA(SI), Y15
	XORQ R8, R8 // 4·e
	TESTQ CX, CX
	JZ ldone
lloop:
	VCVTSS2SD (AX)(R8*1), X0, X0
	VBROADCASTSD X0, Y0
	VSUBPD Y15, Y0, Y0 // d = κ̂ − β
	VMULPD g4neghalf<>(SB), Y0, Y1
	VMULPD Y0, Y1, Y1
	VMULPD Y13, Y1, Y1 // α_c·((−½d)·d)
	VCVTPS2PD (DX)(R8*4), Y2
	VMULPD Y14, Y2, Y2
	VADDPD Y2, Y1, Y1 // + α_a·A
	VCVTPS2PD (BX)(R8*4), Y3
	RPRE(Y3, Y4, Y5)
	VMOVSD (R13)(R8*2), X5
	VMULSD A_AR(SI), X5, X5 // f = α_r·ℓ
	VBROADCASTSD X5, Y5
	VMULPD Y4, Y5, Y5
	VADDPD Y5, Y1, Y1 // + f·ρ
	VMOVUPD Y1, (R10)(R8*8)
	ADDQ $4, R8
	DECQ CX
	JNZ lloop
ldone:
	VZEROUPPER
	RET

// func gate4NormAVX(p *gate4Args)
//
// out[e] = float32(σ_e / Σσ_e) for the n links, σ in sig (sigmoidNormalise).
TEXT ·gate4NormAVX(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), SI
	MOVQ A_SIG(SI), R10
	MOVQ A_OUT(SI), DI
	MOVQ A_N(SI), CX
	XORQ R8, R8 // 4·e
	TESTQ CX, CX
	JZ ndone
nloop:
	VMOVUPD (R10)(R8*8), Y0
	VXORPD X1, X1, X1
	VADDSD X0, X1, X1
	VPERMILPD $1, X0, X2
	VADDSD X2, X1, X1
	VEXTRACTF128 $1, Y0, X3
	VADDSD X3, X1, X1
	VPERMILPD $1, X3, X3
	VADDSD X3, X1, X1 // Σσ
	VBROADCASTSD X1, Y1
	VDIVPD Y1, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS X0, (DI)(R8*4)
	ADDQ $4, R8
	DECQ CX
	JNZ nloop
ndone:
	VZEROUPPER
	RET

// func gate4BackAVX(p *gate4Args)
//
// backwardBlocks4 for the n links of one block: the links' gradients are
// added to gKap, gA, gC and gH (each skipped when nil) and the block's
// partial parameter gradients are written to part (∂β, ∂α, ∂WC). Vector
// registers: Y15 ∂β, Y10 ∂α (lanes 0-2), Y11-Y14 the rows of ∂WC, Y4 ∂L,
// Y0 h; the rest scratch.
TEXT ·gate4BackAVX(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), SI
	MOVQ A_KAP(SI), AX
	MOVQ A_H(SI), BX
	MOVQ A_G(SI), DX
	MOVQ A_GA(SI), DI
	MOVQ A_A(SI), R11
	MOVQ A_C(SI), R12
	MOVQ A_LC(SI), R13
	MOVQ A_SIG(SI), R10
	MOVQ A_N(SI), CX
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
	XORQ R8, R8 // 4·e
	TESTQ CX, CX
	JZ bdone
bloop:
	VCVTPS2PD (BX)(R8*4), Y0 // h
	RPRE(Y0, Y1, Y2)         // Y1 = ρ
	VMOVUPD (R10)(R8*8), Y3  // σ
	VCVTPS2PD (DX)(R8*4), Y4 // dγ
	VCVTPS2PD (DI)(R8*4), Y5 // γ
	VMULPD Y5, Y4, Y5        // dγ_k·γ_k
	// [G, D]: ((0 + [σ0, p0]) + [σ1, p1]) + [σ2, p2]) + [σ3, p3]
	VUNPCKLPD Y5, Y3, Y6
	VUNPCKHPD Y5, Y3, Y7
	VXORPD X8, X8, X8
	VADDPD X6, X8, X8
	VADDPD X7, X8, X8
	VEXTRACTF128 $1, Y6, X6
	VEXTRACTF128 $1, Y7, X7
	VADDPD X6, X8, X8
	VADDPD X7, X8, X8
	VPERMPD $0x00, Y8, Y6 // G
	VPERMPD $0x55, Y8, Y7 // D
	// ∂L = (((dγ − D)/G)·σ)·(1 − σ)
	VSUBPD Y7, Y4, Y4
	VDIVPD Y6, Y4, Y4
	VMULPD Y3, Y4, Y4
	VMOVUPD g4ones<>(SB), Y6
	VSUBPD Y3, Y6, Y6
	VMULPD Y6, Y4, Y4
	// x = κ̂ − β; ∂β += (α_c·∂L)·x
	VCVTSS2SD (AX)(R8*1), X6, X6
	VBROADCASTSD X6, Y6
	VSUBPD A_BETA(SI), Y6, Y6
	VMULPD Y6, Y4, Y7 // ∂L·x
	VBROADCASTSD A_AC(SI), Y8
	VMULPD Y4, Y8, Y8
	VMULPD Y6, Y8, Y8
	VADDPD Y8, Y15, Y15
	// the four per-link sums [dk, dac, daa, dlc] of −∂L·x, (∂L·x)·x, ∂L·A, ∂L·ρ
	VXORPD g4sign<>(SB), Y7, Y8
	VMULPD Y6, Y7, Y9
	VCVTPS2PD (R11)(R8*4), Y6
	VMULPD Y6, Y4, Y6
	VMULPD Y1, Y4, Y7
	SUM4(Y8, Y9, Y6, Y7, Y2, Y3, Y5) // Y5 = [dk, dac, daa, dlc]
	// ∂κ̂ += float32(α_c·dk)
	MOVQ A_GKAP(SI), R9
	TESTQ R9, R9
	JZ bnokap
	VMULSD A_AC(SI), X5, X2
	VCVTSD2SS X2, X2, X2
	VADDSS (R9)(R8*1), X2, X2
	VMOVSS X2, (R9)(R8*1)
bnokap:
	// ∂α += [−½·dac, daa, ℓ·dlc, ·]
	VMOVSD (R13)(R8*2), X6 // ℓ
	VBROADCASTSD X6, Y6
	VMOVUPD g4dafac<>(SB), Y7
	VBLENDPD $0x4, Y6, Y7, Y7
	VPERMPD $0x39, Y5, Y8 // [dac, daa, dlc, dk]
	VMULPD Y7, Y8, Y8
	VADDPD Y8, Y10, Y10
	// ∂c += float32((α_r·dlc)/(c + 1e-9))
	TESTQ R12, R12
	JZ bnoc
	MOVQ A_GC(SI), R9
	TESTQ R9, R9
	JZ bnoc
	VEXTRACTF128 $1, Y5, X2
	VPERMILPD $1, X2, X2
	VMULSD A_AR(SI), X2, X2
	VCVTSS2SD (R12)(R8*1), X3, X3
	VADDSD g4eps<>(SB), X3, X3
	VDIVSD X3, X2, X2
	VCVTSD2SS X2, X2, X2
	VADDSS (R9)(R8*1), X2, X2
	VMOVSS X2, (R9)(R8*1)
bnoc:
	// ∂A += float32(α_a·∂L)
	MOVQ A_GA_OUT(SI), R9
	TESTQ R9, R9
	JZ bnoa
	VBROADCASTSD A_AA(SI), Y2
	VMULPD Y4, Y2, Y2
	VCVTPD2PSY Y2, X2
	VADDPS (R9)(R8*4), X2, X2
	VMOVUPS X2, (R9)(R8*4)
bnoa:
	// f = α_r·ℓ; ∂WC[k',:] += (f·h_k')·∂L
	VMULSD A_AR(SI), X6, X6
	VBROADCASTSD X6, Y6 // f
	VMULPD Y0, Y6, Y0   // f·h
	LANE_MUL_ADD($0x00, Y0, Y4, Y11, Y2)
	LANE_MUL_ADD($0x55, Y0, Y4, Y12, Y2)
	LANE_MUL_ADD($0xAA, Y0, Y4, Y13, Y2)
	LANE_MUL_ADD($0xFF, Y0, Y4, Y14, Y2)
	// ∂h += float32(f·sh), sh_k' = Σ_k ∂L_k·WC[k',k]
	MOVQ A_GH(SI), R9
	TESTQ R9, R9
	JZ bnoh
	VMULPD A_WC0(SI), Y4, Y0
	VMULPD A_WC1(SI), Y4, Y1
	VMULPD A_WC2(SI), Y4, Y2
	VMULPD A_WC3(SI), Y4, Y3
	SUM4(Y0, Y1, Y2, Y3, Y5, Y7, Y8)
	VMULPD Y8, Y6, Y8
	VCVTPD2PSY Y8, X8
	VADDPS (R9)(R8*4), X8, X8
	VMOVUPS X8, (R9)(R8*4)
bnoh:
	ADDQ $4, R8
	DECQ CX
	JNZ bloop
bdone:
	VMOVUPD Y15, A_PART0(SI)
	VMOVUPD X10, A_PART4(SI)
	VEXTRACTF128 $1, Y10, X10
	VMOVSD X10, A_PART6(SI)
	VMOVUPD Y11, A_PART7(SI)
	VMOVUPD Y12, A_PART11(SI)
	VMOVUPD Y13, A_PART15(SI)
	VMOVUPD Y14, A_PART19(SI)
	VZEROUPPER
	RET
