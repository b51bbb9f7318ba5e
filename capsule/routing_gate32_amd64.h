// Shared by the float32 gate's kernels (routing_gate32_amd64.s,
// routing_gate32_avx2_amd64.s): the offsets of gate32Args's fields (checked by
// TestGate32ArgsLayout) and the sum over a link's perspectives.

#define G_KAP 0
#define G_H 8
#define G_A 16
#define G_C 24
#define G_LC 32
#define G_SIG 40
#define G_OUT 48
#define G_G 56
#define G_GKAP 64
#define G_GA 72
#define G_GC 80
#define G_GH 88
#define G_N 96
#define G_AC 104
#define G_AA 108
#define G_AR 112
#define G_BETA 120
#define G_WC 184
#define G_WCT 440
#define G_ACCB 696
#define G_ACCA 760
#define G_ACCW 824

// SUM4 sets every lane of a group of dst to the group's ((x₀ + x₁) + x₂) +
// x₃ of src, with tmp as scratch.
#define SUM4(src, dst, tmp) \
	VPERMILPS $0x00, src, dst; \
	VPERMILPS $0x55, src, tmp; \
	VADDPS tmp, dst, dst; \
	VPERMILPS $0xAA, src, tmp; \
	VADDPS tmp, dst, dst; \
	VPERMILPS $0xFF, src, tmp; \
	VADDPS tmp, dst, dst

// G32_ARGS loads a kernel's operands: SI the gate32Args, AX κ̂, BX h, DX A,
// R13 log(c+1e-9), R10 σ, DI γ, CX the number of links.
#define G32_ARGS \
	MOVQ a+0(FP), SI; \
	MOVQ G_KAP(SI), AX; \
	MOVQ G_H(SI), BX; \
	MOVQ G_A(SI), DX; \
	MOVQ G_LC(SI), R13; \
	MOVQ G_SIG(SI), R10; \
	MOVQ G_OUT(SI), DI; \
	MOVQ G_N(SI), CX
