//go:build !purego

#include "textflag.h"

// MOMENT_ARGS loads the kernels' pointers and n (into DI, SI, DX, BX and
// CX), points AX at k, and broadcasts k's first five values (l2, b1, c1, b2,
// c2) into Y8-Y12 for MOMENTS.
#define MOMENT_ARGS \
	MOVQ p+0(FP), DI; \
	MOVQ grad+8(FP), SI; \
	MOVQ m+16(FP), DX; \
	MOVQ v+24(FP), BX; \
	MOVQ n+32(FP), CX; \
	MOVQ k+40(FP), AX; \
	VBROADCASTSS 0(AX), Y8; \
	VBROADCASTSS 4(AX), Y9; \
	VBROADCASTSS 8(AX), Y10; \
	VBROADCASTSS 12(AX), Y11; \
	VBROADCASTSS 16(AX), Y12

// MOMENTS loads x (Y0) and g at element AX, forms gi = g + l2·x (Y1) and
// the moments mi = b1·m + c1·gi (Y3) and vi = b2·v + (c2·gi)·gi (Y5), and
// stores them, in the Go loops' order and rounding; l2, b1, c1, b2 and c2
// are in Y8-Y12, p, grad, m and v at DI, SI, DX and BX.
#define MOMENTS \
	VMOVUPS (DI)(AX*4), Y0; \
	VMOVUPS (SI)(AX*4), Y1; \
	VMULPS Y0, Y8, Y2; \
	VADDPS Y2, Y1, Y1; \
	VMOVUPS (DX)(AX*4), Y3; \
	VMULPS Y3, Y9, Y3; \
	VMULPS Y1, Y10, Y4; \
	VADDPS Y4, Y3, Y3; \
	VMOVUPS (BX)(AX*4), Y5; \
	VMULPS Y5, Y11, Y5; \
	VMULPS Y1, Y12, Y6; \
	VMULPS Y1, Y6, Y6; \
	VADDPS Y6, Y5, Y5; \
	VMOVUPS Y3, (DX)(AX*4); \
	VMOVUPS Y5, (BX)(AX*4)

// func adam32(p, grad, m, v *float32, n int, k *[9]float32)
//
// torchAdam's plain update on n float32 elements (n a multiple of 8), with
// the operations in the Go loop's order and rounding (no fused multiply-
// adds), so the result is bit for bit the same. k holds l2, b1, c1, b2, c2,
// 1/√(bias correction 2), eps, step size, lr·wd.
TEXT ·adam32(SB), NOSPLIT, $0-48
	MOMENT_ARGS
	VBROADCASTSS 20(AX), Y13 // inv
	VBROADCASTSS 24(AX), Y14 // eps
	VBROADCASTSS 28(AX), Y15 // step size
	VBROADCASTSS 32(AX), Y7  // lr·wd
	XORQ AX, AX
adamloop:
	TESTQ CX, CX
	JZ adamdone
	MOMENTS
	VSQRTPS Y5, Y6
	VMULPS Y13, Y6, Y6
	VADDPS Y14, Y6, Y6     // √vi·inv + eps
	VDIVPS Y6, Y3, Y4      // mi / (…)
	VMULPS Y4, Y15, Y4     // step size · …
	VMULPS Y0, Y7, Y2
	VSUBPS Y2, Y0, Y0      // x − lr·wd·x
	VSUBPS Y4, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP adamloop
adamdone:
	VZEROUPPER
	RET

// func geoopt32(p, grad, m, v *float32, n int, k *[9]float32)
//
// geooptEuclidean's plain update on n float32 elements (n a multiple of 8),
// with the operations in the Go loop's order and rounding (no fused
// multiply-adds; VSQRTPS rounds as the loop's float64 square root rounded
// to float32 does), so the result is bit for bit the same. k holds l2, b1,
// c1, b2, c2, 1/bc1, 1/bc2, eps, −lr.
TEXT ·geoopt32(SB), NOSPLIT, $0-48
	MOMENT_ARGS
	VBROADCASTSS 20(AX), Y13 // 1/bc1
	VBROADCASTSS 24(AX), Y14 // 1/bc2
	VBROADCASTSS 28(AX), Y15 // eps
	VBROADCASTSS 32(AX), Y7  // −lr
	XORQ AX, AX
geoloop:
	TESTQ CX, CX
	JZ geodone
	MOMENTS
	VMULPS Y13, Y3, Y3     // mi/bc1
	VMULPS Y14, Y5, Y5     // vi/bc2
	VSQRTPS Y5, Y5
	VADDPS Y15, Y5, Y5     // √(vi/bc2) + eps
	VDIVPS Y5, Y3, Y3
	VMULPS Y3, Y7, Y3      // −lr · …
	VADDPS Y3, Y0, Y0      // x + (−lr · …)
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP geoloop
geodone:
	VZEROUPPER
	RET
