// The Gemm row kernels (gemmRows32, gemmRows16Tail, gemmRows8 in
// axpyrows_amd64.s, gemmRowsZ* in gemm_avx512_amd64.s) share their operands
// and their walk over the terms: dst row at DI (stride DX bytes), a's row at
// SI (stride R8), b at R9 (row stride R10), rows left in BX, acc in AX. For each output row, CX counts the terms left, R11 is the offset
// of b's row p and R12 points at a[r·lda + p]; a pair step broadcasts the
// weights of terms p and p+1 into w0 and w1, with b's row p+1 at offset
// R13.
#define GEMM_ROWS_ARGS \
	MOVQ dst+0(FP), DI; \
	MOVQ ldd+8(FP), DX; \
	SHLQ $2, DX; \
	MOVQ a+16(FP), SI; \
	MOVQ lda+24(FP), R8; \
	SHLQ $2, R8; \
	MOVQ b+32(FP), R9; \
	MOVQ ldb+40(FP), R10; \
	SHLQ $2, R10; \
	MOVQ rows+56(FP), BX; \
	MOVBLZX acc+64(FP), AX

#define GEMM_TERMS \
	MOVQ k+48(FP), CX; \
	XORQ R11, R11; \
	MOVQ SI, R12

#define GEMM_PAIR(w0, w1) \
	LEAQ (R11)(R10*1), R13; \
	VBROADCASTSS (R12), w0; \
	VBROADCASTSS 4(R12), w1

#define GEMM_PAIR_NEXT \
	LEAQ (R13)(R10*1), R11; \
	ADDQ $8, R12; \
	SUBQ $2, CX
