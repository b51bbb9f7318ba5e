//go:build !purego

#include "textflag.h"

// Batch-norm row kernels (batchnorm.go). Every element takes the operations
// of the Go loop, one rounding each, in the same order; the float64 sums
// take their terms row after row, as the loops do.

// func sumSqDevRowsWiden32(acc *float64, x *float32, mu *float64, rows, cols int)
//
// acc[c] += (float64(x[r·cols+c]) − mu[c])², cols a positive multiple of 4.
TEXT ·sumSqDevRowsWiden32(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ mu+16(FP), R8
	MOVQ rows+24(FP), CX
	MOVQ cols+32(FP), DX
	TESTQ CX, CX
	JZ sqdone
sqrow:
	XORQ AX, AX
sqcol:
	VCVTPS2PD (SI)(AX*4), Y0
	VSUBPD (R8)(AX*8), Y0, Y0
	VMULPD Y0, Y0, Y0
	VADDPD (DI)(AX*8), Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, DX
	JLT sqcol
	LEAQ (SI)(DX*4), SI
	DECQ CX
	JNZ sqrow
sqdone:
	VZEROUPPER
	RET

// func sumProdRowsWiden32(acc *float64, a, b *float32, rows, cols int)
//
// acc[c] += float64(a[r·cols+c])·float64(b[r·cols+c]), cols a positive
// multiple of 4.
TEXT ·sumProdRowsWiden32(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ rows+24(FP), CX
	MOVQ cols+32(FP), DX
	TESTQ CX, CX
	JZ spdone
sprow:
	XORQ AX, AX
spcol:
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD (R8)(AX*4), Y1
	VMULPD Y1, Y0, Y0
	VADDPD (DI)(AX*8), Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, DX
	JLT spcol
	LEAQ (SI)(DX*4), SI
	LEAQ (R8)(DX*4), R8
	DECQ CX
	JNZ sprow
spdone:
	VZEROUPPER
	RET

// func normalizeRows32(y, xhat, x, mu, rstd, gamma, beta *float32, rows, cols int)
//
// h = (x − mu[c])·rstd[c]; xhat = h; y = h·gamma[c] + beta[c]; cols a
// positive multiple of 8.
TEXT ·normalizeRows32(SB), NOSPLIT, $0-72
	MOVQ y+0(FP), DI
	MOVQ xhat+8(FP), BX
	MOVQ x+16(FP), SI
	MOVQ mu+24(FP), R8
	MOVQ rstd+32(FP), R9
	MOVQ gamma+40(FP), R10
	MOVQ beta+48(FP), R11
	MOVQ rows+56(FP), CX
	MOVQ cols+64(FP), DX
	TESTQ CX, CX
	JZ nrdone
nrrow:
	XORQ AX, AX
nrcol:
	VMOVUPS (SI)(AX*4), Y0
	VSUBPS (R8)(AX*4), Y0, Y0
	VMULPS (R9)(AX*4), Y0, Y0
	VMOVUPS Y0, (BX)(AX*4)
	VMULPS (R10)(AX*4), Y0, Y1
	VADDPS (R11)(AX*4), Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JLT nrcol
	LEAQ (SI)(DX*4), SI
	LEAQ (BX)(DX*4), BX
	LEAQ (DI)(DX*4), DI
	DECQ CX
	JNZ nrrow
nrdone:
	VZEROUPPER
	RET

// func normalizeGradRows32(dx, grad, xhat, c1, c2, c3 *float32, rows, cols int)
//
// dx += c1[c]·((grad − c2[c]) − xhat·c3[c]); cols a positive multiple of 8.
TEXT ·normalizeGradRows32(SB), NOSPLIT, $0-64
	MOVQ dx+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ xhat+16(FP), BX
	MOVQ c1+24(FP), R8
	MOVQ c2+32(FP), R9
	MOVQ c3+40(FP), R10
	MOVQ rows+48(FP), CX
	MOVQ cols+56(FP), DX
	TESTQ CX, CX
	JZ ngdone
ngrow:
	XORQ AX, AX
ngcol:
	VMOVUPS (SI)(AX*4), Y0
	VSUBPS (R9)(AX*4), Y0, Y0
	VMOVUPS (BX)(AX*4), Y1
	VMULPS (R10)(AX*4), Y1, Y1
	VSUBPS Y1, Y0, Y0
	VMULPS (R8)(AX*4), Y0, Y0
	VADDPS (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, DX
	JLT ngcol
	LEAQ (SI)(DX*4), SI
	LEAQ (BX)(DX*4), BX
	LEAQ (DI)(DX*4), DI
	DECQ CX
	JNZ ngrow
ngdone:
	VZEROUPPER
	RET
