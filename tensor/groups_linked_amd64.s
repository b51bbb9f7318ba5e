//go:build !purego

#include "textflag.h"

// The four-row grouped sum over links (axpyRows16Tail4Links): a term's
// source row into z (16 columns) and y (the tail, masked by K1), and its
// link's four weights, one per output row, broadcast into w0-w3.
#define L4_SRC(ioff, z, y) \
	MOVLQSX ioff(R8), R10; \
	IMULQ DX, R10; \
	VMOVUPS (SI)(R10*1), z; \
	VMOVUPS.Z 64(SI)(R10*1), K1, y

#define L4_W(loff, w0, w1, w2, w3) \
	MOVLQSX loff(R9), R11; \
	SHLQ $4, R11; \
	VBROADCASTSS (R12)(R11*1), w0; \
	VBROADCASTSS 4(R12)(R11*1), w1; \
	VBROADCASTSS 8(R12)(R11*1), w2; \
	VBROADCASTSS 12(R12)(R11*1), w3

// L4_FMA adds the term (z, y) times w0-w3 to the four rows' accumulators:
// columns 0-15 in a0-a3, the tail in t0-t3.
#define L4_FMA(z, y, w0, w1, w2, w3, a0, a1, a2, a3, t0, t1, t2, t3) \
	VFMADD231PS z, w0, a0; \
	VFMADD231PS y, w0, t0; \
	VFMADD231PS z, w1, a1; \
	VFMADD231PS y, w1, t1; \
	VFMADD231PS z, w2, a2; \
	VFMADD231PS y, w2, t2; \
	VFMADD231PS z, w3, a3; \
	VFMADD231PS y, w3, t3

