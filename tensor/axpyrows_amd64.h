// Shared by the row kernels of axpyrows_amd64.s and axpyrows_avx512_amd64.s.

// ROWS_ARGS loads the operands the weighted row kernels share (dst, h,
// stride, idx, w, n, acc, in that order at the start of their frames):
// dst into DI, h into SI, the row stride in bytes into DX, idx into R8, w
// into R9, n into CX and acc into AX.
#define ROWS_ARGS \
	MOVQ dst+0(FP), DI; \
	MOVQ h+8(FP), SI; \
	MOVQ stride+16(FP), DX; \
	SHLQ $2, DX; \
	MOVQ idx+24(FP), R8; \
	MOVQ w+32(FP), R9; \
	MOVQ n+40(FP), CX; \
	MOVBLZX acc+48(FP), AX

// TERM_PAIR sets R10 and R11 to the byte offsets in h of the rows of the
// next two terms (their indices at R8, the stride in bytes in DX).
#define TERM_PAIR \
	MOVLQSX (R8), R10; \
	IMULQ DX, R10; \
	MOVLQSX 4(R8), R11; \
	IMULQ DX, R11
