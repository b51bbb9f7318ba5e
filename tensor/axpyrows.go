package tensor

import (
	"fmt"
	"math"
)

// aggregateRowsAVX is the float32 weighted row aggregation
// dst[v] (+)= Σ_e w[e]·h[src[e]] for v in [lo, hi) on AVX2+FMA: each
// 32- or 8-column block of an output row is summed in registers over all
// of the row's terms (one load and store of the output per block, not per
// term, and no call per term); the last c mod 8 columns use masked loads
// and stores. Callers check haveAVX2FMA, c ≥ 1 and that every source is a
// row of h.
func aggregateRowsAVX(dst, h, w []float32, c int, ptr, src []int32, acc bool, lo, hi int) {
	for v := lo; v < hi; v++ {
		row := dst[v*c : (v+1)*c]
		e0, e1 := ptr[v], ptr[v+1]
		n := int(e1 - e0)
		if n == 0 { // also the case of an h with no rows
			if !acc {
				clear(row)
			}
			continue
		}
		ip := &src[e0]
		var wp *float32
		if w != nil {
			wp = &w[e0]
		}
		axpyRowAVX(row, h, c, ip, wp, n, acc, len(src)-int(e0))
	}
}

// aggregateGroupsAVX is aggregateRowsAVX for groups of g rows that share
// their sources (AggregateGroups' layout; groups lo … hi−1). For rows of
// 17-23 columns with weights, two rows of a group at a time go through
// axpyRows16Tail2, which reads each source row once for both; an odd
// group's last row, and other widths, go row by row.
func aggregateGroupsAVX(dst, h, w []float32, c int, ptr, src []int32, acc bool, lo, hi, g int) {
	paired := w != nil && c > 16 && c < 24
	var mask *int32
	if paired {
		mask = &tailMasks[8-(c-16)]
	}
	for s := lo; s < hi; s++ {
		e0, e1 := int(ptr[s]), int(ptr[s+1])
		n := e1 - e0
		rows := dst[s*g*c : (s+1)*g*c]
		if n == 0 { // also the case of an h with no rows
			if !acc {
				clear(rows)
			}
			continue
		}
		wb := g * e0 // row r's weights: w[wb+r·n : wb+(r+1)·n]
		r := 0
		if paired {
			for ; r+1 < g; r += 2 {
				axpyRows16Tail2(&rows[r*c], &h[0], c, &src[e0], &w[wb+r*n], &w[wb+(r+1)*n], n, acc, mask)
			}
		}
		for ; r < g; r++ {
			var wp *float32
			if w != nil {
				wp = &w[wb+r*n]
			}
			axpyRowAVX(rows[r*c:(r+1)*c], h, c, &src[e0], wp, n, acc, len(src)-e0)
		}
	}
}

// axpyRowAVX sets row (length c) to (acc ? row : 0) + Σ_{e<n} w[e]·h[idx[e]·c : +c]
// with the assembly kernels (w nil: unit weights).
// idx and w point at n ≥ 1 entries; every idx[e] is a row of h. idx points
// at ahead ≥ n readable entries, whose rows the kernel may prefetch.
func axpyRowAVX(row, h []float32, c int, idx *int32, w *float32, n int, acc bool, ahead int) {
	if w != nil && c > 16 && c < 24 { // the routing's d = 18: one pass, not three
		axpyRows16Tail(&row[0], &h[0], c, idx, w, n, acc, &tailMasks[8-(c-16)], ahead)
		return
	}
	j := 0
	if w != nil && haveAVX512 {
		for ; j+64 <= c; j += 64 {
			axpyRowsZ64(&row[j], &h[j], c, idx, w, n, acc)
		}
	}
	for ; j+32 <= c; j += 32 {
		if w != nil {
			axpyRows32(&row[j], &h[j], c, idx, w, n, acc)
		} else {
			sumRows32(&row[j], &h[j], c, idx, n, acc)
		}
	}
	axpyRowRest(row, h, c, j, idx, w, n, acc)
}

// axpyRowRest is axpyRowAVX for the columns from j on, a multiple of 32:
// 8-column blocks and the masked tail.
func axpyRowRest(row, h []float32, c, j int, idx *int32, w *float32, n int, acc bool) {
	for ; j+8 <= c; j += 8 {
		if w != nil {
			axpyRows8(&row[j], &h[j], c, idx, w, n, acc)
		} else {
			sumRows8(&row[j], &h[j], c, idx, n, acc)
		}
	}
	if j < c {
		axpyRowsTail(&row[j], &h[j], c, idx, w, n, acc, &tailMasks[8-(c-j)])
	}
}

// tailMasks[8−t] (t = 1..7) is a mask whose first t lanes are set: the
// eight −1s followed by eight 0s, read from an offset.
var tailMasks = [16]int32{-1, -1, -1, -1, -1, -1, -1, -1}

// checkSources panics unless every source index is a row of h: the
// assembly kernels read h without bounds checks, so a corrupt structure
// must be caught here rather than read out of bounds.
//
// The common case, every index valid, is one pass of unsigned maxima (16
// indices an instruction pair on AVX2); only a failing check looks for the
// culprit.
func checkSources(src []int32, rows int) {
	if uint64(rows) > math.MaxUint32 {
		return // every int32 is a row
	}
	if maxSource(src) < uint32(rows) {
		return
	}
	for _, s := range src {
		if uint32(s) >= uint32(rows) {
			panic(fmt.Sprintf("tensor: source index %d outside the %d rows of the dense operand", s, rows))
		}
	}
}

// maxSource is the largest index of src read as uint32, so that a negative
// index counts as larger than any row count (0 for an empty src).
func maxSource(src []int32) uint32 {
	var m uint32
	if n := len(src) &^ 15; haveAVX2FMA && n > 0 {
		m = maxIndex32(&src[0], n)
		src = src[n:]
	}
	for _, s := range src {
		m = max(m, uint32(s))
	}
	return m
}
