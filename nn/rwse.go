package nn

import (
	"math"
	"slices"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// rwseBlock is the number of walks RWSEInto runs at once, the columns of
// the dense n×rwseBlock matrices it propagates.
const rwseBlock = 64

// RWSEInto sets dst (n×steps) to the random-walk structural encoding of
// GraphGPS (Rampášek et al. 2022, §3.1 and Table 1; Dwivedi et al. 2022's
// RWPE): row i holds the return probabilities of the random walk from
// node i, [P_ii, (P²)_ii, …, (P^steps)_ii], P = D⁻¹A the walk's
// transition matrix on the graph on n nodes with in-neighbours
// src[ptr[v]:ptr[v+1]] (CSR by target; D holds the out-degrees, and a
// node without out-arcs has a zero row, as in GraphGPS's
// get_rw_landing_probs). No self-loops are added: on a graph without them
// the first column is zero.
//
// Nothing n×n is formed: the walks start from blocks of rwseBlock nodes at
// once, as an n×rwseBlock matrix Y propagated by Y ← Pᵀ Y (so column c of
// Yₖ is e_iᵀPᵏ for the block's node i), whose entry (i, c) is read after
// each step. The cost is steps × n/rwseBlock sparse products, the work
// of steps·n walks over the arcs; the memory is two n×rwseBlock blocks.
func RWSEInto[T autodiff.Float](dst *tensor.Dense[T], n int, ptr, src []int32, steps int) {
	var w RWSE[T]
	w.Into(dst, n, ptr, src, steps)
}

// RWSE is RWSEInto with its working memory kept between calls, so that
// encoding one batch after another allocates nothing once the buffers have
// grown to the largest batch. The zero value is ready to use.
type RWSE[T autodiff.Float] struct {
	outDeg         []float64
	pt             tensor.CSR[T]
	y, next        tensor.Dense[T]
	segPtr, segSrc []int32         // IntoSegments: one segment's arcs
	seg            tensor.Dense[T] // IntoSegments: one segment's encoding
}

// Into is RWSEInto.
func (w *RWSE[T]) Into(dst *tensor.Dense[T], n int, ptr, src []int32, steps int) {
	dst.Reshape(n, steps)
	if n == 0 || steps == 0 {
		return
	}
	w.outDeg = slices.Grow(w.outDeg[:0], n)[:n]
	outDeg := w.outDeg
	clear(outDeg)
	for _, u := range src {
		outDeg[u]++
	}
	// Pᵀ as CSR by target: entry (v, u) = 1/outdeg(u) for each arc u→v.
	pt := &w.pt
	*pt = tensor.CSR[T]{Rows: n, Cols: n, Indptr: ptr[:n+1], Indices: src[:ptr[n]], Data: slices.Grow(pt.Data[:0], int(ptr[n]))[:ptr[n]]}
	for e, u := range pt.Indices {
		pt.Data[e] = T(1 / outDeg[u])
	}
	y, next := &w.y, &w.next
	for i0 := 0; i0 < n; i0 += rwseBlock {
		b := min(rwseBlock, n-i0)
		y.Reshape(n, b)
		next.Reshape(n, b)
		clear(y.Data)
		for c := 0; c < b; c++ {
			y.Data[(i0+c)*b+c] = 1
		}
		for k := 0; k < steps; k++ {
			tensor.SpMM(next, pt, y, false)
			y, next = next, y
			for c := 0; c < b; c++ {
				dst.Data[(i0+c)*steps+k] = y.Data[(i0+c)*b+c]
			}
		}
	}
}

// IntoSegments is Into for a graph whose segments of nodes [seg[s],
// seg[s+1]) have no arcs between them (the graphs of a batch): the walks of
// each segment run on its own nodes, which takes a segment's share of the
// work instead of the whole batch's for every block of walks. Every value
// is the one Into gives (the same sums in the same order; tested).
func (w *RWSE[T]) IntoSegments(dst *tensor.Dense[T], n int, ptr, src, seg []int32, steps int) {
	dst.Reshape(n, steps)
	if n == 0 || steps == 0 {
		return
	}
	for s := 0; s+1 < len(seg); s++ {
		lo, hi := int(seg[s]), int(seg[s+1])
		if lo == hi {
			continue
		}
		// The segment's arcs, renumbered from 0.
		a0, a1 := ptr[lo], ptr[hi]
		w.segPtr = append(w.segPtr[:0], ptr[lo:hi+1]...)
		for i := range w.segPtr {
			w.segPtr[i] -= a0
		}
		w.segSrc = append(w.segSrc[:0], src[a0:a1]...)
		for i, u := range w.segSrc {
			w.segSrc[i] = u - int32(lo)
		}
		w.Into(&w.seg, hi-lo, w.segPtr, w.segSrc, steps)
		copy(dst.Data[lo*steps:hi*steps], w.seg.Data)
	}
}

// StandardizeColumns shifts and scales each column of x to mean 0 and
// variance 1 over the rows (the biased variance, with eps inside the
// square root; a constant column becomes 0). It is what BatchNorm does to
// a constant input over a full batch; GraphGPS normalises its raw RWSE
// that way (raw_norm_type BatchNorm) before the linear encoder, whose
// weights absorb BatchNorm's affine part.
func StandardizeColumns[T autodiff.Float](x *tensor.Dense[T], eps float64) {
	r, c := x.Rows, x.Cols
	if r == 0 {
		return
	}
	for j := 0; j < c; j++ {
		var mu float64
		for i := 0; i < r; i++ {
			mu += float64(x.Data[i*c+j])
		}
		mu /= float64(r)
		var ss float64
		for i := 0; i < r; i++ {
			d := float64(x.Data[i*c+j]) - mu
			ss += d * d
		}
		inv := 1 / math.Sqrt(ss/float64(r)+eps)
		if ss == 0 {
			inv = 0 // a constant column, even with eps = 0
		}
		for i := 0; i < r; i++ {
			x.Data[i*c+j] = T((float64(x.Data[i*c+j]) - mu) * inv)
		}
	}
}
