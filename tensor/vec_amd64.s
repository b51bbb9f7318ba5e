//go:build !purego

#include "textflag.h"

// Elementwise float32 kernels on AVX2 over n elements, n a multiple of 8
// (the Go wrappers in vec.go run the last n mod 8). Each loop handles 16
// elements per iteration when it can, then 8.

// func vecAdd32(dst, a, b *float32, n int)
// dst = a + b
TEXT ·vecAdd32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
add16:
	CMPQ CX, $16
	JLT add8
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VADDPS (DX)(AX*4), Y0, Y0
	VADDPS 32(DX)(AX*4), Y1, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ $16, AX
	SUBQ $16, CX
	JMP add16
add8:
	TESTQ CX, CX
	JZ adddone
	VMOVUPS (SI)(AX*4), Y0
	VADDPS (DX)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
adddone:
	VZEROUPPER
	RET

// func vecMul32(dst, a, b *float32, n int)
// dst = a ⊙ b
TEXT ·vecMul32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
mul16:
	CMPQ CX, $16
	JLT mul8
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VMULPS (DX)(AX*4), Y0, Y0
	VMULPS 32(DX)(AX*4), Y1, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ $16, AX
	SUBQ $16, CX
	JMP mul16
mul8:
	TESTQ CX, CX
	JZ muldone
	VMOVUPS (SI)(AX*4), Y0
	VMULPS (DX)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
muldone:
	VZEROUPPER
	RET

// func vecMulAdd32(dst, a, b *float32, n int)
// dst += a ⊙ b
TEXT ·vecMulAdd32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
fma16:
	CMPQ CX, $16
	JLT fma8
	VMOVUPS (DI)(AX*4), Y0
	VMOVUPS 32(DI)(AX*4), Y1
	VMOVUPS (SI)(AX*4), Y2
	VMOVUPS 32(SI)(AX*4), Y3
	VFMADD231PS (DX)(AX*4), Y2, Y0
	VFMADD231PS 32(DX)(AX*4), Y3, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ $16, AX
	SUBQ $16, CX
	JMP fma16
fma8:
	TESTQ CX, CX
	JZ fmadone
	VMOVUPS (DI)(AX*4), Y0
	VMOVUPS (SI)(AX*4), Y2
	VFMADD231PS (DX)(AX*4), Y2, Y0
	VMOVUPS Y0, (DI)(AX*4)
fmadone:
	VZEROUPPER
	RET

// func vecReLU32(dst, x *float32, n int)
// dst = max(x, 0); MAXPS returns its second source when either is NaN, and
// that source is x, so NaN propagates.
TEXT ·vecReLU32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	VXORPS Y7, Y7, Y7
relu16:
	CMPQ CX, $16
	JLT relu8
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VMAXPS Y0, Y7, Y0
	VMAXPS Y1, Y7, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ $16, AX
	SUBQ $16, CX
	JMP relu16
relu8:
	TESTQ CX, CX
	JZ reludone
	VMOVUPS (SI)(AX*4), Y0
	VMAXPS Y0, Y7, Y0
	VMOVUPS Y0, (DI)(AX*4)
reludone:
	VZEROUPPER
	RET

// func vecReLUGrad32(dst, grad, x *float32, n int)
// dst += grad where x > 0 (ordered: a NaN x passes nothing)
TEXT ·vecReLUGrad32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ x+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
	VXORPS Y7, Y7, Y7
rg8:
	TESTQ CX, CX
	JZ rgdone
	VMOVUPS (DX)(AX*4), Y0
	VCMPPS $0x1e, Y7, Y0, Y1 // x > 0 (GT_OQ)
	VANDPS (SI)(AX*4), Y1, Y1
	VADDPS (DI)(AX*4), Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ $8, AX
	SUBQ $8, CX
	JMP rg8
rgdone:
	VZEROUPPER
	RET

// func maxIndex32(src *int32, n int) uint32
// The largest of n int32 read as uint32 (a negative index is then larger
// than any row count), n a multiple of 16; 0 when n is 0.
TEXT ·maxIndex32(SB), NOSPLIT, $0-20
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	SHRQ $4, CX
	JZ mdone
mloop:
	VPMAXUD (SI), Y0, Y0
	VPMAXUD 32(SI), Y1, Y1
	ADDQ $64, SI
	DECQ CX
	JNZ mloop
mdone:
	VPMAXUD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+16(FP)
	VZEROUPPER
	RET

// func gather32(dst, src *float32, idx *int32, n int)
// dst[i] = src[idx[i]] for n indices, n a multiple of 8 (VPGATHERDD; the
// caller has checked the indices).
TEXT ·gather32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	JZ gdone
gloop:
	VMOVDQU (DX), Y0
	VPCMPEQD Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPGATHERDD Y1, (SI)(Y0*4), Y2
	VMOVDQU Y2, (DI)
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ gloop
gdone:
	VZEROUPPER
	RET

// func equal32(a, b *int32, n int) bool
// Whether a[0:n] and b[0:n] are equal, n a multiple of 8.
TEXT ·equal32(SB), NOSPLIT, $0-25
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ eqyes
eqloop:
	VMOVDQU (SI), Y0
	VPXOR (DI), Y0, Y0
	VPTEST Y0, Y0
	JNZ eqno
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ eqloop
eqyes:
	MOVB $1, ret+24(FP)
	VZEROUPPER
	RET
eqno:
	MOVB $0, ret+24(FP)
	VZEROUPPER
	RET
