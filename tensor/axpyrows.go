package tensor

import "fmt"

// aggregateRowsAVX is the float32 weighted row aggregation
// dst[v] (+)= Σ_e w[e]·h[src[e]] for v in [lo, hi) on AVX2+FMA: each
// 32- or 8-column block of an output row is summed in registers over all
// of the row's terms (one load and store of the output per block, not per
// term, and no call per term); the last c mod 8 columns run in Go.
// Callers check haveAVX2FMA, c ≥ 8 and that every source is a row of h.
func aggregateRowsAVX(dst, h, w []float32, c int, ptr, src []int32, acc bool, lo, hi int) {
	for v := lo; v < hi; v++ {
		row := dst[v*c : (v+1)*c]
		e0, e1 := ptr[v], ptr[v+1]
		n := int(e1 - e0)
		var ip *int32
		var wp *float32
		if n > 0 {
			ip = &src[e0]
			if w != nil {
				wp = &w[e0]
			}
		}
		j := 0
		for ; j+32 <= c; j += 32 {
			if w != nil {
				axpyRows32(&row[j], &h[j], c, ip, wp, n, acc)
			} else {
				sumRows32(&row[j], &h[j], c, ip, n, acc)
			}
		}
		for ; j+8 <= c; j += 8 {
			if w != nil {
				axpyRows8(&row[j], &h[j], c, ip, wp, n, acc)
			} else {
				sumRows8(&row[j], &h[j], c, ip, n, acc)
			}
		}
		if j < c {
			tail := row[j:]
			if !acc {
				clear(tail)
			}
			for e := e0; e < e1; e++ {
				wt := float32(1)
				if w != nil {
					wt = w[e]
				}
				x := h[int(src[e])*c+j : int(src[e]+1)*c]
				for k, xv := range x {
					tail[k] += wt * xv
				}
			}
		}
	}
}

// checkSources panics unless every source index is a row of h: the
// assembly kernels read h without bounds checks, so a corrupt structure
// must be caught here rather than read out of bounds.
func checkSources(src []int32, rows int) {
	for _, s := range src {
		if uint32(s) >= uint32(rows) {
			panic(fmt.Sprintf("tensor: source index %d outside the %d rows of the dense operand", s, rows))
		}
	}
}
