package tensor

// axpyTermsGo is the Go kernel set's weighted row aggregation for float32:
// row (length c) = (acc ? row : 0) + Σ_e w[e]·h[src[e]·c : +c] (w nil: unit
// weights; a zero weight, an entry DropoutCSR dropped, adds nothing). It
// sums each 8-column block of the row in eight local variables over all
// terms, then stores it once: one load and store of the output per block
// rather than per term, eight independent addition chains, and no call per
// term. Each output element still adds its terms in order, one rounding
// per product and per sum, so the bits are those of one axpy per term
// (axpyTermsBlas) wherever the compiler does not fuse the multiply-add (it
// does on arm64). Callers check that every source is a row of h.
func axpyTermsGo(row, h, w []float32, c int, src []int32, acc bool) {
	if haveNEON && c >= 4 {
		axpyTermsNEON(row, h, w, c, src, acc)
		return
	}
	row = row[:c]
	if w != nil {
		w = w[:len(src)]
	}
	j := 0
	for ; j+8 <= c; j += 8 {
		r := row[j : j+8 : j+8]
		var a0, a1, a2, a3, a4, a5, a6, a7 float32
		if acc {
			a0, a1, a2, a3, a4, a5, a6, a7 = r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
		}
		for e, sv := range src {
			wt := float32(1)
			if w != nil {
				if wt = w[e]; wt == 0 {
					continue
				}
			}
			s := int(sv)*c + j
			x := h[s : s+8 : s+8]
			a0 += wt * x[0]
			a1 += wt * x[1]
			a2 += wt * x[2]
			a3 += wt * x[3]
			a4 += wt * x[4]
			a5 += wt * x[5]
			a6 += wt * x[6]
			a7 += wt * x[7]
		}
		r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = a0, a1, a2, a3, a4, a5, a6, a7
	}
	if j+4 <= c {
		r := row[j : j+4 : j+4]
		var a0, a1, a2, a3 float32
		if acc {
			a0, a1, a2, a3 = r[0], r[1], r[2], r[3]
		}
		for e, sv := range src {
			wt := float32(1)
			if w != nil {
				if wt = w[e]; wt == 0 {
					continue
				}
			}
			s := int(sv)*c + j
			x := h[s : s+4 : s+4]
			a0 += wt * x[0]
			a1 += wt * x[1]
			a2 += wt * x[2]
			a3 += wt * x[3]
		}
		r[0], r[1], r[2], r[3] = a0, a1, a2, a3
		j += 4
	}
	axpyTermsTail(row, h, w, c, j, src, acc)
}

// axpyTermsTail is axpyTermsGo for the columns from j on, the last 0-3
// (both callers leave no more): those columns summed over all terms in up
// to three local variables and stored once, as axpyTermsGo does its 4- and
// 8-column blocks, rather than the row loaded and stored per term. Each
// element still adds its terms in order, so the bits are those of one axpy
// per term. On arm64 it takes the columns past the NEON kernel's multiples
// of 4: the last 2 of an 18-column capsule row.
func axpyTermsTail(row, h, w []float32, c, j int, src []int32, acc bool) {
	if j == c {
		return
	}
	if w != nil {
		w = w[:len(src)]
	}
	r := row[j:c]
	var a0, a1, a2 float32
	if acc {
		a0 = r[0]
		if len(r) > 1 {
			a1 = r[1]
		}
		if len(r) > 2 {
			a2 = r[2]
		}
	}
	switch len(r) {
	case 1:
		for e, sv := range src {
			wt := float32(1)
			if w != nil {
				if wt = w[e]; wt == 0 {
					continue
				}
			}
			a0 += wt * h[int(sv)*c+j]
		}
		r[0] = a0
	case 2:
		for e, sv := range src {
			wt := float32(1)
			if w != nil {
				if wt = w[e]; wt == 0 {
					continue
				}
			}
			s := int(sv)*c + j
			x := h[s : s+2 : s+2]
			a0 += wt * x[0]
			a1 += wt * x[1]
		}
		r[0], r[1] = a0, a1
	case 3:
		for e, sv := range src {
			wt := float32(1)
			if w != nil {
				if wt = w[e]; wt == 0 {
					continue
				}
			}
			s := int(sv)*c + j
			x := h[s : s+3 : s+3]
			a0 += wt * x[0]
			a1 += wt * x[1]
			a2 += wt * x[2]
		}
		r[0], r[1], r[2] = a0, a1, a2
	default:
		panic("tensor: axpyTermsTail takes at most 3 columns")
	}
}

// axpyTermsGoMaxCols is the widest row for which the Go kernel set runs
// axpyTermsGo where gonum has assembly (amd64): beyond it one SSE axpy
// call per term (four columns an instruction) costs less than eight
// scalar chains. Without gonum's assembly (arm64, noasm) its axpy is a Go
// loop that loads and stores the output per term, and axpyTermsGo runs at
// every width.
const axpyTermsGoMaxCols = 32

// useAxpyTermsGo reports whether the Go kernel set aggregates rows of c
// columns with axpyTermsGo rather than one gonum axpy per term.
func useAxpyTermsGo(c int) bool { return !gonumAsm || c < axpyTermsGoMaxCols }

// aggregateRowsGo is aggregateRowsBlas with axpyTermsGo: rows [lo, hi).
func aggregateRowsGo(dst, h, w []float32, c int, ptr, src []int32, acc bool, lo, hi int) {
	for v := lo; v < hi; v++ {
		e0, e1 := ptr[v], ptr[v+1]
		var wv []float32
		if w != nil {
			wv = w[e0:e1]
		}
		axpyTermsGo(dst[v*c:(v+1)*c], h, wv, c, src[e0:e1], acc)
	}
}

// aggregateGroupsGo is aggregateGroupsBlas with axpyTermsGo: groups
// [lo, hi) of g rows.
func aggregateGroupsGo(dst, h, w []float32, c int, ptr, src []int32, acc bool, lo, hi, g int) {
	for s := lo; s < hi; s++ {
		e0, e1 := int(ptr[s]), int(ptr[s+1])
		n := e1 - e0
		for r := 0; r < g; r++ {
			var wr []float32
			if w != nil {
				wr = w[g*e0+r*n : g*e0+(r+1)*n]
			}
			v := s*g + r
			axpyTermsGo(dst[v*c:(v+1)*c], h, wr, c, src[e0:e1], acc)
		}
	}
}
