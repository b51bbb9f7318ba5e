//go:build !purego

#include "textflag.h"
#include "gemm_amd64.h"

// AVX-512 versions of the Gemm row kernels (gemmRows32, gemmRows16Tail,
// gemmRows8): the same walk over rows and terms (gemm_amd64.h) and, lane
// for lane, the same operations: even terms fused-multiply-added onto the
// old row (or zero) in Z0-Z3, odd terms onto zero in Z8-Z11, then the two
// chains added. A kernel covers 16·v
// columns with v vectors, the last one masked by K1 (its first 1-16 lanes),
// so one call covers up to 64 columns where the AVX2 kernels take 8 or 32.

#define ZGEMM_ARGS \
	GEMM_ROWS_ARGS; \
	MOVQ mask+72(FP), CX; \
	KMOVW CX, K1

// ZROWv adds w times the 16·v floats of b's row at offset off (the last
// vector masked) to a0…
#define ZROW1(w, off, a0) \
	VFMADD231PS (R9)(off*1), w, K1, a0

#define ZROW2(w, off, a0, a1) \
	VFMADD231PS (R9)(off*1), w, a0; \
	VFMADD231PS 64(R9)(off*1), w, K1, a1

#define ZROW3(w, off, a0, a1, a2) \
	VFMADD231PS (R9)(off*1), w, a0; \
	VFMADD231PS 64(R9)(off*1), w, a1; \
	VFMADD231PS 128(R9)(off*1), w, K1, a2

#define ZROW4(w, off, a0, a1, a2, a3) \
	VFMADD231PS (R9)(off*1), w, a0; \
	VFMADD231PS 64(R9)(off*1), w, a1; \
	VFMADD231PS 128(R9)(off*1), w, a2; \
	VFMADD231PS 192(R9)(off*1), w, K1, a3

// ZGEMM is the body of the kernel for v vectors: zero, load and store move
// a row of dst, row adds one term (ZROWv with the accumulators bound) to
// chain A (even) or B (odd) and add sums the chains.
#define ZGEMM(zero, load, rowA, rowB, add, store, Lrow, Lzero, Lpairs, Lsingle, Lsum, Ldone) \
	ZGEMM_ARGS; \
	TESTQ BX, BX; \
	JZ Ldone; \
Lrow: \
	zero; \
	TESTQ AX, AX; \
	JZ Lzero; \
	load; \
Lzero: \
	GEMM_TERMS; \
Lpairs: \
	CMPQ CX, $2; \
	JLT Lsingle; \
	GEMM_PAIR(Z4, Z5); \
	rowA(Z4, R11); \
	rowB(Z5, R13); \
	GEMM_PAIR_NEXT; \
	JMP Lpairs; \
Lsingle: \
	TESTQ CX, CX; \
	JZ Lsum; \
	VBROADCASTSS (R12), Z4; \
	rowA(Z4, R11); \
Lsum: \
	add; \
	store; \
	ADDQ DX, DI; \
	ADDQ R8, SI; \
	DECQ BX; \
	JNZ Lrow; \
Ldone: \
	VZEROUPPER; \
	RET

#define Z1_ZERO VPXORD Z0, Z0, Z0; VPXORD Z8, Z8, Z8
#define Z1_LOAD VMOVUPS.Z (DI), K1, Z0
#define Z1_A(w, off) ZROW1(w, off, Z0)
#define Z1_B(w, off) ZROW1(w, off, Z8)
#define Z1_ADD VADDPS Z8, Z0, Z0
#define Z1_STORE VMOVUPS Z0, K1, (DI)

#define Z2_ZERO VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9
#define Z2_LOAD VMOVUPS (DI), Z0; VMOVUPS.Z 64(DI), K1, Z1
#define Z2_A(w, off) ZROW2(w, off, Z0, Z1)
#define Z2_B(w, off) ZROW2(w, off, Z8, Z9)
#define Z2_ADD VADDPS Z8, Z0, Z0; VADDPS Z9, Z1, Z1
#define Z2_STORE VMOVUPS Z0, (DI); VMOVUPS Z1, K1, 64(DI)

