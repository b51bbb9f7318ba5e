//go:build !purego

#include "textflag.h"

// func gatherDotAVX(dst, q, h *float32, stride int, idx *int32, n, blocks int, acc bool, mask *int32, ahead int)
//
// For each of the n rows idx[e] of h: one float32 accumulator over the
// full 8-column blocks and the masked tail (VMASKMOVPS never touches the
// masked lanes, so a row may end anywhere), summed across lanes and stored
// (or added) to dst[e].
//
// Rows go four at a time: each block of q is loaded once for the four
// rows, and the four lane sums share their horizontal additions. Every dot
// still sees the same operations in the same order as a row on its own
// (the one-row loop that takes the last n mod 4): FMAs over the blocks and
// the tail, then lanes i+4 added to lanes i, then (x0+x1)+(x2+x3).
//
// idx[0:ahead] (ahead ≥ n) may be read: the rows of the entries after the n
// dotted (a caller's next segments) are prefetched too.
//
// Registers: DI dst, SI q, DX h, R8 stride in bytes, R9 idx, CX rows left,
// R10 the bytes of full blocks, BX the byte offset within a row, AX and
// R11-R13 row addresses, R14 the offset of a row's last byte read, R15 the
// end of the readable indices, Y15 the tail mask, Y14 the tail of q.
// PF_AHEAD is how many rows ahead the kernel prefetches: a row of a large
// h is a random memory access (a link's child), and the loads of a group
// of four rows alone leave most of the memory latency exposed.
#define PF_AHEAD 16

// PF_ROW prefetches the first and last bytes read of the row idx[off/4]
// (R14 holds the offset of the last one; AX is scratch).
#define PF_ROW(off) \
	MOVLQSX off(R9), AX; \
	IMULQ R8, AX; \
	ADDQ DX, AX; \
	PREFETCHT0 (AX); \
	PREFETCHT0 (AX)(R14*1)

// DOT4_ZERO clears the accumulators Y0-Y3 of four dots.
#define DOT4_ZERO \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3

// DOT4_BLOCK adds one full 8-column block (byte offset BX) of the four rows
// at AX, R11, R12 and R13 times q's block to Y0-Y3 and steps BX to the next.
#define DOT4_BLOCK \
	VMOVUPS (SI)(BX*1), Y8; \
	VFMADD231PS (AX)(BX*1), Y8, Y0; \
	VFMADD231PS (R11)(BX*1), Y8, Y1; \
	VFMADD231PS (R12)(BX*1), Y8, Y2; \
	VFMADD231PS (R13)(BX*1), Y8, Y3; \
	ADDQ $32, BX

// DOT4_TAIL adds the masked tails of the four rows at AX, R11, R12 and R13
// (byte offset BX) times q's tail Y14 to the accumulators Y0-Y3.
#define DOT4_TAIL \
	VMASKMOVPS (AX)(BX*1), Y15, Y4; \
	VMASKMOVPS (R11)(BX*1), Y15, Y5; \
	VMASKMOVPS (R12)(BX*1), Y15, Y6; \
	VMASKMOVPS (R13)(BX*1), Y15, Y7; \
	VFMADD231PS Y14, Y4, Y0; \
	VFMADD231PS Y14, Y5, Y1; \
	VFMADD231PS Y14, Y6, Y2; \
	VFMADD231PS Y14, Y7, Y3

// DOT4_SUM sums the lanes of Y0-Y3 into the four dots in X0: lanes i+4
// onto lanes i, then (x0+x1)+(x2+x3) by horizontal additions (a0+a1,
// a2+a3, b0+b1, b2+b3; the same for c and d; then the four dots).
#define DOT4_SUM \
	VEXTRACTF128 $1, Y0, X4; \
	VEXTRACTF128 $1, Y1, X5; \
	VEXTRACTF128 $1, Y2, X6; \
	VEXTRACTF128 $1, Y3, X7; \
	VADDPS X4, X0, X0; \
	VADDPS X5, X1, X1; \
	VADDPS X6, X2, X2; \
	VADDPS X7, X3, X3; \
	VHADDPS X1, X0, X0; \
	VHADDPS X3, X2, X2; \
	VHADDPS X2, X0, X0

TEXT ·gatherDotAVX(SB), NOSPLIT, $0-80
	MOVQ dst+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ stride+24(FP), R8
	SHLQ $2, R8
	MOVQ idx+32(FP), R9
	MOVQ n+40(FP), CX
	MOVQ blocks+48(FP), R10
	SHLQ $5, R10
	MOVQ ahead+72(FP), R15
	LEAQ (R9)(R15*4), R15 // the end of the readable indices
	LEAQ -4(R10), R14 // the last byte of the full blocks, or of the tail:
	MOVQ mask+64(FP), BX
	TESTQ BX, BX
	JZ g4loop
	ADDQ $32, R14
	VMOVDQU (BX), Y15
	VMASKMOVPS (SI)(R10*1), Y15, Y14 // the tail of q

g4loop:
	CMPQ CX, $4
	JLT g1loop
	LEAQ (4*PF_AHEAD+12)(R9), AX
	CMPQ AX, R15
	JGE g4rows
	PF_ROW(4*PF_AHEAD)
	PF_ROW(4*PF_AHEAD+4)
	PF_ROW(4*PF_AHEAD+8)
	PF_ROW(4*PF_AHEAD+12)