// func axpyRows16Tail4LinksZ(dst *float32, h *float32, stride int, idx *int32, link *int32, w *float32, n int, acc bool, mask int)
//
// Four output rows of 17-23 columns (dst, dst+stride, … floats apart)
// that sum the same n source rows of h (idx, rows of stride floats), row
// r with the weight w[4·link[e] + r] of the term's link. Each row gets the
// operations of axpyRows16Tail in their order (even terms onto the old
// row or zero, odd terms onto zero, then the two added), lane for lane,
// so the results are those of axpyRows16Tail2 on two row pairs with the
// weights laid out by row, bit for bit. mask has a bit for each column
// from the 17th on. Z0-Z7 hold the even chain (columns 0-15 of rows 0-3,
// then their tails), Z8-Z15 the odd one.
TEXT ·axpyRows16Tail4LinksZ(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX
	MOVQ idx+24(FP), R8
	MOVQ link+32(FP), R9
	MOVQ w+40(FP), R12
	MOVQ n+48(FP), CX
	MOVBLZX acc+56(FP), AX
	MOVQ mask+64(FP), BX
	KMOVW BX, K1
	LEAQ (DI)(DX*2), R13 // rows 2 and 3
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	TESTQ AX, AX
	JZ l4pairs
	VMOVUPS (DI), Z0
	VMOVUPS.Z 64(DI), K1, Z4
	VMOVUPS (DI)(DX*1), Z1
	VMOVUPS.Z 64(DI)(DX*1), K1, Z5
	VMOVUPS (R13), Z2
	VMOVUPS.Z 64(R13), K1, Z6
	VMOVUPS (R13)(DX*1), Z3
	VMOVUPS.Z 64(R13)(DX*1), K1, Z7
l4pairs: // two terms: the even one onto Z0-Z7, the odd one onto Z8-Z15
	CMPQ CX, $2
	JLT l4single
	L4_SRC(0, Z24, Z25)
	L4_W(0, Z16, Z17, Z18, Z19)
	L4_FMA(Z24, Z25, Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	L4_SRC(4, Z26, Z27)
	L4_W(4, Z20, Z21, Z22, Z23)
	L4_FMA(Z26, Z27, Z20, Z21, Z22, Z23, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	ADDQ $8, R8
	ADDQ $8, R9
	SUBQ $2, CX
	JMP l4pairs
l4single:
	TESTQ CX, CX
	JZ l4sum
	L4_SRC(0, Z24, Z25)
	L4_W(0, Z16, Z17, Z18, Z19)
	L4_FMA(Z24, Z25, Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
l4sum:
	VADDPS Z8, Z0, Z0
	VADDPS Z9, Z1, Z1
	VADDPS Z10, Z2, Z2
	VADDPS Z11, Z3, Z3
	VADDPS Z12, Z4, Z4
	VADDPS Z13, Z5, Z5
	VADDPS Z14, Z6, Z6
	VADDPS Z15, Z7, Z7
	VMOVUPS Z0, (DI)
	VMOVUPS Z4, K1, 64(DI)
	VMOVUPS Z1, (DI)(DX*1)
	VMOVUPS Z5, K1, 64(DI)(DX*1)
	VMOVUPS Z2, (R13)
	VMOVUPS Z6, K1, 64(R13)
	VMOVUPS Z3, (R13)(DX*1)
	VMOVUPS Z7, K1, 64(R13)(DX*1)
	VZEROUPPER
	RET

// The same sum on AVX2, where registers hold one chain of the four rows
// (Y0-Y2 row 0: columns 0-7, 8-15 and the tail masked by Y15; Y3-Y5 row
// 1; …): chain A over the even terms, stored into dst, then chain B over
// the odd terms, added to it. Y12 holds a term's tail, Y13 a weight.

// L4Y_TERM adds term off/4 (from the current R8 and R9) to Y0-Y11.
#define L4Y_TERM(off) \
	MOVLQSX off(R8), R10; \
	IMULQ DX, R10; \
	VMASKMOVPS 64(SI)(R10*1), Y15, Y12; \
	MOVLQSX off(R9), R11; \
	SHLQ $4, R11; \
	VBROADCASTSS (R12)(R11*1), Y13; \
	VFMADD231PS (SI)(R10*1), Y13, Y0; \
	VFMADD231PS 32(SI)(R10*1), Y13, Y1; \
	VFMADD231PS Y12, Y13, Y2; \
	VBROADCASTSS 4(R12)(R11*1), Y13; \
	VFMADD231PS (SI)(R10*1), Y13, Y3; \
	VFMADD231PS 32(SI)(R10*1), Y13, Y4; \
	VFMADD231PS Y12, Y13, Y5; \
	VBROADCASTSS 8(R12)(R11*1), Y13; \
	VFMADD231PS (SI)(R10*1), Y13, Y6; \
	VFMADD231PS 32(SI)(R10*1), Y13, Y7; \
	VFMADD231PS Y12, Y13, Y8; \
	VBROADCASTSS 12(R12)(R11*1), Y13; \
	VFMADD231PS (SI)(R10*1), Y13, Y9; \
	VFMADD231PS 32(SI)(R10*1), Y13, Y10; \
	VFMADD231PS Y12, Y13, Y11

#define L4Y_ZERO \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	VXORPS Y11, Y11, Y11

// L4Y_STORE stores the three vectors a0-a2 to the row at base.
#define L4Y_STORE(base, a0, a1, a2) \
	VMOVUPS a0, (base); \
	VMOVUPS a1, 32(base); \
	VMASKMOVPS a2, Y15, 64(base)

// L4Y_ADD adds chain B's a0-a2 to chain A's sums in the row at base and
// stores them (A the first operand, as in axpyRows16Tail).
#define L4Y_ADD(base, a0, a1, a2) \
	VMOVUPS (base), Y12; \
	VADDPS a0, Y12, Y12; \
	VMOVUPS Y12, (base); \
	VMOVUPS 32(base), Y12; \
	VADDPS a1, Y12, Y12; \
	VMOVUPS Y12, 32(base); \
	VMASKMOVPS 64(base), Y15, Y12; \
	VADDPS a2, Y12, Y12; \
	VMASKMOVPS Y12, Y15, 64(base)

// func axpyRows16Tail4LinksY(dst *float32, h *float32, stride int, idx *int32, link *int32, w *float32, n int, acc bool, mask *int32)
//
// axpyRows16Tail4LinksZ on AVX2 (mask: the first c−16 of eight int32
// lanes set, see tailMasks), the same operations lane for lane, so the
// same bits. R14 and R15 point at output rows 2 and 3.
TEXT ·axpyRows16Tail4LinksY(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX
	MOVQ w+40(FP), R12
	MOVBLZX acc+56(FP), AX
	MOVQ mask+64(FP), BX
	VMOVDQU (BX), Y15
	LEAQ (DI)(DX*1), R13 // row 1
	LEAQ (R13)(DX*1), R14 // row 2
	LEAQ (R14)(DX*1), R15 // row 3
	L4Y_ZERO
	TESTQ AX, AX
	JZ y4even
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMASKMOVPS 64(DI), Y15, Y2
	VMOVUPS (R13), Y3
	VMOVUPS 32(R13), Y4
	VMASKMOVPS 64(R13), Y15, Y5
	VMOVUPS (R14), Y6
	VMOVUPS 32(R14), Y7
	VMASKMOVPS 64(R14), Y15, Y8
	VMOVUPS (R15), Y9
	VMOVUPS 32(R15), Y10
	VMASKMOVPS 64(R15), Y15, Y11
y4even: // chain A: terms 0, 2, 4, …
	MOVQ idx+24(FP), R8
	MOVQ link+32(FP), R9
	MOVQ n+48(FP), CX
	INCQ CX
	SHRQ $1, CX
y4evenloop:
	L4Y_TERM(0)
	ADDQ $8, R8
	ADDQ $8, R9
	DECQ CX
	JNZ y4evenloop
	L4Y_STORE(DI, Y0, Y1, Y2)
	L4Y_STORE(R13, Y3, Y4, Y5)
	L4Y_STORE(R14, Y6, Y7, Y8)
	L4Y_STORE(R15, Y9, Y10, Y11)
	L4Y_ZERO
	MOVQ idx+24(FP), R8 // chain B: terms 1, 3, 5, …
	MOVQ link+32(FP), R9
	MOVQ n+48(FP), CX
	SHRQ $1, CX
	JZ y4sum
y4oddloop:
	L4Y_TERM(4)
	ADDQ $8, R8
	ADDQ $8, R9
	DECQ CX
	JNZ y4oddloop
y4sum:
	L4Y_ADD(DI, Y0, Y1, Y2)
	L4Y_ADD(R13, Y3, Y4, Y5)
	L4Y_ADD(R14, Y6, Y7, Y8)
	L4Y_ADD(R15, Y9, Y10, Y11)
	VZEROUPPER
	RET