#define Z3_ZERO VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10
#define Z3_LOAD VMOVUPS (DI), Z0; VMOVUPS 64(DI), Z1; VMOVUPS.Z 128(DI), K1, Z2
#define Z3_A(w, off) ZROW3(w, off, Z0, Z1, Z2)
#define Z3_B(w, off) ZROW3(w, off, Z8, Z9, Z10)
#define Z3_ADD VADDPS Z8, Z0, Z0; VADDPS Z9, Z1, Z1; VADDPS Z10, Z2, Z2
#define Z3_STORE VMOVUPS Z0, (DI); VMOVUPS Z1, 64(DI); VMOVUPS Z2, K1, 128(DI)

#define Z4_ZERO VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3; VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10; VPXORD Z11, Z11, Z11
#define Z4_LOAD VMOVUPS (DI), Z0; VMOVUPS 64(DI), Z1; VMOVUPS 128(DI), Z2; VMOVUPS.Z 192(DI), K1, Z3
#define Z4_A(w, off) ZROW4(w, off, Z0, Z1, Z2, Z3)
#define Z4_B(w, off) ZROW4(w, off, Z8, Z9, Z10, Z11)
#define Z4_ADD VADDPS Z8, Z0, Z0; VADDPS Z9, Z1, Z1; VADDPS Z10, Z2, Z2; VADDPS Z11, Z3, Z3
#define Z4_STORE VMOVUPS Z0, (DI); VMOVUPS Z1, 64(DI); VMOVUPS Z2, 128(DI); VMOVUPS Z3, K1, 192(DI)

// func gemmRowsZ1(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int)
TEXT ·gemmRowsZ1(SB), NOSPLIT, $0-80
	ZGEMM(Z1_ZERO, Z1_LOAD, Z1_A, Z1_B, Z1_ADD, Z1_STORE, z1row, z1zero, z1pairs, z1single, z1sum, z1done)

// func gemmRowsZ2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int)
TEXT ·gemmRowsZ2(SB), NOSPLIT, $0-80
	ZGEMM(Z2_ZERO, Z2_LOAD, Z2_A, Z2_B, Z2_ADD, Z2_STORE, z2row, z2zero, z2pairs, z2single, z2sum, z2done)

// func gemmRowsZ3(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int)
TEXT ·gemmRowsZ3(SB), NOSPLIT, $0-80
	ZGEMM(Z3_ZERO, Z3_LOAD, Z3_A, Z3_B, Z3_ADD, Z3_STORE, z3row, z3zero, z3pairs, z3single, z3sum, z3done)

// func gemmRowsZ4(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask int)
TEXT ·gemmRowsZ4(SB), NOSPLIT, $0-80
	ZGEMM(Z4_ZERO, Z4_LOAD, Z4_A, Z4_B, Z4_ADD, Z4_STORE, z4row, z4zero, z4pairs, z4single, z4sum, z4done)

// Two-row kernels for outputs up to 32 columns wide: with one row per
// pass, such a row has only two or four accumulators, too few chains to
// keep the multiply-add units busy. These run rows r and r+1 together (a's
// row r+1 at R12+R8, dst's at DI+DX), loading each row of b once for both;
// rows counts pairs. Each row gets the one-row kernel's operations.

// Z2X2_B loads b's row at offset off, its second vector masked, into b0, b1.
#define Z2X2_B(off, b0, b1) \
	VMOVUPS (R9)(off*1), b0; \
	VMOVUPS.Z 64(R9)(off*1), K1, b1

// Z2X2_W broadcasts a[r, p+i] and a[r+1, p+i] (i = 0, 1 for disp 0, 4).
#define Z2X2_W(disp, w0, w1) \
	VBROADCASTSS disp(R12), w0; \
	VBROADCASTSS disp(R12)(R8*1), w1

#define FMA2(b0, b1, w, a0, a1) \
	VFMADD231PS b0, w, a0; \
	VFMADD231PS b1, w, a1

// func gemmRowsZ2x2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int)
TEXT ·gemmRowsZ2x2(SB), NOSPLIT, $0-80
	ZGEMM_ARGS
	TESTQ BX, BX
	JZ y2done
