//go:build !purego

#include "textflag.h"

// func prefetchSpan(p unsafe.Pointer, n int)
//
// PREFETCHT0 at p, every 64 bytes after it, and at its last byte (which
// may lie on one more line). A prefetch never faults.
TEXT ·prefetchSpan(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	LEAQ -1(AX)(CX*1), DX
pfloop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, DX
	JLT pfloop
	PREFETCHT0 (DX)
	RET
