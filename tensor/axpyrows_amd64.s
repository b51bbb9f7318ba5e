//go:build !purego

#include "textflag.h"
#include "axpyrows_amd64.h"
#include "gemm_amd64.h"

// Pieces shared by the row-sum kernels below, which keep output rows in
// registers across all their terms. A source row is at (base)(off*1); Y15
// holds the tail mask where there is one.

// ROW32 adds w times the 32 floats of a source row to a0-a3.
#define ROW32(w, base, off, a0, a1, a2, a3) \
	VFMADD231PS (base)(off*1), w, a0; \
	VFMADD231PS 32(base)(off*1), w, a1; \
	VFMADD231PS 64(base)(off*1), w, a2; \
	VFMADD231PS 96(base)(off*1), w, a3

// ROW16T adds w times a source row of 17-23 columns (two 8-column blocks
// and the masked tail, loaded into t) to a0-a2.
#define ROW16T(w, base, off, t, a0, a1, a2) \
	VFMADD231PS (base)(off*1), w, a0; \
	VFMADD231PS 32(base)(off*1), w, a1; \
	VMASKMOVPS 64(base)(off*1), Y15, t; \
	VFMADD231PS t, w, a2

// ROW16T2 is ROW16T for two output rows at once, a0-a2 with weight w and
// b0-b2 with weight v, loading the source row's tail once.
#define ROW16T2(w, v, base, off, t, a0, a1, a2, b0, b1, b2) \
	VMASKMOVPS 64(base)(off*1), Y15, t; \
	VFMADD231PS (base)(off*1), w, a0; \
	VFMADD231PS 32(base)(off*1), w, a1; \
	VFMADD231PS t, w, a2; \
	VFMADD231PS (base)(off*1), v, b0; \
	VFMADD231PS 32(base)(off*1), v, b1; \
	VFMADD231PS t, v, b2

// LOAD32 and STORE32 move the 32 floats at p to and from a0-a3; LOAD16T and
// STORE16T the 17-23 floats at p (masked by Y15) to and from a0-a2.
#define LOAD32(p, a0, a1, a2, a3) \
	VMOVUPS (p), a0; \
	VMOVUPS 32(p), a1; \
	VMOVUPS 64(p), a2; \
	VMOVUPS 96(p), a3

#define STORE32(p, a0, a1, a2, a3) \
	VMOVUPS a0, (p); \
	VMOVUPS a1, 32(p); \
	VMOVUPS a2, 64(p); \
	VMOVUPS a3, 96(p)

#define LOAD16T(p, a0, a1, a2) \
	VMOVUPS (p), a0; \
	VMOVUPS 32(p), a1; \
	VMASKMOVPS 64(p), Y15, a2

#define STORE16T(p, a0, a1, a2) \
	VMOVUPS a0, (p); \
	VMOVUPS a1, 32(p); \
	VMASKMOVPS a2, Y15, 64(p)

// START16T clears the two accumulator sets of a 17-23-column sum (Y0-Y2
// for the even terms, Y8-Y10 for the odd ones) and, when AX (acc) is set,
// loads the output row at DI into the first; start is the label that
// follows it.
#define START16T(start) \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	TESTQ AX, AX; \
	JZ start; \
	LOAD16T(DI, Y0, Y1, Y2)

// ADD4 adds b0-b3 into a0-a3 (the odd terms' chain into the even one's).
#define ADD4(a0, a1, a2, a3, b0, b1, b2, b3) \
	VADDPS b0, a0, a0; \
	VADDPS b1, a1, a1; \
	VADDPS b2, a2, a2; \
	VADDPS b3, a3, a3

#define ADD3(a0, a1, a2, b0, b1, b2) \
	VADDPS b0, a0, a0; \
	VADDPS b1, a1, a1; \
	VADDPS b2, a2, a2

