//go:build !purego

#include "textflag.h"
#include "gemm_amd64.h"

// Blocked AVX2 versions of the Gemm row kernels (gemmRows32,
// gemmRows16Tail, gemmRows8 in axpyrows_amd64.s): several output rows per
// pass, so that each load of a row of b feeds the FMAs of all of them.
// Each output element still gets the row kernels' operations in their
// order: the even terms fused-multiply-added onto the old row (or zero),
// the odd terms onto zero, then the two chains added, even chain first. So
// the results are the same bits.
//
// The 32- and 17-23-column kernels have registers for one chain of three
// rows only, so they run the chains one after the other: chain A over the
// even terms, stored into dst, then chain B over the odd terms, added to
// it. The 8-column kernel holds both chains of four rows.
//
// Registers as in gemm_amd64.h (GEMM_ROWS_ARGS): dst row at DI (stride DX
// bytes), a's row at SI (stride R8), b at R9 (row stride R10), blocks of
// rows left in BX, acc in AX. In a chain's pass CX counts its terms, R11
// is the offset of b's row p, R12 points at a[r·lda + p] and R13 is two
// rows of b; R14 and R15 point at the second and third output rows.

// BCAST3 broadcasts the weights of the current term for the three rows.
#define BCAST3 \
	VBROADCASTSS (R12), Y13; \
	VBROADCASTSS (R12)(R8*1), Y14; \
	VBROADCASTSS (R12)(R8*2), Y15

// COL3 loads the 8 floats at byte off of b's row p and adds them, times
// each row's weight, to that row's accumulator (a0, a1, a2).
#define COL3(off, a0, a1, a2) \
	VMOVUPS off(R9)(R11*1), Y12; \
	VFMADD231PS Y12, Y13, a0; \
	VFMADD231PS Y12, Y14, a1; \
	VFMADD231PS Y12, Y15, a2

// COL3T is COL3 for the masked tail (mask in Y15, weights in Y10-Y12,
// b's vector in Y9).
#define COL3T(off, a0, a1, a2) \
	VMASKMOVPS off(R9)(R11*1), Y15, Y9; \
	VFMADD231PS Y9, Y10, a0; \
	VFMADD231PS Y9, Y11, a1; \
	VFMADD231PS Y9, Y12, a2

#define COL3F(off, a0, a1, a2) \
	VMOVUPS off(R9)(R11*1), Y9; \
	VFMADD231PS Y9, Y10, a0; \
	VFMADD231PS Y9, Y11, a1; \
	VFMADD231PS Y9, Y12, a2

// CHAIN_EVEN and CHAIN_ODD set CX, R11 and R12 for the pass over the even
// and the odd terms.
#define CHAIN_EVEN \
	MOVQ k+48(FP), CX; \
	INCQ CX; \
	SHRQ $1, CX; \
	XORQ R11, R11; \
	MOVQ SI, R12

#define CHAIN_ODD \
	MOVQ k+48(FP), CX; \
	SHRQ $1, CX; \
	MOVQ R10, R11; \
	LEAQ 4(SI), R12

// ROWPTRS points R14 and R15 at the second and third output rows.
#define ROWPTRS \
	LEAQ (DI)(DX*1), R14; \
	LEAQ (R14)(DX*1), R15

// ADDTO adds chain B's accumulator b to chain A's sum at (p) and stores
// it: A + B, A the first operand as in the row kernels.
#define ADDTO(p, b) \
	VMOVUPS p, Y12; \
	VADDPS b, Y12, Y12; \
	VMOVUPS Y12, p

#define ZERO12 \
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

// func gemmRows32x3(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, triples int, acc bool)
//
// gemmRows32 for 3·triples rows, three rows per pass: Y0-Y3, Y4-Y7 and
// Y8-Y11 hold one chain of the three rows' 32 outputs, Y12 a vector of b
// and Y13-Y15 the three rows' weights of a term.
TEXT ·gemmRows32x3(SB), NOSPLIT, $0-65
	GEMM_ROWS_ARGS
	LEAQ (R10)(R10*1), R13
	TESTQ BX, BX
	JZ x32done
x32block:
	ROWPTRS
	ZERO12
	TESTQ AX, AX
	JZ x32even
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS (R14), Y4
	VMOVUPS 32(R14), Y5
	VMOVUPS 64(R14), Y6
	VMOVUPS 96(R14), Y7
	VMOVUPS (R15), Y8
	VMOVUPS 32(R15), Y9
	VMOVUPS 64(R15), Y10
	VMOVUPS 96(R15), Y11
x32even:
	CHAIN_EVEN
