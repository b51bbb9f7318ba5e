//go:build !purego

#include "textflag.h"

// tanhc: the numerator's coefficients of Tanh32's rational approximation
// (broadcast once per call); tanhv: 1, 9, −9, −1 and the denominator's
// coefficients, eight lanes each (read as vector operands in the loops).
DATA tanhc<>+0(SB)/4, $-9.0337703313182651e-14
DATA tanhc<>+4(SB)/4, $5.4918560994336823e-11
DATA tanhc<>+8(SB)/4, $-2.0672956488592177e-08
DATA tanhc<>+12(SB)/4, $1.1265443242805658e-05
DATA tanhc<>+16(SB)/4, $0.0031146322246567051
DATA tanhc<>+20(SB)/4, $0.1309358545327545
DATA tanhc<>+24(SB)/4, $0.99999999740558165
GLOBL tanhc<>(SB), RODATA|NOPTR, $28

DATA tanhv<>+0(SB)/4, $1.0
DATA tanhv<>+4(SB)/4, $1.0
DATA tanhv<>+8(SB)/4, $1.0
DATA tanhv<>+12(SB)/4, $1.0
DATA tanhv<>+16(SB)/4, $1.0
DATA tanhv<>+20(SB)/4, $1.0
DATA tanhv<>+24(SB)/4, $1.0
DATA tanhv<>+28(SB)/4, $1.0
DATA tanhv<>+32(SB)/4, $9.0
DATA tanhv<>+36(SB)/4, $9.0
DATA tanhv<>+40(SB)/4, $9.0
DATA tanhv<>+44(SB)/4, $9.0
DATA tanhv<>+48(SB)/4, $9.0
DATA tanhv<>+52(SB)/4, $9.0
DATA tanhv<>+56(SB)/4, $9.0
DATA tanhv<>+60(SB)/4, $9.0
DATA tanhv<>+64(SB)/4, $-9.0
DATA tanhv<>+68(SB)/4, $-9.0
DATA tanhv<>+72(SB)/4, $-9.0
DATA tanhv<>+76(SB)/4, $-9.0
DATA tanhv<>+80(SB)/4, $-9.0
DATA tanhv<>+84(SB)/4, $-9.0
DATA tanhv<>+88(SB)/4, $-9.0
DATA tanhv<>+92(SB)/4, $-9.0
DATA tanhv<>+96(SB)/4, $-1.0
DATA tanhv<>+100(SB)/4, $-1.0
DATA tanhv<>+104(SB)/4, $-1.0
DATA tanhv<>+108(SB)/4, $-1.0
DATA tanhv<>+112(SB)/4, $-1.0
DATA tanhv<>+116(SB)/4, $-1.0
DATA tanhv<>+120(SB)/4, $-1.0
DATA tanhv<>+124(SB)/4, $-1.0
DATA tanhv<>+128(SB)/4, $0.00025616602078102111
DATA tanhv<>+132(SB)/4, $0.00025616602078102111
DATA tanhv<>+136(SB)/4, $0.00025616602078102111
DATA tanhv<>+140(SB)/4, $0.00025616602078102111
DATA tanhv<>+144(SB)/4, $0.00025616602078102111
DATA tanhv<>+148(SB)/4, $0.00025616602078102111
DATA tanhv<>+152(SB)/4, $0.00025616602078102111
DATA tanhv<>+156(SB)/4, $0.00025616602078102111
DATA tanhv<>+160(SB)/4, $0.024537747580041666
DATA tanhv<>+164(SB)/4, $0.024537747580041666
DATA tanhv<>+168(SB)/4, $0.024537747580041666
DATA tanhv<>+172(SB)/4, $0.024537747580041666
DATA tanhv<>+176(SB)/4, $0.024537747580041666
DATA tanhv<>+180(SB)/4, $0.024537747580041666
DATA tanhv<>+184(SB)/4, $0.024537747580041666
DATA tanhv<>+188(SB)/4, $0.024537747580041666
DATA tanhv<>+192(SB)/4, $0.46426915103309296
DATA tanhv<>+196(SB)/4, $0.46426915103309296
DATA tanhv<>+200(SB)/4, $0.46426915103309296
DATA tanhv<>+204(SB)/4, $0.46426915103309296
DATA tanhv<>+208(SB)/4, $0.46426915103309296
DATA tanhv<>+212(SB)/4, $0.46426915103309296
DATA tanhv<>+216(SB)/4, $0.46426915103309296
DATA tanhv<>+220(SB)/4, $0.46426915103309296
GLOBL tanhv<>(SB), RODATA|NOPTR, $224

