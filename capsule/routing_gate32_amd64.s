//go:build !purego

#include "textflag.h"
#include "routing_gate32_amd64.h"

// The float32 gate (routing_gate32.go) on AVX-512: four links a vector,
// link j of a group in lanes 4j … 4j+3 with its perspectives in order. Each
// lane does the Go kernels' float32 operations in their order (separate
// multiplies and adds, no FMA), every sum over a link's perspectives is
// ((x₀ + x₁) + x₂) + x₃ (SUM4), and the parameter-gradient terms go into
// accumulators whose lane groups are gate32Args' (link e's into group
// e mod 4), so the kernels give the Go kernels' bits (TestGate32Kernels).
// The operands are a gate32Args (offsets in routing_gate32_amd64.h); the
// kernels run the first n &^ 3 links.

// g32bidx spreads four links' scalars (lanes 0-3) over their lane groups
// (VPERMPS: lanes 4j … 4j+3 take lane j).
DATA g32bidx<>+0(SB)/4, $0
DATA g32bidx<>+4(SB)/4, $0
DATA g32bidx<>+8(SB)/4, $0
DATA g32bidx<>+12(SB)/4, $0
DATA g32bidx<>+16(SB)/4, $1
DATA g32bidx<>+20(SB)/4, $1
DATA g32bidx<>+24(SB)/4, $1
DATA g32bidx<>+28(SB)/4, $1
DATA g32bidx<>+32(SB)/4, $2
DATA g32bidx<>+36(SB)/4, $2
DATA g32bidx<>+40(SB)/4, $2
DATA g32bidx<>+44(SB)/4, $2
DATA g32bidx<>+48(SB)/4, $3
DATA g32bidx<>+52(SB)/4, $3
DATA g32bidx<>+56(SB)/4, $3
DATA g32bidx<>+60(SB)/4, $3
GLOBL g32bidx<>(SB), RODATA|NOPTR, $64

// g32cidx gathers the first lane of each group into lanes 0-3 (VPERMPS).
DATA g32cidx<>+0(SB)/4, $0
DATA g32cidx<>+4(SB)/4, $4
DATA g32cidx<>+8(SB)/4, $8
DATA g32cidx<>+12(SB)/4, $12
DATA g32cidx<>+16(SB)/4, $0
DATA g32cidx<>+20(SB)/4, $0
DATA g32cidx<>+24(SB)/4, $0
DATA g32cidx<>+28(SB)/4, $0
DATA g32cidx<>+32(SB)/4, $0
DATA g32cidx<>+36(SB)/4, $0
DATA g32cidx<>+40(SB)/4, $0
DATA g32cidx<>+44(SB)/4, $0
DATA g32cidx<>+48(SB)/4, $0
DATA g32cidx<>+52(SB)/4, $0
DATA g32cidx<>+56(SB)/4, $0
DATA g32cidx<>+60(SB)/4, $0
GLOBL g32cidx<>(SB), RODATA|NOPTR, $64

// Scalars, broadcast where used: the sign bit, −87, log₂e, ln 2 in two
// parts, 1, the exponent bias, −½, 1e-9; then 1/k! for k = 7 … 0.
DATA g32c<>+0(SB)/4, $0x80000000
DATA g32c<>+4(SB)/4, $0xc2ae0000
DATA g32c<>+8(SB)/4, $0x3fb8aa3b
DATA g32c<>+12(SB)/4, $0x3f317200
DATA g32c<>+16(SB)/4, $0x35bfbe8e
DATA g32c<>+20(SB)/4, $0x3f800000
DATA g32c<>+24(SB)/4, $127
DATA g32c<>+28(SB)/4, $0xbf000000
DATA g32c<>+32(SB)/4, $0x3089705f
DATA g32c<>+36(SB)/4, $0x39500d01
DATA g32c<>+40(SB)/4, $0x3ab60b61
DATA g32c<>+44(SB)/4, $0x3c088889
DATA g32c<>+48(SB)/4, $0x3d2aaaab
DATA g32c<>+52(SB)/4, $0x3e2aaaab
DATA g32c<>+56(SB)/4, $0x3f000000
DATA g32c<>+60(SB)/4, $0x3f800000
DATA g32c<>+64(SB)/4, $0x3f800000
GLOBL g32c<>(SB), RODATA|NOPTR, $68