x32evenloop:
	BCAST3
	COL3(0, Y0, Y4, Y8)
	COL3(32, Y1, Y5, Y9)
	COL3(64, Y2, Y6, Y10)
	COL3(96, Y3, Y7, Y11)
	ADDQ R13, R11
	ADDQ $8, R12
	DECQ CX
	JNZ x32evenloop
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, (R14)
	VMOVUPS Y5, 32(R14)
	VMOVUPS Y6, 64(R14)
	VMOVUPS Y7, 96(R14)
	VMOVUPS Y8, (R15)
	VMOVUPS Y9, 32(R15)
	VMOVUPS Y10, 64(R15)
	VMOVUPS Y11, 96(R15)
	ZERO12
	CHAIN_ODD
	TESTQ CX, CX
	JZ x32sum
x32oddloop:
	BCAST3
	COL3(0, Y0, Y4, Y8)
	COL3(32, Y1, Y5, Y9)
	COL3(64, Y2, Y6, Y10)
	COL3(96, Y3, Y7, Y11)
	ADDQ R13, R11
	ADDQ $8, R12
	DECQ CX
	JNZ x32oddloop
x32sum:
	ADDTO((DI), Y0)
	ADDTO(32(DI), Y1)
	ADDTO(64(DI), Y2)
	ADDTO(96(DI), Y3)
	ADDTO((R14), Y4)
	ADDTO(32(R14), Y5)
	ADDTO(64(R14), Y6)
	ADDTO(96(R14), Y7)
	ADDTO((R15), Y8)
	ADDTO(32(R15), Y9)
	ADDTO(64(R15), Y10)
	ADDTO(96(R15), Y11)
	LEAQ (R15)(DX*1), DI
	LEAQ (SI)(R8*2), SI
	ADDQ R8, SI
	DECQ BX
	JNZ x32block
x32done:
	VZEROUPPER
	RET

// BCAST3T is BCAST3 into Y10-Y12 (the tail kernel's weights).
#define BCAST3T \
	VBROADCASTSS (R12), Y10; \
	VBROADCASTSS (R12)(R8*1), Y11; \
	VBROADCASTSS (R12)(R8*2), Y12

// ADDTOT is ADDTO for the masked tail, through Y9.
#define ADDTOF(p, b) \
	VMOVUPS p, Y9; \
	VADDPS b, Y9, Y9; \
	VMOVUPS Y9, p

#define ADDTOT(p, b) \
	VMASKMOVPS p, Y15, Y9; \
	VADDPS b, Y9, Y9; \
	VMASKMOVPS Y9, Y15, p

#define ZERO9 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8

// func gemmRows16Tailx3(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, triples int, acc bool, mask *int32)
//
// gemmRows16Tail for 3·triples rows, three rows per pass: Y0-Y2, Y3-Y5
// and Y6-Y8 hold one chain of the three rows' 17-23 outputs (two full
// vectors and the tail masked by Y15), Y9 a vector of b and Y10-Y12 the
// rows' weights of a term.
TEXT ·gemmRows16Tailx3(SB), NOSPLIT, $0-80
	GEMM_ROWS_ARGS
	MOVQ mask+72(FP), R13
	VMOVDQU (R13), Y15
	LEAQ (R10)(R10*1), R13
	TESTQ BX, BX
	JZ x16done
x16block:
	ROWPTRS
	ZERO9
	TESTQ AX, AX
	JZ x16even
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMASKMOVPS 64(DI), Y15, Y2
	VMOVUPS (R14), Y3
	VMOVUPS 32(R14), Y4
	VMASKMOVPS 64(R14), Y15, Y5
	VMOVUPS (R15), Y6
	VMOVUPS 32(R15), Y7
	VMASKMOVPS 64(R15), Y15, Y8
x16even:
	CHAIN_EVEN
x16evenloop:
	BCAST3T
	COL3F(0, Y0, Y3, Y6)
	COL3F(32, Y1, Y4, Y7)
	COL3T(64, Y2, Y5, Y8)
	ADDQ R13, R11
	ADDQ $8, R12
	DECQ CX
	JNZ x16evenloop
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMASKMOVPS Y2, Y15, 64(DI)
	VMOVUPS Y3, (R14)
	VMOVUPS Y4, 32(R14)
	VMASKMOVPS Y5, Y15, 64(R14)
	VMOVUPS Y6, (R15)
	VMOVUPS Y7, 32(R15)
	VMASKMOVPS Y8, Y15, 64(R15)
	ZERO9
	CHAIN_ODD
	TESTQ CX, CX
	JZ x16sum