g4rows:
	MOVLQSX (R9), AX
	IMULQ R8, AX
	ADDQ DX, AX
	MOVLQSX 4(R9), R11
	IMULQ R8, R11
	ADDQ DX, R11
	MOVLQSX 8(R9), R12
	IMULQ R8, R12
	ADDQ DX, R12
	MOVLQSX 12(R9), R13
	IMULQ R8, R13
	ADDQ DX, R13
	DOT4_ZERO
	XORQ BX, BX
	CMPQ BX, R10
	JEQ g4tail

g4block:
	DOT4_BLOCK
	CMPQ BX, R10
	JNE g4block

g4tail:
	CMPQ mask+64(FP), $0
	JEQ g4sum
	DOT4_TAIL

g4sum:
	DOT4_SUM
	CMPB acc+56(FP), $0
	JEQ g4store
	VADDPS (DI), X0, X0

g4store:
	VMOVUPS X0, (DI)
	ADDQ $16, DI
	ADDQ $16, R9
	SUBQ $4, CX
	JMP g4loop

g1loop:
	TESTQ CX, CX
	JZ gdone
	MOVLQSX (R9), AX
	IMULQ R8, AX
	ADDQ DX, AX
	VXORPS Y0, Y0, Y0
	XORQ BX, BX
	CMPQ BX, R10
	JEQ g1tail

g1block:
	VMOVUPS (AX)(BX*1), Y1
	VFMADD231PS (SI)(BX*1), Y1, Y0
	ADDQ $32, BX
	CMPQ BX, R10
	JNE g1block

g1tail:
	CMPQ mask+64(FP), $0
	JEQ g1sum
	VMASKMOVPS (AX)(BX*1), Y15, Y1
	VFMADD231PS Y14, Y1, Y0

g1sum:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	CMPB acc+56(FP), $0
	JEQ g1store
	VADDSS (DI), X0, X0

g1store:
	VMOVSS X0, (DI)
	ADDQ $4, DI
	ADDQ $4, R9
	DECQ CX
	JMP g1loop

gdone:
	VZEROUPPER
	RET

// PF_LINKS4 is how many links ahead gatherDotLinks4AVX prefetches a link's
// four rows.
#define PF_LINKS4 4

// func gatherDotLinks4AVX(dst, q, h *float32, stride int, child *int32, links, blocks int, acc bool, mask *int32, ahead int)
//
// gatherDotAVX for the four rows child[e]·4 + r (r = 0 … 3) of each of the
// links e, in that order: dst[4e + r] (+)= q·h[child[e]·4 + r]. A link's
// four rows are one group of gatherDotAVX's four-row loop, so every dot sees
// the same operations in the same order: the same bits, from one index entry
// per link instead of four. links ≥ 1; child[0:ahead] (ahead ≥ links) may
// be read: the rows of the links after those dotted are prefetched.
//
// Registers as gatherDotAVX's, with R9 the child indices and CX the links
// left.
TEXT ·gatherDotLinks4AVX(SB), NOSPLIT, $0-80
	MOVQ dst+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ stride+24(FP), R8
	SHLQ $2, R8
	MOVQ child+32(FP), R9
	MOVQ links+40(FP), CX
	MOVQ blocks+48(FP), R10
	SHLQ $5, R10
	MOVQ ahead+72(FP), R15
	LEAQ (R9)(R15*4), R15 // the end of the readable child indices
	LEAQ -4(R10), R14 // the last byte of the full blocks, or of the tail:
	MOVQ mask+64(FP), BX
	TESTQ BX, BX
	JZ l4loop
	ADDQ $32, R14
	VMOVDQU (BX), Y15
	VMASKMOVPS (SI)(R10*1), Y15, Y14 // the tail of q

l4loop:
	LEAQ (4*PF_LINKS4)(R9), AX
	CMPQ AX, R15
	JGE l4rows
	MOVLQSX (4*PF_LINKS4)(R9), AX
	IMULQ R8, AX
	SHLQ $2, AX
	ADDQ DX, AX
	PREFETCHT0 (AX)
	PREFETCHT0 (AX)(R8*1)
	PREFETCHT0 (AX)(R8*2)
	LEAQ (AX)(R8*2), AX
	PREFETCHT0 (AX)(R8*1)
	LEAQ (AX)(R8*1), AX
	PREFETCHT0 (AX)(R14*1) // the last byte read of the fourth row

l4rows:
	MOVLQSX (R9), AX
	IMULQ R8, AX
	SHLQ $2, AX
	ADDQ DX, AX
	LEAQ (AX)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	DOT4_ZERO
	XORQ BX, BX
	CMPQ BX, R10
	JEQ l4tail

l4block:
	DOT4_BLOCK
	CMPQ BX, R10
	JNE l4block

l4tail:
	CMPQ mask+64(FP), $0
	JEQ l4sum
	DOT4_TAIL

l4sum:
	DOT4_SUM
	CMPB acc+56(FP), $0
	JEQ l4store
	VADDPS (DI), X0, X0

l4store:
	VMOVUPS X0, (DI)
	ADDQ $16, DI
	ADDQ $4, R9
	DECQ CX
	JNZ l4loop
	VZEROUPPER
	RET