// func axpyRows32(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool)
//
// dst[0:32] = (acc ? dst[0:32] : 0) + Σ_{e<n} w[e]·h[idx[e]·stride : idx[e]·stride+32],
// keeping the 32 outputs in YMM registers across all n terms, so the output
// row is loaded and stored once per call instead of once per term; even and
// odd terms go to separate accumulators, halving the FMA dependency chain.
// Zero weights are not skipped: after dropout they come in a random
// pattern, and the mispredicted branches cost more than the work saved.
TEXT ·axpyRows32(SB), NOSPLIT, $0-49
	ROWS_ARGS
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ AX, AX
	JZ r32loop0
	LOAD32(DI, Y0, Y1, Y2, Y3)
r32loop0:
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
r32pairs: // two terms per iteration into two sets of accumulators
	CMPQ CX, $2
	JLT r32single
	TERM_PAIR
	VBROADCASTSS (R9), Y4
	VBROADCASTSS 4(R9), Y5
	ROW32(Y4, SI, R10, Y0, Y1, Y2, Y3)
	ROW32(Y5, SI, R11, Y8, Y9, Y10, Y11)
	ADDQ $8, R8
	ADDQ $8, R9
	SUBQ $2, CX
	JMP r32pairs
r32single:
	TESTQ CX, CX
	JZ r32sum
	MOVLQSX (R8), R10
	IMULQ DX, R10
	VBROADCASTSS (R9), Y4
	ROW32(Y4, SI, R10, Y0, Y1, Y2, Y3)
r32sum:
	ADD4(Y0, Y1, Y2, Y3, Y8, Y9, Y10, Y11)
	STORE32(DI, Y0, Y1, Y2, Y3)
	VZEROUPPER
	RET

// func axpyRows8(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool)
//
// The same for 8 outputs, alternating two accumulators so that consecutive
// terms do not wait on each other's FMA.
TEXT ·axpyRows8(SB), NOSPLIT, $0-49
	ROWS_ARGS
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	TESTQ AX, AX
	JZ r8pairs
	VMOVUPS (DI), Y0
r8pairs:
	CMPQ CX, $2
	JLT r8single
	TERM_PAIR
	VBROADCASTSS (R9), Y4
	VBROADCASTSS 4(R9), Y5
	VFMADD231PS (SI)(R10*1), Y4, Y0
	VFMADD231PS (SI)(R11*1), Y5, Y1
	ADDQ $8, R8
	ADDQ $8, R9
	SUBQ $2, CX
	JMP r8pairs
r8single:
	TESTQ CX, CX
	JZ r8done
	MOVLQSX (R8), R10
	IMULQ DX, R10
	VBROADCASTSS (R9), Y4
	VFMADD231PS (SI)(R10*1), Y4, Y0
r8done:
	VADDPS Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	VZEROUPPER
	RET