// TANH_Y0 replaces x in Y0 by τ = tanh(x), the rational approximation
// x·P(x²)/Q(x²) of Tanh32 in float32 after clamping x to [−9, 9]. The
// numerator's coefficients must be in Y9-Y15 (LOAD_TANH_P); the
// denominator's, 1 and ±9 are read from tanhv. Scratch: Y1-Y3. One macro
// for the forward and the backward kernel, so that the backward pass
// recomputes the forward pass's τ bit for bit.
#define LOAD_TANH_P \
	VBROADCASTSS tanhc<>+0(SB), Y9; \
	VBROADCASTSS tanhc<>+4(SB), Y10; \
	VBROADCASTSS tanhc<>+8(SB), Y11; \
	VBROADCASTSS tanhc<>+12(SB), Y12; \
	VBROADCASTSS tanhc<>+16(SB), Y13; \
	VBROADCASTSS tanhc<>+20(SB), Y14; \
	VBROADCASTSS tanhc<>+24(SB), Y15

#define TANH_Y0 \
	VMINPS tanhv<>+32(SB), Y0, Y0; \
	VMAXPS tanhv<>+64(SB), Y0, Y0; \
	VMULPS Y0, Y0, Y1; \
	VMOVAPS Y9, Y2; \
	VFMADD213PS Y10, Y1, Y2; \
	VFMADD213PS Y11, Y1, Y2; \
	VFMADD213PS Y12, Y1, Y2; \
	VFMADD213PS Y13, Y1, Y2; \
	VFMADD213PS Y14, Y1, Y2; \
	VFMADD213PS Y15, Y1, Y2; \
	VMOVUPS tanhv<>+128(SB), Y3; \
	VFMADD213PS tanhv<>+160(SB), Y1, Y3; \
	VFMADD213PS tanhv<>+192(SB), Y1, Y3; \
	VFMADD213PS tanhv<>+0(SB), Y1, Y3; \
	VMULPS Y2, Y0, Y0; \
	VDIVPS Y3, Y0, Y0

// TANH_BACK adds one 8-lane step of the backward pass for τ in Y0: δ =
// (τ²−1)·w·(−up) with −up[b] in Y4 (which rounds exactly like
// (1−τ²)·w·up[b]) to the rows at DI and R12 (each unless nil), and up·τ
// (up[b] in float64 in Y5) to the float64 dw at R9 (unless nil, then
// advanced). w is at R8, BX the byte offset; scratch Y6-Y8. The labels
// passed are the skip targets of the three optional operands.
#define TANH_BACK(nodst, nodst2, nodw) \
	VMULPS Y0, Y0, Y6; \
	VSUBPS tanhv<>+0(SB), Y6, Y6; \
	VMULPS (R8)(BX*1), Y6, Y6; \
	VMULPS Y4, Y6, Y6; \
	TESTQ DI, DI; \
	JZ nodst; \
	VADDPS (DI)(BX*1), Y6, Y7; \
	VMOVUPS Y7, (DI)(BX*1); \
nodst: \
	TESTQ R12, R12; \
	JZ nodst2; \
	VADDPS (R12)(BX*1), Y6, Y7; \
	VMOVUPS Y7, (R12)(BX*1); \
nodst2: \
	TESTQ R9, R9; \
	JZ nodw; \
	VCVTPS2PD X0, Y7; \
	VFMADD213PD (R9), Y5, Y7; \
	VMOVUPD Y7, (R9); \
	VEXTRACTF128 $1, Y0, X8; \
	VCVTPS2PD X8, Y8; \
	VFMADD213PD 32(R9), Y5, Y8; \
	VMOVUPD Y8, 32(R9); \
	ADDQ $64, R9; \
nodw:

// UP_B loads block b's upstream gradient from (R10): up[b] in float64 into
// Y5 and −up[b] into Y4, for TANH_BACK.
#define UP_B \
	VBROADCASTSS (R10), Y5; \
	VCVTPS2PD X5, Y5; \
	VBROADCASTSS (R10), Y4; \
	VMULPS tanhv<>+96(SB), Y4, Y4