x16oddloop:
	BCAST3T
	COL3F(0, Y0, Y3, Y6)
	COL3F(32, Y1, Y4, Y7)
	COL3T(64, Y2, Y5, Y8)
	ADDQ R13, R11
	ADDQ $8, R12
	DECQ CX
	JNZ x16oddloop
x16sum:
	ADDTOF((DI), Y0)
	ADDTOF(32(DI), Y1)
	ADDTOT(64(DI), Y2)
	ADDTOF((R14), Y3)
	ADDTOF(32(R14), Y4)
	ADDTOT(64(R14), Y5)
	ADDTOF((R15), Y6)
	ADDTOF(32(R15), Y7)
	ADDTOT(64(R15), Y8)
	LEAQ (R15)(DX*1), DI
	LEAQ (SI)(R8*2), SI
	ADDQ R8, SI
	DECQ BX
	JNZ x16block
x16done:
	VZEROUPPER
	RET

// FMA4 adds the b vector v times the four rows' weights of a term (a at
// R12, the fourth row at R14) to a0-a3, through Y10.
#define FMA4(v, off, a0, a1, a2, a3) \
	VBROADCASTSS off(R12), Y10; \
	VFMADD231PS v, Y10, a0; \
	VBROADCASTSS off(R12)(R8*1), Y10; \
	VFMADD231PS v, Y10, a1; \
	VBROADCASTSS off(R12)(R8*2), Y10; \
	VFMADD231PS v, Y10, a2; \
	VBROADCASTSS off(R14), Y10; \
	VFMADD231PS v, Y10, a3

#define STORE4T(a0, a1, a2, a3) \
	VMASKMOVPS a0, Y15, (DI); \
	VMASKMOVPS a1, Y15, (DI)(DX*1); \
	VMASKMOVPS a2, Y15, (DI)(DX*2); \
	VMASKMOVPS a3, Y15, (R15)

// func gemmRows8x4(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, quads int, acc bool, mask *int32)
//
// gemmRows8 for 4·quads rows, four rows per pass: Y0-Y3 the four rows'
// even chains, Y4-Y7 their odd chains, Y8 and Y9 the (masked) vectors of
// b's rows p and p+1, Y10 a weight, Y15 the mask. R14 points at the fourth
// row's weight of the term, R15 at the fourth output row.
TEXT ·gemmRows8x4(SB), NOSPLIT, $0-80
	GEMM_ROWS_ARGS
	MOVQ mask+72(FP), R13
	VMOVDQU (R13), Y15
	TESTQ BX, BX
	JZ x8done
x8block:
	LEAQ (DI)(DX*2), R15
	ADDQ DX, R15
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ AX, AX
	JZ x8zero
	VMASKMOVPS (DI), Y15, Y0
	VMASKMOVPS (DI)(DX*1), Y15, Y1
	VMASKMOVPS (DI)(DX*2), Y15, Y2
	VMASKMOVPS (R15), Y15, Y3
x8zero:
	GEMM_TERMS
	LEAQ (R12)(R8*2), R14
	ADDQ R8, R14
x8pairs:
	CMPQ CX, $2
	JLT x8single
	LEAQ (R11)(R10*1), R13
	VMASKMOVPS (R9)(R11*1), Y15, Y8
	VMASKMOVPS (R9)(R13*1), Y15, Y9
	FMA4(Y8, 0, Y0, Y1, Y2, Y3)
	FMA4(Y9, 4, Y4, Y5, Y6, Y7)
	LEAQ (R13)(R10*1), R11
	ADDQ $8, R12
	ADDQ $8, R14
	SUBQ $2, CX
	JMP x8pairs
x8single:
	TESTQ CX, CX
	JZ x8sum
	VMASKMOVPS (R9)(R11*1), Y15, Y8
	FMA4(Y8, 0, Y0, Y1, Y2, Y3)
x8sum:
	VADDPS Y4, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	STORE4T(Y0, Y1, Y2, Y3)
	LEAQ (R15)(DX*1), DI
	LEAQ (SI)(R8*2), SI
	LEAQ (SI)(R8*2), SI
	DECQ BX
	JNZ x8block
x8done:
	VZEROUPPER
	RET

// func gemmRows32x3S(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, triples int, acc bool, state *float32, mode int)
//
// gemmRows32x3 over one even-length chunk of the inner dimension, chain B
// kept in state (laid out as dst) between chunks: mode bit 0 starts chain
// B from state (else from zero), bit 1 adds the chains into dst (the last
// chunk; else chain B is stored to state). Chain A lives in dst, starting
// from it when acc. Run over consecutive chunks, the first with mode bit 0
// clear and acc as for the whole product, the others with acc set, it
// gives gemmRows32x3's bits; a chunk of b stays in cache for all the
// triples.
TEXT ·gemmRows32x3S(SB), NOSPLIT, $0-88
	GEMM_ROWS_ARGS
	LEAQ (R10)(R10*1), R13
	TESTQ BX, BX
	JZ s32done