// func sumRows32(dst *float32, h *float32, stride int, idx *int32, n int, acc bool)
//
// Unit weights: dst[0:32] (+)= Σ_{e<n} h[idx[e]·stride : +32].
TEXT ·sumRows32(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX
	MOVQ idx+24(FP), R8
	MOVQ n+32(FP), CX
	MOVBLZX acc+40(FP), AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ AX, AX
	JZ s32loop0
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
s32loop0:
	TESTQ CX, CX
	JZ s32done
s32loop:
	MOVLQSX (R8), R10
	IMULQ DX, R10
	VADDPS (SI)(R10*1), Y0, Y0
	VADDPS 32(SI)(R10*1), Y1, Y1
	VADDPS 64(SI)(R10*1), Y2, Y2
	VADDPS 96(SI)(R10*1), Y3, Y3
	ADDQ $4, R8
	DECQ CX
	JNZ s32loop
s32done:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VZEROUPPER
	RET

// func sumRows8(dst *float32, h *float32, stride int, idx *int32, n int, acc bool)
TEXT ·sumRows8(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX
	MOVQ idx+24(FP), R8
	MOVQ n+32(FP), CX
	MOVBLZX acc+40(FP), AX
	VXORPS Y0, Y0, Y0
	TESTQ AX, AX
	JZ s8loop0
	VMOVUPS (DI), Y0
s8loop0:
	TESTQ CX, CX
	JZ s8done
s8loop:
	MOVLQSX (R8), R10
	IMULQ DX, R10
	VADDPS (SI)(R10*1), Y0, Y0
	ADDQ $4, R8
	DECQ CX
	JNZ s8loop
s8done:
	VMOVUPS Y0, (DI)
	VZEROUPPER
	RET

// func axpyRowsTail(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool, mask *int32)
//
// axpyRows8 for the first 1-7 columns, those whose mask lane is all ones:
// masked loads and stores (VMASKMOVPS) never touch the other lanes, so the
// last row of h and dst can end anywhere. A nil w means unit weights.
TEXT ·axpyRowsTail(SB), NOSPLIT, $0-64
	ROWS_ARGS
	MOVQ mask+56(FP), BX
	VMOVDQU (BX), Y5
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	TESTQ AX, AX
	JZ rtstart
	VMASKMOVPS (DI), Y5, Y0
rtstart:
	TESTQ R9, R9
	JZ rtunit
rtpairs:
	CMPQ CX, $2
	JLT rtsingle
	TERM_PAIR
	VMASKMOVPS (SI)(R10*1), Y5, Y6
	VMASKMOVPS (SI)(R11*1), Y5, Y7
	VBROADCASTSS (R9), Y2
	VBROADCASTSS 4(R9), Y3
	VFMADD231PS Y6, Y2, Y0
	VFMADD231PS Y7, Y3, Y1
	ADDQ $8, R8
	ADDQ $8, R9
	SUBQ $2, CX
	JMP rtpairs
rtsingle:
	TESTQ CX, CX
	JZ rtdone
	MOVLQSX (R8), R10
	IMULQ DX, R10
	VMASKMOVPS (SI)(R10*1), Y5, Y6
	VBROADCASTSS (R9), Y2
	VFMADD231PS Y6, Y2, Y0
	JMP rtdone
rtunit:
	CMPQ CX, $2
	JLT rtunit1
	TERM_PAIR
	VMASKMOVPS (SI)(R10*1), Y5, Y6
	VMASKMOVPS (SI)(R11*1), Y5, Y7
	VADDPS Y6, Y0, Y0
	VADDPS Y7, Y1, Y1
	ADDQ $8, R8
	SUBQ $2, CX
	JMP rtunit
rtunit1:
	TESTQ CX, CX
	JZ rtdone
	MOVLQSX (R8), R10
	IMULQ DX, R10
	VMASKMOVPS (SI)(R10*1), Y5, Y6
	VADDPS Y6, Y0, Y0
rtdone:
	VADDPS Y1, Y0, Y0
	VMASKMOVPS Y0, Y5, (DI)
	VZEROUPPER
	RET

// PF_TERMS is how many terms ahead axpyRows16Tail prefetches its source
// rows: a term's row is a random access on a large graph (a parent's
// child), whose latency the prefetch overlaps with the terms before it.
// The terms ahead may belong to the next output rows (ahead, below).
#define PF_TERMS 16

// PF_TERM prefetches the cache lines of bytes 0 and 68 of the row
// idx[off/4] from SI: all of a 17-23-column row. R14 is scratch.
#define PF_TERM(off) \
	MOVLQSX off(R8), R14; \
	IMULQ DX, R14; \
	ADDQ SI, R14; \
	PREFETCHT0 (R14); \
	PREFETCHT0 68(R14)

// func axpyRows16Tail(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool, mask *int32, ahead int)
//
// axpyRows32's sum for rows of 17-23 columns (the routing's d = 18): two
// full 8-column blocks and a masked tail in one pass over the terms, instead
// of one pass per block. w must not be nil. idx[0:ahead] (ahead ≥ n) may be
// read: the terms after the n summed, whose rows are prefetched.
TEXT ·axpyRows16Tail(SB), NOSPLIT, $0-72
	ROWS_ARGS
	MOVQ mask+56(FP), BX
	MOVQ ahead+64(FP), R15
	LEAQ (R8)(R15*4), R15 // the end of the readable indices
	VMOVDQU (BX), Y15
	START16T(q16pairs)
q16pairs: // two terms per iteration into two sets of accumulators
	CMPQ CX, $2
	JLT q16single
	LEAQ (4*PF_TERMS+4)(R8), R14
	CMPQ R14, R15
	JGE q16rows
	PF_TERM(4*PF_TERMS)
	PF_TERM(4*PF_TERMS+4)
q16rows:
	TERM_PAIR
	VBROADCASTSS (R9), Y4
	VBROADCASTSS 4(R9), Y5
	ROW16T(Y4, SI, R10, Y6, Y0, Y1, Y2)
	ROW16T(Y5, SI, R11, Y7, Y8, Y9, Y10)
	ADDQ $8, R8
	ADDQ $8, R9
	SUBQ $2, CX
	JMP q16pairs
q16single:
	TESTQ CX, CX
	JZ q16sum
	MOVLQSX (R8), R10
	IMULQ DX, R10
	VBROADCASTSS (R9), Y4
	ROW16T(Y4, SI, R10, Y6, Y0, Y1, Y2)
q16sum:
	ADD3(Y0, Y1, Y2, Y8, Y9, Y10)
	STORE16T(DI, Y0, Y1, Y2)
	VZEROUPPER
	RET

// func axpyRows16Tail2(dst *float32, h *float32, stride int, idx *int32, w0, w1 *float32, n int, acc bool, mask *int32)
//
// axpyRows16Tail for two output rows that sum the same source rows of h
// with their own weights: dst[0:stride] with w0 and the next row,
// dst[stride:2·stride], with w1. Each source row is read once for both.
// Each output row gets the operations of axpyRows16Tail in the same order
// (even terms onto the old row or zero, odd terms onto zero, then the two
// added), so the results are the same bits.
//
// Y0-Y2 and Y3-Y5 are the two chains of row 0, Y6-Y8 and Y9-Y11 those of
// row 1; Y12, Y13 the broadcast weights, Y14 a masked tail, Y15 the mask.
TEXT ·axpyRows16Tail2(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX
	MOVQ idx+24(FP), R8
	MOVQ w0+32(FP), R9
	MOVQ w1+40(FP), R12
	MOVQ n+48(FP), CX
	MOVBLZX acc+56(FP), AX
	MOVQ mask+64(FP), BX
	VMOVDQU (BX), Y15
	LEAQ (DI)(DX*1), R13 // the second output row
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ AX, AX
	JZ t2pairs
	LOAD16T(DI, Y0, Y1, Y2)
	LOAD16T(R13, Y6, Y7, Y8)
t2pairs: // two terms per iteration into two sets of accumulators
	CMPQ CX, $2
	JLT t2single
	TERM_PAIR
	VBROADCASTSS (R9), Y12
	VBROADCASTSS (R12), Y13
	ROW16T2(Y12, Y13, SI, R10, Y14, Y0, Y1, Y2, Y6, Y7, Y8)
	VBROADCASTSS 4(R9), Y12
	VBROADCASTSS 4(R12), Y13
	ROW16T2(Y12, Y13, SI, R11, Y14, Y3, Y4, Y5, Y9, Y10, Y11)
	ADDQ $8, R8
	ADDQ $8, R9
	ADDQ $8, R12
	SUBQ $2, CX
	JMP t2pairs
t2single:
	TESTQ CX, CX
	JZ t2sum
	MOVLQSX (R8), R10
	IMULQ DX, R10
	VBROADCASTSS (R9), Y12
	VBROADCASTSS (R12), Y13
	ROW16T2(Y12, Y13, SI, R10, Y14, Y0, Y1, Y2, Y6, Y7, Y8)
t2sum:
	ADD3(Y0, Y1, Y2, Y3, Y4, Y5)
	ADD3(Y6, Y7, Y8, Y9, Y10, Y11)
	STORE16T(DI, Y0, Y1, Y2)
	STORE16T(R13, Y6, Y7, Y8)
	VZEROUPPER
	RET

// func gemmRows32(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool)
//
// A 32-column block of a dense product, row by row: for each of rows output
// rows r, dst[r·ldd : +32] = (acc ? dst[r·ldd : +32] : 0) + Σ_{p<k}
// a[r·lda+p]·b[p·ldb : +32]. Each row gets axpyRows32's operations in its
// order (even terms onto the old row or zero, odd terms onto zero, then the
// two added), so the results are the same bits; here the rows of b follow
// each other at a fixed stride instead of through an index vector, and one
// call covers all rows.
TEXT ·gemmRows32(SB), NOSPLIT, $0-65
	GEMM_ROWS_ARGS
	TESTQ BX, BX
	JZ g32done
g32row:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ AX, AX
	JZ g32zero
	LOAD32(DI, Y0, Y1, Y2, Y3)
g32zero:
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	GEMM_TERMS
g32pairs: // two terms per iteration into two sets of accumulators
	CMPQ CX, $2
	JLT g32single
	GEMM_PAIR(Y4, Y5)
	ROW32(Y4, R9, R11, Y0, Y1, Y2, Y3)
	ROW32(Y5, R9, R13, Y8, Y9, Y10, Y11)
	GEMM_PAIR_NEXT
	JMP g32pairs
g32single:
	TESTQ CX, CX
	JZ g32sum
	VBROADCASTSS (R12), Y4
	ROW32(Y4, R9, R11, Y0, Y1, Y2, Y3)
g32sum:
	ADD4(Y0, Y1, Y2, Y3, Y8, Y9, Y10, Y11)
	STORE32(DI, Y0, Y1, Y2, Y3)
	ADDQ DX, DI
	ADDQ R8, SI
	DECQ BX
	JNZ g32row
g32done:
	VZEROUPPER
	RET

// func gemmRows16Tail(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask *int32)
//
// gemmRows32 for products 17-23 columns wide (two full 8-column blocks and
// the masked tail, the first 1-7 lanes of mask): each row gets
// axpyRows16Tail's operations in its order, so the results are the same
// bits.
TEXT ·gemmRows16Tail(SB), NOSPLIT, $0-80
	GEMM_ROWS_ARGS
	MOVQ mask+72(FP), R13
	VMOVDQU (R13), Y15
	TESTQ BX, BX
	JZ h16done
h16row:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	TESTQ AX, AX
	JZ h16zero
	LOAD16T(DI, Y0, Y1, Y2)
h16zero:
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	GEMM_TERMS
h16pairs: // two terms per iteration into two sets of accumulators
	CMPQ CX, $2
	JLT h16single
	GEMM_PAIR(Y4, Y5)
	ROW16T(Y4, R9, R11, Y6, Y0, Y1, Y2)
	ROW16T(Y5, R9, R13, Y7, Y8, Y9, Y10)
	GEMM_PAIR_NEXT
	JMP h16pairs
h16single:
	TESTQ CX, CX
	JZ h16sum
	VBROADCASTSS (R12), Y4
	ROW16T(Y4, R9, R11, Y6, Y0, Y1, Y2)
h16sum:
	ADD3(Y0, Y1, Y2, Y8, Y9, Y10)
	STORE16T(DI, Y0, Y1, Y2)
	ADDQ DX, DI
	ADDQ R8, SI
	DECQ BX
	JNZ h16row
h16done:
	VZEROUPPER
	RET

// func gemmRows8(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, rows int, acc bool, mask *int32)
//
// gemmRows32 for an 8-column block, or its first 1-7 columns where mask
// has 1-7 lanes set (masked loads and stores never touch the others): each
// row gets axpyRows8's (or, masked, axpyRowsTail's) operations in their
// order, so the results are the same bits.
TEXT ·gemmRows8(SB), NOSPLIT, $0-80
	GEMM_ROWS_ARGS
	MOVQ mask+72(FP), R13
	VMOVDQU (R13), Y15
	TESTQ BX, BX
	JZ g8done
g8row:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	TESTQ AX, AX
	JZ g8zero
	VMASKMOVPS (DI), Y15, Y0
g8zero:
	GEMM_TERMS
g8pairs:
	CMPQ CX, $2
	JLT g8single
	GEMM_PAIR(Y4, Y5)
	VMASKMOVPS (R9)(R11*1), Y15, Y6
	VMASKMOVPS (R9)(R13*1), Y15, Y7
	VFMADD231PS Y6, Y4, Y0
	VFMADD231PS Y7, Y5, Y1
	GEMM_PAIR_NEXT
	JMP g8pairs
g8single:
	TESTQ CX, CX
	JZ g8sum
	VBROADCASTSS (R12), Y4
	VMASKMOVPS (R9)(R11*1), Y15, Y6
	VFMADD231PS Y6, Y4, Y0
g8sum:
	VADDPS Y1, Y0, Y0
	VMASKMOVPS Y0, Y15, (DI)
	ADDQ DX, DI
	ADDQ R8, SI
	DECQ BX
	JNZ g8row
g8done:
	VZEROUPPER
	RET

// PF_LINKS is how many links ahead axpyLinks16Tail4 and gatherDotLinks4AVX
// prefetch a link's four source rows (PF_TERMS and PF_AHEAD rows ahead,
// as axpyRows16Tail and gatherDotAVX do).
#define PF_LINKS 4

// func axpyLinks16Tail4(dst *float32, h *float32, stride int, child *int32, w *float32, links int, acc bool, mask *int32, ahead int)
//
// axpyRows16Tail over the pairs of links with four source rows each: the
// terms are, link e after link e, the rows child[e]·4 + r (r = 0 … 3) of h
// with the weights w[4e + r]. These are axpyRows16Tail's operations on the
// index child[e]·4 + r written out, in its order (even terms onto one set
// of accumulators, odd terms onto the other, which for four terms a link
// is rows 0 and 2 onto the first and rows 1 and 3 onto the second), so the
// results are the same bits, from one index entry per link instead of
// four. links ≥ 1; child[0:ahead] (ahead ≥ links) may be read: the rows of
// the links after those summed are prefetched.
TEXT ·axpyLinks16Tail4(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX // a row's bytes
	MOVQ child+24(FP), R8
	MOVQ w+32(FP), R9
	MOVQ links+40(FP), CX
	MOVBLZX acc+48(FP), AX
	MOVQ mask+56(FP), BX
	MOVQ ahead+64(FP), R15
	LEAQ (R8)(R15*4), R15 // the end of the readable child indices
	LEAQ (DX)(DX*2), R12 // three rows' bytes
	VMOVDQU (BX), Y15
	START16T(l16links)
l16links:
	LEAQ (4*PF_LINKS)(R8), R14
	CMPQ R14, R15
	JGE l16rows
	MOVLQSX (4*PF_LINKS)(R8), R14
	IMULQ DX, R14
	SHLQ $2, R14
	ADDQ SI, R14
	PREFETCHT0 (R14)
	PREFETCHT0 (R14)(DX*1)
	PREFETCHT0 (R14)(DX*2)
	PREFETCHT0 (R14)(R12*1)
	LEAQ (R14)(R12*1), R14
	PREFETCHT0 -4(R14)(DX*1) // the last byte of the fourth row
l16rows:
	MOVLQSX (R8), R10
	IMULQ DX, R10
	SHLQ $2, R10 // the link's first row: child·4 rows
	LEAQ (R10)(DX*1), R11
	VBROADCASTSS (R9), Y4
	VBROADCASTSS 4(R9), Y5
	ROW16T(Y4, SI, R10, Y6, Y0, Y1, Y2)
	ROW16T(Y5, SI, R11, Y7, Y8, Y9, Y10)
	LEAQ (R10)(DX*2), R10
	LEAQ (R11)(DX*2), R11
	VBROADCASTSS 8(R9), Y4
	VBROADCASTSS 12(R9), Y5
	ROW16T(Y4, SI, R10, Y6, Y0, Y1, Y2)
	ROW16T(Y5, SI, R11, Y7, Y8, Y9, Y10)
	ADDQ $4, R8
	ADDQ $16, R9
	DECQ CX
	JNZ l16links
	ADD3(Y0, Y1, Y2, Y8, Y9, Y10)
	STORE16T(DI, Y0, Y1, Y2)
	VZEROUPPER
	RET