y2row:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	TESTQ AX, AX
	JZ y2zero
	VMOVUPS (DI), Z0
	VMOVUPS.Z 64(DI), K1, Z1
	VMOVUPS (DI)(DX*1), Z2
	VMOVUPS.Z 64(DI)(DX*1), K1, Z3
y2zero:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	GEMM_TERMS
y2pairs:
	CMPQ CX, $2
	JLT y2single
	LEAQ (R11)(R10*1), R13
	Z2X2_B(R11, Z12, Z13)
	Z2X2_B(R13, Z14, Z15)
	Z2X2_W(0, Z4, Z6)
	Z2X2_W(4, Z5, Z7)
	FMA2(Z12, Z13, Z4, Z0, Z1)
	FMA2(Z14, Z15, Z5, Z8, Z9)
	FMA2(Z12, Z13, Z6, Z2, Z3)
	FMA2(Z14, Z15, Z7, Z10, Z11)
	GEMM_PAIR_NEXT
	JMP y2pairs
y2single:
	TESTQ CX, CX
	JZ y2sum
	Z2X2_B(R11, Z12, Z13)
	Z2X2_W(0, Z4, Z6)
	FMA2(Z12, Z13, Z4, Z0, Z1)
	FMA2(Z12, Z13, Z6, Z2, Z3)
y2sum:
	VADDPS Z8, Z0, Z0
	VADDPS Z9, Z1, Z1
	VADDPS Z10, Z2, Z2
	VADDPS Z11, Z3, Z3
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, K1, 64(DI)
	VMOVUPS Z2, (DI)(DX*1)
	VMOVUPS Z3, K1, 64(DI)(DX*1)
	LEAQ (DI)(DX*2), DI
	LEAQ (SI)(R8*2), SI
	DECQ BX
	JNZ y2row
y2done:
	VZEROUPPER
	RET

// func gemmRowsZ1x2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int)
TEXT ·gemmRowsZ1x2(SB), NOSPLIT, $0-80
	ZGEMM_ARGS
	TESTQ BX, BX
	JZ y1done
y1row:
	VPXORD Z0, Z0, Z0
	VPXORD Z2, Z2, Z2
	TESTQ AX, AX
	JZ y1zero
	VMOVUPS.Z (DI), K1, Z0
	VMOVUPS.Z (DI)(DX*1), K1, Z2
y1zero:
	VPXORD Z8, Z8, Z8
	VPXORD Z10, Z10, Z10
	GEMM_TERMS
y1pairs:
	CMPQ CX, $2
	JLT y1single
	LEAQ (R11)(R10*1), R13
	VMOVUPS.Z (R9)(R11*1), K1, Z12
	VMOVUPS.Z (R9)(R13*1), K1, Z14
	Z2X2_W(0, Z4, Z6)
	Z2X2_W(4, Z5, Z7)
	VFMADD231PS Z12, Z4, Z0
	VFMADD231PS Z14, Z5, Z8
	VFMADD231PS Z12, Z6, Z2
	VFMADD231PS Z14, Z7, Z10
	GEMM_PAIR_NEXT
	JMP y1pairs
y1single:
	TESTQ CX, CX
	JZ y1sum
	VMOVUPS.Z (R9)(R11*1), K1, Z12
	Z2X2_W(0, Z4, Z6)
	VFMADD231PS Z12, Z4, Z0
	VFMADD231PS Z12, Z6, Z2
y1sum:
	VADDPS Z8, Z0, Z0
	VADDPS Z10, Z2, Z2
	VMOVUPS Z0, K1, (DI)
	VMOVUPS Z2, K1, (DI)(DX*1)
	LEAQ (DI)(DX*2), DI
	LEAQ (SI)(R8*2), SI
	DECQ BX
	JNZ y1row
y1done:
	VZEROUPPER
	RET

// The four-vector two-row kernel, for 64-column blocks (the last vector
// masked by K1): rows r and r+1 share each load of b, which halves the
// traffic from b's rows per multiply-add; 16 accumulators (chains A and B
// of both rows), 8 vectors of b and 4 broadcast weights use 28 of the 32
// registers. Row r+1's chains are Z16-Z19 (A) and Z20-Z23 (B).

