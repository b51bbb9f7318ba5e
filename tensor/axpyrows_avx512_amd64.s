//go:build !purego

#include "textflag.h"
#include "axpyrows_amd64.h"

// ROWZ64 adds w times the 64 floats of a source row at base+off to a0-a3.
#define ROWZ64(w, base, off, a0, a1, a2, a3) \
	VFMADD231PS (base)(off*1), w, a0; \
	VFMADD231PS 64(base)(off*1), w, a1; \
	VFMADD231PS 128(base)(off*1), w, a2; \
	VFMADD231PS 192(base)(off*1), w, a3

// func axpyRowsZ64(dst *float32, h *float32, stride int, idx *int32, w *float32, n int, acc bool)
//
// axpyRows32 for 64 columns on AVX-512: dst[0:64] = (acc ? dst[0:64] : 0)
// + Σ_{e<n} w[e]·h[idx[e]·stride : +64], with axpyRows32's operations lane
// for lane (even terms onto the old row or zero, odd terms onto zero, then
// the two added), so the same bits as two axpyRows32 calls; each term's
// index and weight are read once for the 64 columns.
TEXT ·axpyRowsZ64(SB), NOSPLIT, $0-49
	ROWS_ARGS
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	TESTQ AX, AX
	JZ z64zero
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
z64zero:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
z64pairs: // two terms per iteration into two sets of accumulators
	CMPQ CX, $2
	JLT z64single
	TERM_PAIR
	VBROADCASTSS (R9), Z4
	VBROADCASTSS 4(R9), Z5
	ROWZ64(Z4, SI, R10, Z0, Z1, Z2, Z3)
	ROWZ64(Z5, SI, R11, Z8, Z9, Z10, Z11)
	ADDQ $8, R8
	ADDQ $8, R9
	SUBQ $2, CX
	JMP z64pairs
z64single:
	TESTQ CX, CX
	JZ z64sum
	MOVLQSX (R8), R10
	IMULQ DX, R10
	VBROADCASTSS (R9), Z4
	ROWZ64(Z4, SI, R10, Z0, Z1, Z2, Z3)
z64sum:
	VADDPS Z8, Z0, Z0
	VADDPS Z9, Z1, Z1
	VADDPS Z10, Z2, Z2
	VADDPS Z11, Z3, Z3
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VZEROUPPER
	RET