// RHO sets r = ρ = h·WC (WC's rows in Z16-Z19) for the links' h in h: r =
// h₀·WC₀, then r += h_k'·WC_k' for k' = 1, 2, 3. Scratch: t.
#define RHO(h, r, t) \
	VPERMILPS $0x00, h, r; \
	VMULPS Z16, r, r; \
	VPERMILPS $0x55, h, t; \
	VMULPS Z17, t, t; \
	VADDPS t, r, r; \
	VPERMILPS $0xAA, h, t; \
	VMULPS Z18, t, t; \
	VADDPS t, r, r; \
	VPERMILPS $0xFF, h, t; \
	VMULPS Z19, t, t; \
	VADDPS t, r, r

// HORNER is one step of e^r's polynomial: p = p·r + c, p in Z6, r in Z5,
// c the scalar at g32c+off (multiply, then add: sigmoid32's roundings).
#define HORNER(off) \
	VMULPS Z5, Z6, Z6; \
	VADDPS.BCST g32c<>+off(SB), Z6, Z6

// LOAD_WC loads WC's rows into Z16-Z19.
#define LOAD_WC \
	VMOVUPS G_WC+0(SI), Z16; \
	VMOVUPS G_WC+64(SI), Z17; \
	VMOVUPS G_WC+128(SI), Z18; \
	VMOVUPS G_WC+192(SI), Z19

// func gate32FwdAVX512(a *gate32Args)
//
// σ to sig and, unless out is nil, γ = σ/Σσ to out, for the first n &^ 3
// links (gate32Forward). Registers: Z15 the link-broadcast index, Z16-Z19
// WC, Z20 β, Z21-Z23 α_r, α_a, α_c, Z24 −½, Z25 the exponent bias, Z26 1,
// Z27-Z29 ln2lo, ln2hi, log₂e, Z30 −87, Z31 the sign bit; Z0-Z8 scratch.
TEXT ·gate32FwdAVX512(SB), NOSPLIT, $0-8
	G32_ARGS
	SHRQ $2, CX
	JZ fdone
	VMOVDQU32 g32bidx<>(SB), Z15
	LOAD_WC
	VMOVUPS G_BETA(SI), Z20
	VBROADCASTSS G_AR(SI), Z21
	VBROADCASTSS G_AA(SI), Z22
	VBROADCASTSS G_AC(SI), Z23
	VBROADCASTSS g32c<>+28(SB), Z24
	VPBROADCASTD g32c<>+24(SB), Z25
	VBROADCASTSS g32c<>+20(SB), Z26
	VBROADCASTSS g32c<>+16(SB), Z27
	VBROADCASTSS g32c<>+12(SB), Z28
	VBROADCASTSS g32c<>+8(SB), Z29
	VBROADCASTSS g32c<>+4(SB), Z30
	VPBROADCASTD g32c<>+0(SB), Z31
floop:
	// L = α_c·((−½d)·d) + α_a·A, d = κ̂ − β (κ̂ = 0 without kap)
	VPXORD Z1, Z1, Z1
	TESTQ AX, AX
	JZ fkap0
	VMOVUPS (AX), X0
	VPERMPS Z0, Z15, Z1
	ADDQ $16, AX
fkap0:
	VSUBPS Z20, Z1, Z1
	VMULPS Z24, Z1, Z2
	VMULPS Z1, Z2, Z2
	VMULPS Z23, Z2, Z2
	VMULPS (DX), Z22, Z3
	VADDPS Z3, Z2, Z2
	// + f·ρ, f = α_r·ℓ (without lc, no such term)
	TESTQ R13, R13
	JZ fnor
	VMOVUPS (BX), Z4
	RHO(Z4, Z6, Z5)
	VCVTPD2PSY (R13), X5
	VPERMPS Z5, Z15, Z5
	VMULPS Z21, Z5, Z5
	VMULPS Z6, Z5, Z5
	VADDPS Z5, Z2, Z2
	ADDQ $64, BX
	ADDQ $32, R13
fnor:
	// σ(L): t = e^{−|L|} (|L| ≤ 87), σ = 1/(1+t) or t·(1/(1+t)) by L's sign
	VPORD Z31, Z2, Z3
	VMAXPS Z3, Z30, Z3
	VMULPS Z29, Z3, Z4
	VRNDSCALEPS $0, Z4, Z4
	VMULPS Z28, Z4, Z5
	VSUBPS Z5, Z3, Z5
	VMULPS Z27, Z4, Z6
	VSUBPS Z6, Z5, Z5
	VBROADCASTSS g32c<>+36(SB), Z6
	HORNER(40)
	HORNER(44)
	HORNER(48)
	HORNER(52)
	HORNER(56)
	HORNER(60)
	HORNER(64)
	VCVTPS2DQ Z4, Z7
	VPADDD Z25, Z7, Z7
	VPSLLD $23, Z7, Z7
	VMULPS Z7, Z6, Z6
	VADDPS Z26, Z6, Z7
	VDIVPS Z7, Z26, Z7
	VMULPS Z7, Z6, Z6
	VPTESTMD Z31, Z2, K1
	VBLENDMPS Z6, Z7, K1, Z8
	VMOVUPS Z8, (R10)
	TESTQ DI, DI
	JZ fnoout
	// γ = σ / ((σ₀ + σ₁) + σ₂) + σ₃)
	SUM4(Z8, Z0, Z1)
	VDIVPS Z0, Z8, Z1
	VMOVUPS Z1, (DI)
	ADDQ $64, DI