s32block:
	ROWPTRS
	ZERO12
	TESTQ AX, AX
	JZ s32even
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS (R14), Y4
	VMOVUPS 32(R14), Y5
	VMOVUPS 64(R14), Y6
	VMOVUPS 96(R14), Y7
	VMOVUPS (R15), Y8
	VMOVUPS 32(R15), Y9
	VMOVUPS 64(R15), Y10
	VMOVUPS 96(R15), Y11
s32even:
	CHAIN_EVEN
s32evenloop:
	BCAST3
	COL3(0, Y0, Y4, Y8)
	COL3(32, Y1, Y5, Y9)
	COL3(64, Y2, Y6, Y10)
	COL3(96, Y3, Y7, Y11)
	ADDQ R13, R11
	ADDQ $8, R12
	DECQ CX
	JNZ s32evenloop
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, (R14)
	VMOVUPS Y5, 32(R14)
	VMOVUPS Y6, 64(R14)
	VMOVUPS Y7, 96(R14)
	VMOVUPS Y8, (R15)
	VMOVUPS Y9, 32(R15)
	VMOVUPS Y10, 64(R15)
	VMOVUPS Y11, 96(R15)
	ZERO12
	MOVQ mode+80(FP), R12
	TESTQ $1, R12
	JZ s32odd
	MOVQ DI, R11 // the state row of the output row at DI
	SUBQ dst+0(FP), R11
	ADDQ state+72(FP), R11
	VMOVUPS (R11), Y0
	VMOVUPS 32(R11), Y1
	VMOVUPS 64(R11), Y2
	VMOVUPS 96(R11), Y3
	VMOVUPS (R11)(DX*1), Y4
	VMOVUPS 32(R11)(DX*1), Y5
	VMOVUPS 64(R11)(DX*1), Y6
	VMOVUPS 96(R11)(DX*1), Y7
	VMOVUPS (R11)(DX*2), Y8
	VMOVUPS 32(R11)(DX*2), Y9
	VMOVUPS 64(R11)(DX*2), Y10
	VMOVUPS 96(R11)(DX*2), Y11
s32odd:
	CHAIN_ODD
	TESTQ CX, CX
	JZ s32sum
s32oddloop:
	BCAST3
	COL3(0, Y0, Y4, Y8)
	COL3(32, Y1, Y5, Y9)
	COL3(64, Y2, Y6, Y10)
	COL3(96, Y3, Y7, Y11)
	ADDQ R13, R11
	ADDQ $8, R12
	DECQ CX
	JNZ s32oddloop
s32sum:
	MOVQ mode+80(FP), R12
	TESTQ $2, R12
	JNZ s32last
	MOVQ DI, R11 // the state row of the output row at DI
	SUBQ dst+0(FP), R11
	ADDQ state+72(FP), R11
	VMOVUPS Y0, (R11)
	VMOVUPS Y1, 32(R11)
	VMOVUPS Y2, 64(R11)
	VMOVUPS Y3, 96(R11)
	VMOVUPS Y4, (R11)(DX*1)
	VMOVUPS Y5, 32(R11)(DX*1)
	VMOVUPS Y6, 64(R11)(DX*1)
	VMOVUPS Y7, 96(R11)(DX*1)
	VMOVUPS Y8, (R11)(DX*2)
	VMOVUPS Y9, 32(R11)(DX*2)
	VMOVUPS Y10, 64(R11)(DX*2)
	VMOVUPS Y11, 96(R11)(DX*2)
	JMP s32next
s32last:
	ADDTO((DI), Y0)
	ADDTO(32(DI), Y1)
	ADDTO(64(DI), Y2)
	ADDTO(96(DI), Y3)
	ADDTO((R14), Y4)
	ADDTO(32(R14), Y5)
	ADDTO(64(R14), Y6)
	ADDTO(96(R14), Y7)
	ADDTO((R15), Y8)
	ADDTO(32(R15), Y9)
	ADDTO(64(R15), Y10)
	ADDTO(96(R15), Y11)
s32next:
	LEAQ (R15)(DX*1), DI
	LEAQ (SI)(R8*2), SI
	ADDQ R8, SI
	DECQ BX
	JNZ s32block
s32done:
	VZEROUPPER
	RET