// LOAD_TANH_Z broadcasts TANH_Z0's constants from the tables above: 9 and
// −9 into Z16 and Z17, the numerator's coefficients into Z18-Z24, the
// denominator's into Z25-Z27 and 1 into Z28.
#define LOAD_TANH_Z \
	VBROADCASTSS tanhv<>+32(SB), Z16; \
	VBROADCASTSS tanhv<>+64(SB), Z17; \
	VBROADCASTSS tanhc<>+0(SB), Z18; \
	VBROADCASTSS tanhc<>+4(SB), Z19; \
	VBROADCASTSS tanhc<>+8(SB), Z20; \
	VBROADCASTSS tanhc<>+12(SB), Z21; \
	VBROADCASTSS tanhc<>+16(SB), Z22; \
	VBROADCASTSS tanhc<>+20(SB), Z23; \
	VBROADCASTSS tanhc<>+24(SB), Z24; \
	VBROADCASTSS tanhv<>+128(SB), Z25; \
	VBROADCASTSS tanhv<>+160(SB), Z26; \
	VBROADCASTSS tanhv<>+192(SB), Z27; \
	VBROADCASTSS tanhv<>+0(SB), Z28

// TANH_Z0 is TANH_Y0 on 16 lanes: the same operations, operand for operand,
// with the constants in registers (LOAD_TANH_Z). Scratch: Z1-Z3.
#define TANH_Z0 \
	VMINPS Z16, Z0, Z0; \
	VMAXPS Z17, Z0, Z0; \
	VMULPS Z0, Z0, Z1; \
	VMOVAPS Z18, Z2; \
	VFMADD213PS Z19, Z1, Z2; \
	VFMADD213PS Z20, Z1, Z2; \
	VFMADD213PS Z21, Z1, Z2; \
	VFMADD213PS Z22, Z1, Z2; \
	VFMADD213PS Z23, Z1, Z2; \
	VFMADD213PS Z24, Z1, Z2; \
	VMOVAPS Z25, Z3; \
	VFMADD213PS Z26, Z1, Z3; \
	VFMADD213PS Z27, Z1, Z3; \
	VFMADD213PS Z28, Z1, Z3; \
	VMULPS Z2, Z0, Z0; \
	VDIVPS Z3, Z0, Z0

// TZ_BLOCK runs one block of tanhAddDotLinksZ16 at byte offset BX: τ =
// tanh(x + y) into Z0 (stored unless DI is nil) and acc = the AVX2 kernel's
// lane sums of w·τ, the low eight lanes multiplied into zero and the high
// eight fused-multiply-added onto them. lnoy and lnotau are its skip labels.
#define TZ_BLOCK(acc, lnoy, lnotau) \
	VMOVUPS (SI)(BX*1), Z0; \
	TESTQ DX, DX; \
	JZ lnoy; \
	VADDPS (DX)(BX*1), Z0, Z0; \
lnoy: \
	TANH_Z0; \
	TESTQ DI, DI; \
	JZ lnotau; \
	VMOVUPS Z0, (DI)(BX*1); \
lnotau: \
	VXORPS acc, acc, acc; \
	VFMADD231PS (R8)(BX*1), Y0, acc; \
	VEXTRACTF64X4 $1, Z0, Y8; \
	VFMADD231PS 32(R8)(BX*1), Y8, acc; \
	ADDQ $64, BX

// FOLD4 adds the high four lanes of Y acc onto its low four (X acc), with
// X scratch.
#define FOLD4(acc, x, scratch) \
	VEXTRACTF128 $1, acc, scratch; \
	VADDPS scratch, x, x

// The link-range forward kernels (tanhAddDotLinksAVX, tanhAddDotLinksZ16)
// share their operands: out at R12, tau at DI, w at R8, child and parent
// indices at R9 and R10, links left in R13.
#define TANH_LINK_ARGS \
	MOVQ out+0(FP), R12; \
	MOVQ tau+8(FP), DI; \
	MOVQ w+32(FP), R8; \
	MOVQ child+40(FP), R9; \
	MOVQ parent+48(FP), R10; \
	MOVQ n+56(FP), R13

// TANH_LINK_PREFETCH prefetches the p1 row of the link PF_LINKS ahead (a
// child's row: a random access on a large graph, whose latency the
// prefetch overlaps with this link's work), while that many links are left:
// the cache lines from its first byte, AX bytes, through its last. R14 and
// R15 are scratch.
#define PF_LINKS 8
#define TANH_LINK_PREFETCH(lskip, lline) \
	CMPQ R13, $PF_LINKS; \
	JLE lskip; \
	MOVLQSX (4*PF_LINKS)(R9), R14; \
	IMULQ AX, R14; \
	ADDQ p1+16(FP), R14; \
	LEAQ -1(R14)(AX*1), R15; \