fnoout:
	ADDQ $64, DX
	ADDQ $64, R10
	DECQ CX
	JNZ floop
fdone:
	VZEROUPPER
	RET

// ADD4 adds the four values in X7 to the four float32 at p, in place.
#define ADD4(p) \
	VADDPS (p)(R8*1), X7, X7; \
	VMOVUPS X7, (p)(R8*1)

// ADD16 adds the sixteen values in Z7 to the sixteen float32 at p, in place.
#define ADD16(p) \
	VADDPS (p)(R8*4), Z7, Z7; \
	VMOVUPS Z7, (p)(R8*4)

// func gate32BackAVX512(a *gate32Args)
//
// gate32Backward for the first n &^ 3 links: the links' gradients added to
// gKap, gA, gC and gH (each skipped when nil), the parameter-gradient
// terms to the accumulators. Registers: Z10 ∂β, Z11 ∂α, Z12-Z15 ∂WC's
// rows (the accumulators), Z16-Z19 WC, Z20-Z23 WC's columns, Z24 β,
// Z25-Z27 α_r, α_a, α_c, Z28 −½, Z29 1, Z30 the compaction index, Z31 the
// link-broadcast index; Z0-Z9 scratch. R8 is 4·(the link's index).
TEXT ·gate32BackAVX512(SB), NOSPLIT, $0-8
	G32_ARGS
	MOVQ G_C(SI), R12
	MOVQ G_G(SI), R11
	SHRQ $2, CX
	JZ bdone
	VMOVUPS G_ACCB(SI), Z10
	VMOVUPS G_ACCA(SI), Z11
	VMOVUPS G_ACCW+0(SI), Z12
	VMOVUPS G_ACCW+64(SI), Z13
	VMOVUPS G_ACCW+128(SI), Z14
	VMOVUPS G_ACCW+192(SI), Z15
	LOAD_WC
	VMOVUPS G_WCT+0(SI), Z20
	VMOVUPS G_WCT+64(SI), Z21
	VMOVUPS G_WCT+128(SI), Z22
	VMOVUPS G_WCT+192(SI), Z23
	VMOVUPS G_BETA(SI), Z24
	VBROADCASTSS G_AR(SI), Z25
	VBROADCASTSS G_AA(SI), Z26
	VBROADCASTSS G_AC(SI), Z27
	VBROADCASTSS g32c<>+28(SB), Z28
	VBROADCASTSS g32c<>+20(SB), Z29
	VMOVDQU32 g32cidx<>(SB), Z30
	VMOVDQU32 g32bidx<>(SB), Z31
	MOVW $0x2222, R9
	KMOVW R9, K2
	MOVW $0x4444, R9
	KMOVW R9, K3
	MOVW $0x3333, R9
	KMOVW R9, K4
	XORQ R8, R8
bloop:
	// ∂L = (((∂γ − D)/G)·σ)·(1 − σ), G = Σσ, D = Σ ∂γ·γ
	VMOVUPS (R10)(R8*4), Z0
	VMOVUPS (R11)(R8*4), Z1
	SUM4(Z0, Z2, Z3)
	VMULPS (DI)(R8*4), Z1, Z3
	SUM4(Z3, Z4, Z5)
	VSUBPS Z4, Z1, Z4
	VDIVPS Z2, Z4, Z4
	VMULPS Z0, Z4, Z4
	VSUBPS Z0, Z29, Z5
	VMULPS Z5, Z4, Z4
	// x = κ̂ − β (κ̂ = 0 without kap); dk = Σ −(∂L·x), dac = Σ (∂L·x)·x;
	// ∂β += (α_c·∂L)·x
	VPXORD Z5, Z5, Z5
	TESTQ AX, AX
	JZ bkap0
	VMOVUPS (AX)(R8*1), X5
	VPERMPS Z5, Z31, Z5
