package tensor

import (
	"fmt"
	"math"
	"runtime"
)

// TransposedSpMM computes dst = aᵀ·b (dst += aᵀ·b with accumulate) for a
// sparse R×C matrix a, b dense R×N and dst C×N: the weight gradient of a
// sparse input layer, ∂W = Xᵀ∂Y. Its result is SpMM(dst, aᵀ, b,
// accumulate)'s bit for bit, so a model gives the same numbers with or
// without a kept transpose, but with float32 on AVX2 it is computed from
// a's rows: no transpose of a is stored, nor refreshed after a's values
// change (DropoutCSR).
//
// SpMM's row kernels sum the terms of an output row in order into two
// chains, the even-numbered terms onto the old row (or zero) and the odd
// ones onto zero, and then add the two. Row f of aᵀ has the entries of
// column f of a, in increasing row order, so a pass over a's rows meets
// them in that order: each entry's term goes onto dst's row f or onto a
// zeroed second copy by the parity of its position in the column, with
// the same fused multiply-add, and the copies are added at the end. Ranges
// of dst's rows, small enough to stay in cache, run in parallel, each
// passing over all of a's entries.
//
// a must have values (a.Data); elsewhere (another element type, no AVX2)
// the transpose is formed for the call, which allocates. It panics on
// shape mismatches and on a column index outside a.Cols.
func TransposedSpMM[T Float](dst *Dense[T], a *CSR[T], b *Dense[T], accumulate bool) {
	if a.Rows != b.Rows || dst.Rows != a.Cols || dst.Cols != b.Cols {
		panic(fmt.Sprintf("tensor: TransposedSpMM shape mismatch: a %d×%d, b %d×%d, dst %d×%d", a.Rows, a.Cols, b.Rows, b.Cols, dst.Rows, dst.Cols))
	}
	if !TransposedSpMMInPlace[T]() || len(a.Data) != len(a.Indices) {
		at, _ := a.Transpose()
		SpMM(dst, at, b, accumulate)
		return
	}
	if !accumulate {
		clear(dst.Data)
	}
	if dst.Len() == 0 || len(a.Indices) == 0 {
		return
	}
	if uint64(dst.Rows) <= math.MaxUint32 && maxSource(a.Indices) >= uint32(dst.Rows) {
		checkSources(a.Indices, dst.Rows) // names the culprit
	}
	span := transposedSpan(dst.Rows, dst.Cols)
	k := kernel[T]{kind: kTransposedSpMM, dst: dst, b: b, ptr: a.Indptr, idx: a.Indices, w: a.Data, width: span}
	k.launch((dst.Rows+span-1)/span, len(a.Indices)*dst.Cols*span/dst.Rows+a.Rows)
}

// TransposedSpMMInPlace reports whether TransposedSpMM runs without
// forming the transpose for T on this machine (float32 with AVX2 and FMA),
// so that a caller may keep no transpose of its own.
func TransposedSpMMInPlace[T Float]() bool {
	var z T
	_, ok := any(z).(float32)
	return ok && haveAVX2FMA
}

// transposedSpan is how many rows of dst (of n columns each) one task of
// TransposedSpMM takes: their values and their second copy within about
// 2 MiB, so that the rows a pass over a's entries adds into at random stay
// in cache, and no more than a share of the rows for each core, so that
// the tasks can run in parallel. Every task passes over all of a's
// entries, so fewer, larger tasks cost less.
func transposedSpan(rows, n int) int {
	return max(1, min((1<<21)/(8*n), (rows+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0)))
}

// transposedBlocks runs TransposedSpMM's tasks [lo, hi): task r adds the
// entries of a in columns [r·span, (r+1)·span) into those rows of dst,
// passing over all of a's entries. It uses dst, b, ptr (a.Indptr), idx
// (a.Indices), w (a.Data) and width (the span).
func transposedBlocks[T Float](k *kernel[T], lo, hi int) {
	dst, _ := any(k.dst.Data).([]float32)
	bd, _ := any(k.b.Data).([]float32)
	w, _ := any(k.w).([]float32)
	rows, cols, n := len(k.ptr)-1, k.dst.Rows, k.dst.Cols
	var mask *int32
	if t := n % 8; t > 0 {
		mask = &tailMasks[8-t]
	}
	for r := lo; r < hi; r++ {
		f0 := r * k.width
		span := min(k.width, cols-f0)
		odd := getScratch[float32](span, n)
		clear(odd.Data)
		state := transposedStates.get(span)
		for i := 0; i < rows; i++ {
			e0, e1 := int(k.ptr[i]), int(k.ptr[i+1])
			if e0 == e1 {
				continue
			}
			transposedPairs(&dst[f0*n], n, &odd.Data[0], n, &bd[i*n], n, &k.idx[e0], &w[e0], e1-e0, &state[0], mask, f0, span)
		}
		// dst = even chain + odd chain for every row that had a term, as
		// SpMM's kernels add their two accumulators (the odd one zero
		// after a single term).
		for f, s := range state {
			if s == 0 {
				continue
			}
			row := dst[(f0+f)*n : (f0+f+1)*n]
			VecAdd(row, row, odd.Data[f*n:(f+1)*n])
		}
		transposedStates.put(state)
		putScratch(odd)
	}
}

// byteBufs recycles the per-block parity states of TransposedSpMM.
type byteBufs struct{ l freeList[[]uint8] }

// get returns n zeroed bytes.
func (b *byteBufs) get(n int) []uint8 {
	s, ok := b.l.get()
	if !ok || cap(s) < n {
		return make([]uint8, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func (b *byteBufs) put(s []uint8) { b.l.put(s) }

var transposedStates byteBufs