// Z4X2_B loads the 64 floats of b's row at offset off into b0…b3.
#define Z4X2_B(off, b0, b1, b2, b3) \
	VMOVUPS (R9)(off*1), b0; \
	VMOVUPS 64(R9)(off*1), b1; \
	VMOVUPS 128(R9)(off*1), b2; \
	VMOVUPS.Z 192(R9)(off*1), K1, b3

#define FMA4(b0, b1, b2, b3, w, a0, a1, a2, a3) \
	VFMADD231PS b0, w, a0; \
	VFMADD231PS b1, w, a1; \
	VFMADD231PS b2, w, a2; \
	VFMADD231PS b3, w, a3

// func gemmRowsZ4x2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int)
TEXT ·gemmRowsZ4x2(SB), NOSPLIT, $0-80
	ZGEMM_ARGS
	TESTQ BX, BX
	JZ y4done
y4row:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	TESTQ AX, AX
	JZ y4zero
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS.Z 192(DI), K1, Z3
	VMOVUPS (DI)(DX*1), Z16
	VMOVUPS 64(DI)(DX*1), Z17
	VMOVUPS 128(DI)(DX*1), Z18
	VMOVUPS.Z 192(DI)(DX*1), K1, Z19
y4zero:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	GEMM_TERMS
y4pairs:
	CMPQ CX, $2
	JLT y4single
	LEAQ (R11)(R10*1), R13
	Z4X2_B(R11, Z12, Z13, Z14, Z15)
	Z4X2_B(R13, Z24, Z25, Z26, Z27)
	Z2X2_W(0, Z4, Z6)
	Z2X2_W(4, Z5, Z7)
	FMA4(Z12, Z13, Z14, Z15, Z4, Z0, Z1, Z2, Z3)
	FMA4(Z24, Z25, Z26, Z27, Z5, Z8, Z9, Z10, Z11)
	FMA4(Z12, Z13, Z14, Z15, Z6, Z16, Z17, Z18, Z19)
	FMA4(Z24, Z25, Z26, Z27, Z7, Z20, Z21, Z22, Z23)
	GEMM_PAIR_NEXT
	JMP y4pairs
y4single:
	TESTQ CX, CX
	JZ y4sum
	Z4X2_B(R11, Z12, Z13, Z14, Z15)
	Z2X2_W(0, Z4, Z6)
	FMA4(Z12, Z13, Z14, Z15, Z4, Z0, Z1, Z2, Z3)
	FMA4(Z12, Z13, Z14, Z15, Z6, Z16, Z17, Z18, Z19)
y4sum:
	VADDPS Z8, Z0, Z0
	VADDPS Z9, Z1, Z1
	VADDPS Z10, Z2, Z2
	VADDPS Z11, Z3, Z3
	VADDPS Z20, Z16, Z16
	VADDPS Z21, Z17, Z17
	VADDPS Z22, Z18, Z18
	VADDPS Z23, Z19, Z19
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, K1, 192(DI)
	VMOVUPS Z16, (DI)(DX*1)
	VMOVUPS Z17, 64(DI)(DX*1)
	VMOVUPS Z18, 128(DI)(DX*1)
	VMOVUPS Z19, K1, 192(DI)(DX*1)
	LEAQ (DI)(DX*2), DI
	LEAQ (SI)(R8*2), SI
	DECQ BX
	JNZ y4row
y4done:
	VZEROUPPER
	RET

// gemmRowsZ4x2S is gemmRowsZ4x2 over one chunk of the inner dimension,
// keeping chain B between chunks in state (a matrix laid out as dst): with
// mode bit 0 chain B starts from state instead of zero, with bit 1 the
// chains are summed into dst (the last chunk), otherwise chain A goes to
// dst and chain B to state. Chunks of even length give every term the
// chain, and every chain the order, of one call over the whole inner
// dimension, so the bits are the same.