bkap0:
	VSUBPS Z24, Z5, Z5
	VMULPS Z5, Z4, Z6
	VPXORD.BCST g32c<>+0(SB), Z6, Z7
	SUM4(Z7, Z1, Z0)
	VMULPS Z5, Z6, Z8
	SUM4(Z8, Z2, Z0)
	VMULPS Z27, Z4, Z9
	VMULPS Z5, Z9, Z9
	VADDPS Z9, Z10, Z10
	// daa = Σ ∂L·A; ∂α_c, ∂α_a (lanes 0, 1) += −½·dac, daa
	VMULPS (DX)(R8*4), Z4, Z5
	SUM4(Z5, Z3, Z0)
	VMULPS Z28, Z2, Z7
	VBLENDMPS Z3, Z7, K2, Z7
	VADDPS Z7, Z11, K4, Z11
	// ∂κ̂ += α_c·dk
	MOVQ G_GKAP(SI), R9
	TESTQ R9, R9
	JZ bnokap
	VMULPS Z27, Z1, Z7
	VPERMPS Z7, Z30, Z7
	ADD4(R9)
bnokap:
	// ∂A += α_a·∂L
	MOVQ G_GA(SI), R9
	TESTQ R9, R9
	JZ bnoa
	VMULPS Z26, Z4, Z7
	ADD16(R9)
bnoa:
	// Routing consistency, unless lc is nil: dlc = Σ ∂L·ρ, ∂α_r (lane 2)
	// += ℓ·dlc
	TESTQ R13, R13
	JZ bnext
	VMOVUPS (BX)(R8*4), Z6
	RHO(Z6, Z7, Z8)
	VMULPS Z7, Z4, Z8
	SUM4(Z8, Z9, Z0)
	VCVTPD2PSY (R13)(R8*2), X5
	VPERMPS Z5, Z31, Z5
	VMULPS Z5, Z9, Z8
	VADDPS Z8, Z11, K3, Z11
	// ∂c += (α_r·dlc)/(c + 1e-9)
	MOVQ G_GC(SI), R9
	TESTQ R9, R9
	JZ bnoc
	VMULPS Z25, Z9, Z7
	VPERMPS Z7, Z30, Z7
	VBROADCASTSS g32c<>+32(SB), X8
	VADDPS (R12)(R8*1), X8, X8
	VDIVPS X8, X7, X7
	ADD4(R9)
bnoc:
	// f = α_r·ℓ; ∂WC[k',:] += (f·h_k')·∂L
	VMULPS Z25, Z5, Z5
	VMULPS Z5, Z6, Z6
	VPERMILPS $0x00, Z6, Z7
	VMULPS Z4, Z7, Z7
	VADDPS Z7, Z12, Z12
	VPERMILPS $0x55, Z6, Z7
	VMULPS Z4, Z7, Z7
	VADDPS Z7, Z13, Z13
	VPERMILPS $0xAA, Z6, Z7
	VMULPS Z4, Z7, Z7
	VADDPS Z7, Z14, Z14
	VPERMILPS $0xFF, Z6, Z7
	VMULPS Z4, Z7, Z7
	VADDPS Z7, Z15, Z15
	// ∂h += f·sh, sh = ∂L₀·WC[:,0] + ∂L₁·WC[:,1] + …
	MOVQ G_GH(SI), R9
	TESTQ R9, R9
	JZ bnoh
	VPERMILPS $0x00, Z4, Z7
	VMULPS Z20, Z7, Z7
	VPERMILPS $0x55, Z4, Z8
	VMULPS Z21, Z8, Z8
	VADDPS Z8, Z7, Z7
	VPERMILPS $0xAA, Z4, Z8
	VMULPS Z22, Z8, Z8
	VADDPS Z8, Z7, Z7
	VPERMILPS $0xFF, Z4, Z8
	VMULPS Z23, Z8, Z8
	VADDPS Z8, Z7, Z7
	VMULPS Z5, Z7, Z7
	ADD16(R9)
bnoh:
bnext:
	ADDQ $16, R8
	DECQ CX
	JNZ bloop
	VMOVUPS Z10, G_ACCB(SI)
	VMOVUPS Z11, G_ACCA(SI)
	VMOVUPS Z12, G_ACCW+0(SI)
	VMOVUPS Z13, G_ACCW+64(SI)
	VMOVUPS Z14, G_ACCW+128(SI)
	VMOVUPS Z15, G_ACCW+192(SI)
bdone:
	VZEROUPPER
	RET