lline: \
	PREFETCHT0 (R14); \
	ADDQ $64, R14; \
	CMPQ R14, R15; \
	JLT lline; \
	PREFETCHT0 (R15); \
lskip:

// TANH_LINK_ROWS points SI at the link's row of p1 and DX at its row of p2
// (nil without p2), AX holding the bytes per row, and starts the walk over
// its k blocks: BX = 0 (the byte offset into x, y, tau and w), CX = k.
#define TANH_LINK_ROWS(lnoy, lskip, lline) \
	TANH_LINK_PREFETCH(lskip, lline); \
	MOVLQSX (R9), SI; \
	IMULQ AX, SI; \
	ADDQ p1+16(FP), SI; \
	MOVQ p2+24(FP), DX; \
	TESTQ DX, DX; \
	JZ lnoy; \
	MOVLQSX (R10), BX; \
	IMULQ AX, BX; \
	ADDQ BX, DX; \
lnoy: \
	XORQ BX, BX; \
	MOVQ k+64(FP), CX

// TANH_LINK_NEXT moves past the link's τ (unless tau is nil) and indices,
// and loops to llink while links are left.
#define TANH_LINK_NEXT(lnotau, llink) \
	TESTQ DI, DI; \
	JZ lnotau; \
	ADDQ BX, DI; \
lnotau: \
	ADDQ $4, R9; \
	ADDQ $4, R10; \
	DECQ R13; \
	JNZ llink

// HSUM_STORE stores the sum of the eight lanes of Y acc (FOLD4, then two
// pairwise additions) at (R12) and advances R12; x is acc's low half.
#define HSUM_STORE(acc, x, scratch) \
	FOLD4(acc, x, scratch); \
	VHADDPS x, x, x; \
	VHADDPS x, x, x; \
	VMOVSS x, (R12); \
	ADDQ $4, R12