// Z4X2_LOAD_STATE and Z4X2_STORE_STATE move chain B of both rows between
// the registers and state, whose first row is at R11 (free between rows).
#define Z4X2_LOAD_STATE \
	VMOVUPS (R11), Z8; \
	VMOVUPS 64(R11), Z9; \
	VMOVUPS 128(R11), Z10; \
	VMOVUPS.Z 192(R11), K1, Z11; \
	ADDQ DX, R11; \
	VMOVUPS (R11), Z20; \
	VMOVUPS 64(R11), Z21; \
	VMOVUPS 128(R11), Z22; \
	VMOVUPS.Z 192(R11), K1, Z23

#define Z4X2_STORE_STATE \
	VMOVUPS Z8, (R11); \
	VMOVUPS Z9, 64(R11); \
	VMOVUPS Z10, 128(R11); \
	VMOVUPS Z11, K1, 192(R11); \
	ADDQ DX, R11; \
	VMOVUPS Z20, (R11); \
	VMOVUPS Z21, 64(R11); \
	VMOVUPS Z22, 128(R11); \
	VMOVUPS Z23, K1, 192(R11)

// func gemmRowsZ4x2S(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int, state *float32, mode int)
TEXT ·gemmRowsZ4x2S(SB), NOSPLIT, $0-96
	ZGEMM_ARGS
	TESTQ BX, BX
	JZ s4done
s4row:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	TESTQ AX, AX
	JZ s4zero
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS.Z 192(DI), K1, Z3
	VMOVUPS (DI)(DX*1), Z16
	VMOVUPS 64(DI)(DX*1), Z17
	VMOVUPS 128(DI)(DX*1), Z18
	VMOVUPS.Z 192(DI)(DX*1), K1, Z19
s4zero:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	TESTQ $1, mode+88(FP)
	JZ s4terms
	MOVQ state+80(FP), R13
	SUBQ dst+0(FP), R13
	LEAQ (DI)(R13*1), R11
	Z4X2_LOAD_STATE
s4terms:
	GEMM_TERMS
s4pairs:
	CMPQ CX, $2
	JLT s4single
	LEAQ (R11)(R10*1), R13
	Z4X2_B(R11, Z12, Z13, Z14, Z15)
	Z4X2_B(R13, Z24, Z25, Z26, Z27)
	Z2X2_W(0, Z4, Z6)
	Z2X2_W(4, Z5, Z7)
	FMA4(Z12, Z13, Z14, Z15, Z4, Z0, Z1, Z2, Z3)
	FMA4(Z24, Z25, Z26, Z27, Z5, Z8, Z9, Z10, Z11)
	FMA4(Z12, Z13, Z14, Z15, Z6, Z16, Z17, Z18, Z19)
	FMA4(Z24, Z25, Z26, Z27, Z7, Z20, Z21, Z22, Z23)
	GEMM_PAIR_NEXT
	JMP s4pairs
s4single:
	TESTQ CX, CX
	JZ s4end
	Z4X2_B(R11, Z12, Z13, Z14, Z15)
	Z2X2_W(0, Z4, Z6)
	FMA4(Z12, Z13, Z14, Z15, Z4, Z0, Z1, Z2, Z3)
	FMA4(Z12, Z13, Z14, Z15, Z6, Z16, Z17, Z18, Z19)
s4end:
	TESTQ $2, mode+88(FP)
	JNZ s4sum
	MOVQ state+80(FP), R13
	SUBQ dst+0(FP), R13
	LEAQ (DI)(R13*1), R11
	Z4X2_STORE_STATE
	JMP s4store
s4sum:
	VADDPS Z8, Z0, Z0
	VADDPS Z9, Z1, Z1
	VADDPS Z10, Z2, Z2
	VADDPS Z11, Z3, Z3
	VADDPS Z20, Z16, Z16
	VADDPS Z21, Z17, Z17
	VADDPS Z22, Z18, Z18
	VADDPS Z23, Z19, Z19
