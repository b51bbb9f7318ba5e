package tensor

import "fmt"

// GatherDot sets dst[e] = q·h[idx[e]] (dst[e] += … with accumulate) for
// every e: the dot products of one vector with many gathered rows of h, as
// in the per-link agreements of capsule routing, where q is a parent's
// vector and the rows are its children's predictions. len(q) must be
// h.Cols and len(dst) len(idx); every idx[e] must be a row of h. It runs on
// the calling goroutine (callers split the work). Float32 runs in an
// AVX2+FMA kernel where available (float32 sums), in the Go kernel set
// in gatherDotGo (float64 sums in four chains) up to 32 columns; other
// types and widths sum in float64 in order.
func GatherDot[T Float](dst, q []T, h *Dense[T], idx []int32, accumulate bool) {
	if len(q) != h.Cols || len(dst) != len(idx) {
		panic(fmt.Sprintf("tensor: GatherDot shape mismatch: q %d, h %d×%d, dst %d, idx %d",
			len(q), h.Rows, h.Cols, len(dst), len(idx)))
	}
	checkSources(idx, h.Rows)
	c := h.Cols
	if len(idx) == 0 {
		return
	}
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA && c > 0 {
		var mask *int32
		if t := c % 8; t > 0 {
			mask = &tailMasks[8-t]
		}
		gatherDotAVX(&d[0], &any(q).([]float32)[0], &any(h.Data).([]float32)[0], c, &idx[0], len(idx), c/8, accumulate, mask, len(idx))
		return
	}
	if d, ok := any(dst).([]float32); ok && c <= gatherDotGoMaxCols {
		var qw [gatherDotGoMaxCols]float64
		gatherDotGo(d, any(q).([]float32), any(h.Data).([]float32), c, idx, accumulate, qw[:])
		return
	}
	for e, r := range idx {
		row := h.Data[int(r)*c : int(r)*c+c]
		s := 0.0
		for j, v := range q {
			s += float64(v) * float64(row[j])
		}
		if accumulate {
			dst[e] += T(s)
		} else {
			dst[e] = T(s)
		}
	}
}

// GatherDotSegments is GatherDot for the segments j in [lo, hi) of a CSR
// layout: dst[e] (+)= q_j·h[idx[e]] for e in [ptr[j], ptr[j+1]), with q_j
// the j-th row of q (rows of h.Cols values). It is one call, and one check
// of the row indices, for many short segments (a parent's links in
// routing), which would otherwise each pay GatherDot's call and check.
// Results are GatherDot's, bit for bit.
func GatherDotSegments[T Float](dst, q []T, h *Dense[T], ptr, idx []int32, lo, hi int, accumulate bool) {
	if lo < 0 || hi < lo || hi >= len(ptr) {
		panic(fmt.Sprintf("tensor: GatherDotSegments: segments [%d, %d) of %d", lo, hi, len(ptr)-1))
	}
	c := h.Cols
	e0, e1 := int(ptr[lo]), int(ptr[hi])
	if len(q) < hi*c || len(dst) < e1 || len(idx) < e1 || e1 < e0 {
		panic(fmt.Sprintf("tensor: GatherDotSegments shape mismatch: q %d, h %d×%d, dst %d, idx %d, pairs %d-%d",
			len(q), h.Rows, h.Cols, len(dst), len(idx), e0, e1))
	}
	checkSegments("GatherDotSegments", ptr, lo, hi, len(idx))
	checkSources(idx[e0:e1], h.Rows)
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA && c > 0 {
		var mask *int32
		if t := c % 8; t > 0 {
			mask = &tailMasks[8-t]
		}
		q32, h32 := any(q).([]float32), any(h.Data).([]float32)
		for j := lo; j < hi; j++ {
			if a, b := ptr[j], ptr[j+1]; a < b {
				gatherDotAVX(&d[a], &q32[j*c], &h32[0], c, &idx[a], int(b-a), c/8, accumulate, mask, len(idx)-int(a))
			}
		}
		return
	}
	for j := lo; j < hi; j++ {
		a, b := ptr[j], ptr[j+1]
		GatherDot(dst[a:b], q[j*c:(j+1)*c], h, idx[a:b], accumulate)
	}
}