// func tanhAddDotBackAVX(dst, dst2 *float32, dw *float64, x, y, w, up *float32, k, m int)
//
// The backward pass of tanhAddDotLinksAVX for one link, without its stored
// τ: for each
// of k blocks of m elements (m a multiple of 8) with upstream gradient
// up[b], τ = tanh(x+y) is recomputed with the forward kernel's TANH_Y0
// (the same bits), then TANH_BACK adds δ = up[b]·w·(1−τ²) to dst and dst2
// and up[b]·τ to dw.
TEXT ·tanhAddDotBackAVX(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ dst2+8(FP), R12
	MOVQ dw+16(FP), R9
	MOVQ x+24(FP), SI
	MOVQ y+32(FP), DX
	MOVQ w+40(FP), R8
	MOVQ up+48(FP), R10
	MOVQ k+56(FP), CX
	MOVQ m+64(FP), R11
	SHRQ $3, R11
	LOAD_TANH_P
	XORQ BX, BX // byte offset into dst, x, y and w
	TESTQ CX, CX
	JZ kdone
kkloop:
	UP_B
	MOVQ R11, AX
kbloop:
	VMOVUPS (SI)(BX*1), Y0
	TESTQ DX, DX
	JZ knoy
	VADDPS (DX)(BX*1), Y0, Y0
knoy:
	TANH_Y0
	TANH_BACK(knodst, knodst2, knodw)
	ADDQ $32, BX
	DECQ AX
	JNZ kbloop
	ADDQ $4, R10
	DECQ CX
	JNZ kkloop
kdone:
	VZEROUPPER
	RET

// func tanhAddDotLinksAVX(out, tau, p1, p2, w *float32, child, parent *int32, n, k, m int)
//
// The forward kernel, for n links at once: link t reads x = row child[t] of
// p1 and y = row parent[t] of p2 (p2 nil: y = 0), rows of k·m elements,
// writes out[t·k : +k] and, unless tau is nil, its τ at tau[t·k·m : +k·m],
// For each of the k blocks of m elements (m a multiple of 8) of a link,
// τ = tanh(x + y) and out = Σ w·τ over the block (summed in float32 lanes,
// then across lanes). TanhAddDot and TanhAddDotBlocks run it on one link.
TEXT ·tanhAddDotLinksAVX(SB), NOSPLIT, $0-80
	TANH_LINK_ARGS
	MOVQ m+72(FP), R11
	SHRQ $3, R11
	LOAD_TANH_P
	TESTQ R13, R13
	JZ ldone
llink:
	MOVQ k+64(FP), AX
	IMULQ m+72(FP), AX
	SHLQ $2, AX // bytes per row
	TANH_LINK_ROWS(lnoy, lpfskip, lpfline)
lkloop:
	VXORPS Y4, Y4, Y4
	MOVQ R11, AX
lloop:
	VMOVUPS (SI)(BX*1), Y0
	TESTQ DX, DX
	JZ llnoy
	VADDPS (DX)(BX*1), Y0, Y0
llnoy:
	TANH_Y0
	TESTQ DI, DI
	JZ llnotau
	VMOVUPS Y0, (DI)(BX*1)
llnotau:
	VFMADD231PS (R8)(BX*1), Y0, Y4
	ADDQ $32, BX
	DECQ AX
	JNZ lloop
	HSUM_STORE(Y4, X4, X5)
	DECQ CX
	JNZ lkloop
	TANH_LINK_NEXT(lnexttau, llink)
ldone:
	VZEROUPPER
	RET

// func tanhDotBackLinksAVX(dst, dst2 *float32, dw *float64, tau, w, up *float32, child, parent *int32, n, k, m int)
//
// The backward pass of tanhAddDotLinksAVX with stored τ for n links at once: link t adds its δ to
// row parent[t] of dst and row child[t] of dst2 (each unless nil), and
// up·τ to dw (unless nil), reading τ at tau[t·k·m : +k·m] and its upstream
// gradients at up[t·k : +k]; the same operations, in the same order, as one
// call per link.
TEXT ·tanhDotBackLinksAVX(SB), NOSPLIT, $0-88
	MOVQ tau+24(FP), R13
	MOVQ w+32(FP), R8
	MOVQ up+40(FP), R10
	MOVQ child+48(FP), SI
	MOVQ parent+56(FP), DX
	MOVQ m+80(FP), R11
	SHRQ $3, R11
	MOVQ n+64(FP), AX
	TESTQ AX, AX
	JZ tdone
tlink:
	MOVQ k+72(FP), AX
	IMULQ m+80(FP), AX
	SHLQ $2, AX // bytes per row
	MOVQ dst+0(FP), DI
	TESTQ DI, DI
	JZ tnodst
	MOVLQSX (DX), BX
	IMULQ AX, BX
	ADDQ BX, DI
tnodst:
	MOVQ dst2+8(FP), R12
	TESTQ R12, R12
	JZ tnodst2
	MOVLQSX (SI), BX
	IMULQ AX, BX
	ADDQ BX, R12
tnodst2:
	MOVQ dw+16(FP), R9
	XORQ BX, BX // byte offset into the link's dst rows, tau and w
	MOVQ k+72(FP), CX
tkloop:
	UP_B
	MOVQ R11, AX
tbloop:
	VMOVUPS (R13)(BX*1), Y0 // τ
	TANH_BACK(tnod, tnod2, tnodw)
	ADDQ $32, BX
	DECQ AX
	JNZ tbloop
	ADDQ $4, R10
	DECQ CX
	JNZ tkloop
	ADDQ BX, R13
	ADDQ $4, SI
	ADDQ $4, DX
	DECQ n+64(FP)
	JNZ tlink
tdone:
	VZEROUPPER
	RET

// func tanhAddDotLinksZ16(out, tau, p1, p2, w *float32, child, parent *int32, n, k int)
//
// tanhAddDotLinksAVX for blocks of m = 16 on AVX-512: τ of a block in one
// vector (TANH_Z0), its dot with w formed as the AVX2 kernel forms it
// (TZ_BLOCK), and the same horizontal sums; four blocks share theirs, whose
// pairwise additions are those of one block's. The results are the same
// bits.
TEXT ·tanhAddDotLinksZ16(SB), NOSPLIT, $0-72
	TANH_LINK_ARGS
	MOVQ k+64(FP), AX
	SHLQ $6, AX // bytes per row
	LOAD_TANH_Z
	TESTQ R13, R13
	JZ zdone
zlink:
	TANH_LINK_ROWS(znoy, zpfskip, zpfline)
zquad: // four blocks at a time
	CMPQ CX, $4
	JLT zsingle
	TZ_BLOCK(Y4, zq0noy, zq0notau)
	TZ_BLOCK(Y5, zq1noy, zq1notau)
	TZ_BLOCK(Y6, zq2noy, zq2notau)
	TZ_BLOCK(Y7, zq3noy, zq3notau)
	FOLD4(Y4, X4, X8)
	FOLD4(Y5, X5, X8)
	FOLD4(Y6, X6, X8)
	FOLD4(Y7, X7, X8)
	VHADDPS X5, X4, X4
	VHADDPS X7, X6, X6
	VHADDPS X6, X4, X4
	VMOVUPS X4, (R12)
	ADDQ $16, R12
	SUBQ $4, CX
	JMP zquad
zsingle:
	TESTQ CX, CX
	JZ zlinkend
	TZ_BLOCK(Y4, zsnoy, zsnotau)
	HSUM_STORE(Y4, X4, X8)
	DECQ CX
	JMP zsingle
zlinkend:
	TANH_LINK_NEXT(znexttau, zlink)
zdone:
	VZEROUPPER
	RET

// TANH_BACK_Z is TANH_BACK on a block of sixteen lanes (τ in Z0, −up in
// Z4, up in float64 in Z5, 1 in Z28): the same operations, lane for lane,
// the float64 partial sums of ∂w in two vectors of eight.
#define TANH_BACK_Z(nodst, nodst2, nodw) \
	VMULPS Z0, Z0, Z6; \
	VSUBPS Z28, Z6, Z6; \
	VMULPS (R8)(BX*1), Z6, Z6; \
	VMULPS Z4, Z6, Z6; \
	TESTQ DI, DI; \
	JZ nodst; \
	VADDPS (DI)(BX*1), Z6, Z7; \
	VMOVUPS Z7, (DI)(BX*1); \
nodst: \
	TESTQ R12, R12; \
	JZ nodst2; \
	VADDPS (R12)(BX*1), Z6, Z7; \
	VMOVUPS Z7, (R12)(BX*1); \
nodst2: \
	TESTQ R9, R9; \
	JZ nodw; \
	VCVTPS2PD Y0, Z7; \
	VFMADD213PD (R9), Z5, Z7; \
	VMOVUPD Z7, (R9); \
	VEXTRACTF64X4 $1, Z0, Y8; \
	VCVTPS2PD Y8, Z8; \
	VFMADD213PD 64(R9), Z5, Z8; \
	VMOVUPD Z8, 64(R9); \
	ADDQ $128, R9; \
nodw:

// func tanhDotBackLinksZ16(dst, dst2 *float32, dw *float64, tau, w, up *float32, child, parent *int32, n, k int)
//
// tanhDotBackLinksAVX for blocks of m = 16 on AVX-512: a block in one
// vector, with the AVX2 kernel's operations lane for lane (TANH_BACK_Z),
// so the results are the same bits.
TEXT ·tanhDotBackLinksZ16(SB), NOSPLIT, $0-80
	MOVQ tau+24(FP), R13
	MOVQ w+32(FP), R8
	MOVQ up+40(FP), R10
	MOVQ child+48(FP), SI
	MOVQ parent+56(FP), DX
	MOVQ k+72(FP), R11
	MOVQ R11, AX
	SHLQ $6, AX // bytes per row
	VBROADCASTSS tanhv<>+0(SB), Z28
	VBROADCASTSS tanhv<>+96(SB), Z29
	MOVQ n+64(FP), CX
	TESTQ CX, CX
	JZ zbdone
zblink:
	MOVQ dst+0(FP), DI
	TESTQ DI, DI
	JZ zbnodst
	MOVLQSX (DX), BX
	IMULQ AX, BX
	ADDQ BX, DI
zbnodst:
	MOVQ dst2+8(FP), R12
	TESTQ R12, R12
	JZ zbnodst2
	MOVLQSX (SI), BX
	IMULQ AX, BX
	ADDQ BX, R12
zbnodst2:
	MOVQ dw+16(FP), R9
	XORQ BX, BX // byte offset into the link's dst rows, tau and w
	MOVQ R11, CX
zbkloop:
	VBROADCASTSS (R10), Y5
	VCVTPS2PD Y5, Z5
	VBROADCASTSS (R10), Z4
	VMULPS Z29, Z4, Z4
	VMOVUPS (R13)(BX*1), Z0 // τ
	TANH_BACK_Z(zbnod, zbnod2, zbnodw)
	ADDQ $64, BX
	ADDQ $4, R10
	DECQ CX
	JNZ zbkloop
	ADDQ BX, R13
	ADDQ $4, SI
	ADDQ $4, DX
	DECQ n+64(FP)
	JNZ zblink
zbdone:
	VZEROUPPER
	RET
