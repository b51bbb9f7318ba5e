package tensor

import "fmt"

// GatherDot sets dst[e] = q·h[idx[e]] (dst[e] += … with accumulate) for
// every e: the dot products of one vector with many gathered rows of h, as
// in the per-link agreements of capsule routing, where q is a parent's
// vector and the rows are its children's predictions. len(q) must be
// h.Cols and len(dst) len(idx); every idx[e] must be a row of h. It runs on
// the calling goroutine (callers split the work). Float32 runs in an
// AVX2+FMA kernel where available (float32 sums); other types sum in
// float64.
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
		gatherDotAVX(&d[0], &any(q).([]float32)[0], &any(h.Data).([]float32)[0], c, &idx[0], len(idx), c/8, accumulate, mask)
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
