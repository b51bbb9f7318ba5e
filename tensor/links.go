package tensor

import "fmt"

// Capsule routing sums over (link, perspective) pairs: K rows of a
// per-child matrix for each link, row child·K + r of the matrix seen as
// (C·K)×d. Aggregate and GatherDotSegments take such pairs through an
// index of K entries per link; AggregateLinks and GatherDotLinks take the
// links' child indices themselves, one entry per link, with the same
// results. Where no kernel reads the links directly (LinkKernels), they
// write the pair index out for the call.

// LinkKernels reports whether AggregateLinks (with weights) and
// GatherDotLinks read k rows per link from the child indices directly for
// rows of c columns of T, rather than writing the pair index out (and
// allocating it) on every call: float32 on AVX2 with k = 4, and for
// AggregateLinks rows of 17-23 columns (the routing's d = 18).
func LinkKernels[T Float](k, c int, aggregate bool) bool {
	var z T
	if _, ok := any(z).(float32); !ok || !haveAVX2FMA || k != 4 || c < 1 {
		return false
	}
	return !aggregate || (c > 16 && c < 24)
}

// AggregateLinks is Aggregate over the pairs of links with k rows each: for
// every target v,
//
//	dst[v] (+)= Σ_{e ∈ [ptr[v], ptr[v+1])} Σ_{r<k} w[e·k+r]·h[child[e]·k + r],
//
// the terms in that order (w nil: unit weights). The results are
// Aggregate's with the row pointer ptr·k and the sources child[e]·k + r,
// bit for bit. h has k rows per child; dst has len(ptr)−1 rows of h.Cols.
func AggregateLinks[T Float](dst *Dense[T], ptr, child []int32, k int, w []T, h *Dense[T], accumulate bool) {
	if k < 1 || len(ptr) == 0 || dst.Rows != len(ptr)-1 || dst.Cols != h.Cols || h.Rows%k != 0 || (w != nil && len(w) != k*len(child)) {
		panic(fmt.Sprintf("tensor: AggregateLinks shape mismatch: %d targets, %d links of %d rows, %d weights, h %d×%d, dst %d×%d",
			len(ptr)-1, len(child), k, len(w), h.Rows, h.Cols, dst.Rows, dst.Cols))
	}
	checkSegments("AggregateLinks", ptr, 0, len(ptr)-1, len(child))
	checkSources(child[ptr[0]:ptr[len(ptr)-1]], h.Rows/k)
	if w == nil || !LinkKernels[T](k, h.Cols, true) {
		pptr, pidx := writePairs(ptr, child, k)
		Aggregate(dst, pptr, pidx, w, h, accumulate)
		return
	}
	if dst.Rows == 0 {
		return
	}
	kr := kernel[T]{kind: kAggregateLinks}
	kr.dst, kr.a, kr.ptr, kr.idx, kr.w, kr.acc = dst, h, ptr, child, w, accumulate
	kr.launch(dst.Rows, (len(child)/dst.Rows+1)*k*h.Cols)
}

// aggregateLinks4 is AggregateLinks' kernel (k = 4, float32 on AVX2, rows
// of 17-23 columns, weights) for targets [lo, hi); it uses dst, a (= h),
// ptr, idx (= child), w and acc.
func aggregateLinks4[T Float](k *kernel[T], lo, hi int) {
	d, h, w := any(k.dst.Data).([]float32), any(k.a.Data).([]float32), any(k.w).([]float32)
	c, ptr, child := k.dst.Cols, k.ptr, k.idx
	mask := &tailMasks[8-(c-16)]
	for v := lo; v < hi; v++ {
		row := d[v*c : (v+1)*c]
		e0, e1 := int(ptr[v]), int(ptr[v+1])
		if e1 == e0 {
			if !k.acc {
				clear(row)
			}
			continue
		}
		axpyLinks16Tail4(&row[0], &h[0], c, &child[e0], &w[4*e0], e1-e0, k.acc, mask, len(child)-e0)
	}
}

// GatherDotLinks is GatherDotSegments over the pairs of links with k rows
// each, for the segments j in [lo, hi): dst[e·k+r] (+)= q_j·h[child[e]·k + r]
// for e in [ptr[j], ptr[j+1]) and r < k. The results are
// GatherDotSegments' with the row pointer ptr·k and the sources
// child[e]·k + r, bit for bit. It runs on the calling goroutine.
func GatherDotLinks[T Float](dst, q []T, h *Dense[T], ptr, child []int32, k, lo, hi int, accumulate bool) {
	if k < 1 || lo < 0 || hi < lo || hi >= len(ptr) || h.Rows%k != 0 {
		panic(fmt.Sprintf("tensor: GatherDotLinks: segments [%d, %d) of %d, %d rows per link, h %d rows", lo, hi, len(ptr)-1, k, h.Rows))
	}
	c := h.Cols
	checkSegments("GatherDotLinks", ptr, lo, hi, len(child))
	e0, e1 := int(ptr[lo]), int(ptr[hi])
	if len(q) < hi*c || len(dst) < k*e1 {
		panic(fmt.Sprintf("tensor: GatherDotLinks shape mismatch: q %d, h %d×%d, dst %d, links %d-%d of %d rows",
			len(q), h.Rows, h.Cols, len(dst), e0, e1, k))
	}
	checkSources(child[e0:e1], h.Rows/k)
	if !LinkKernels[T](k, c, false) {
		pptr, pidx := writePairs(ptr, child, k)
		GatherDotSegments(dst, q, h, pptr, pidx, lo, hi, accumulate)
		return
	}
	var mask *int32
	if t := c % 8; t > 0 {
		mask = &tailMasks[8-t]
	}
	d, q32, h32 := any(dst).([]float32), any(q).([]float32), any(h.Data).([]float32)
	for j := lo; j < hi; j++ {
		if a, b := int(ptr[j]), int(ptr[j+1]); a < b {
			gatherDotLinks4AVX(&d[4*a], &q32[j*c], &h32[0], c, &child[a], b-a, c/8, accumulate, mask, len(child)-a)
		}
	}
}

// writePairs writes the pair index of links with k rows each out: the row
// pointer ptr·k and the sources child[e]·k + r.
func writePairs(ptr, child []int32, k int) ([]int32, []int32) {
	pptr := make([]int32, len(ptr))
	for j, v := range ptr {
		pptr[j] = v * int32(k)
	}
	pidx := make([]int32, len(child)*k)
	for e, c := range child {
		for r := 0; r < k; r++ {
			pidx[e*k+r] = c*int32(k) + int32(r)
		}
	}
	return pptr, pidx
}