s4store:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, K1, 192(DI)
	VMOVUPS Z16, (DI)(DX*1)
	VMOVUPS Z17, 64(DI)(DX*1)
	VMOVUPS Z18, 128(DI)(DX*1)
	VMOVUPS Z19, K1, 192(DI)(DX*1)
	LEAQ (DI)(DX*2), DI
	LEAQ (SI)(R8*2), SI
	DECQ BX
	JNZ s4row
s4done:
	VZEROUPPER
	RET

// gemmRowsZ4x2ST is gemmRowsZ4x2S with a transposed: row r of the left
// operand is column r of a (lda floats between terms), so rows r and r+1
// are adjacent floats and the weight gradient aᵀ·b needs no transposed
// copy of a.
// func gemmRowsZ4x2ST(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, pairs int, acc bool, mask int, state *float32, mode int)
TEXT ·gemmRowsZ4x2ST(SB), NOSPLIT, $0-96
	ZGEMM_ARGS
	TESTQ BX, BX
	JZ t4done
t4row:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	TESTQ AX, AX
	JZ t4zero
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS.Z 192(DI), K1, Z3
	VMOVUPS (DI)(DX*1), Z16
	VMOVUPS 64(DI)(DX*1), Z17
	VMOVUPS 128(DI)(DX*1), Z18
	VMOVUPS.Z 192(DI)(DX*1), K1, Z19
t4zero:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	TESTQ $1, mode+88(FP)
	JZ t4terms
	MOVQ state+80(FP), R13
	SUBQ dst+0(FP), R13
	LEAQ (DI)(R13*1), R11
	Z4X2_LOAD_STATE
t4terms:
	GEMM_TERMS
t4pairs:
	CMPQ CX, $2
	JLT t4single
	LEAQ (R11)(R10*1), R13
	Z4X2_B(R11, Z12, Z13, Z14, Z15)
	Z4X2_B(R13, Z24, Z25, Z26, Z27)
	VBROADCASTSS (R12), Z4
	VBROADCASTSS 4(R12), Z6
	VBROADCASTSS (R12)(R8*1), Z5
	VBROADCASTSS 4(R12)(R8*1), Z7
	FMA4(Z12, Z13, Z14, Z15, Z4, Z0, Z1, Z2, Z3)
	FMA4(Z24, Z25, Z26, Z27, Z5, Z8, Z9, Z10, Z11)
	FMA4(Z12, Z13, Z14, Z15, Z6, Z16, Z17, Z18, Z19)
	FMA4(Z24, Z25, Z26, Z27, Z7, Z20, Z21, Z22, Z23)
	LEAQ (R13)(R10*1), R11
	LEAQ (R12)(R8*2), R12
	SUBQ $2, CX
	JMP t4pairs
t4single:
	TESTQ CX, CX
	JZ t4end
	Z4X2_B(R11, Z12, Z13, Z14, Z15)
	VBROADCASTSS (R12), Z4
	VBROADCASTSS 4(R12), Z6
	FMA4(Z12, Z13, Z14, Z15, Z4, Z0, Z1, Z2, Z3)
	FMA4(Z12, Z13, Z14, Z15, Z6, Z16, Z17, Z18, Z19)
t4end:
	TESTQ $2, mode+88(FP)
	JNZ t4sum
	MOVQ state+80(FP), R13
	SUBQ dst+0(FP), R13
	LEAQ (DI)(R13*1), R11
	Z4X2_STORE_STATE
	JMP t4store
t4sum:
	VADDPS Z8, Z0, Z0
	VADDPS Z9, Z1, Z1
	VADDPS Z10, Z2, Z2
	VADDPS Z11, Z3, Z3
	VADDPS Z20, Z16, Z16
	VADDPS Z21, Z17, Z17
	VADDPS Z22, Z18, Z18
	VADDPS Z23, Z19, Z19
t4store:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, K1, 192(DI)
	VMOVUPS Z16, (DI)(DX*1)
	VMOVUPS Z17, 64(DI)(DX*1)
	VMOVUPS Z18, 128(DI)(DX*1)
	VMOVUPS Z19, K1, 192(DI)(DX*1)
	LEAQ (DI)(DX*2), DI
	ADDQ $8, SI
	DECQ BX
	JNZ t4row
t4done:
	VZEROUPPER
	RET
