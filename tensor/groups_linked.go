package tensor

import "fmt"

// SetLinks attaches a link id to each of gr's sources, link[t] for src[t]
// (Set first), checked once: AggregateGroupedLinked reads the weights of a
// group's terms through them. link must not change while gr is in use.
func (gr *Groups) SetLinks(link []int32) error {
	if len(link) != len(gr.src) {
		return fmt.Errorf("tensor: groups: %d link ids for %d sources", len(link), len(gr.src))
	}
	for t, e := range link {
		if e < 0 {
			return fmt.Errorf("tensor: groups: source %d has link id %d", t, e)
		}
	}
	gr.link, gr.maxLink = link, maxSource(link)
	return nil
}

// AggregateGroupedLinked is AggregateGrouped with the weights w in link
// order: the t-th source of group s, with link id l = link[ptr[s]+t]
// (Groups.SetLinks), weighs row r of the group by w[l·g + r], where
// AggregateGrouped reads w[g·ptr[s] + r·n + t] (n the group's sources).
// The results are AggregateGrouped's on the weights reordered so, bit for
// bit. The routing's child-side sums keep their per-link weights (E×K, in
// link order) and read them through the child grouping, without writing a
// reordered copy first; for float32 rows of 17-23 columns in groups of
// four, on AVX2 and AVX-512, each source row is read once for all four
// rows.
func AggregateGroupedLinked[T Float](dst *Dense[T], gr *Groups, w []T, h *Dense[T], accumulate bool) {
	g := gr.g
	rows := max(len(gr.ptr)-1, 0) * g
	if len(gr.ptr) == 0 || gr.link == nil && len(gr.src) > 0 || dst.Rows != rows || dst.Cols != h.Cols || len(w)%max(g, 1) != 0 {
		panic(fmt.Sprintf("tensor: AggregateGroupedLinked shape mismatch: %d groups of %d rows, %d sources (links set: %v), %d weights, h %d×%d, dst %d×%d",
			len(gr.ptr)-1, g, len(gr.src), gr.link != nil, len(w), h.Rows, h.Cols, dst.Rows, dst.Cols))
	}
	if len(gr.src) > 0 && (uint64(gr.maxSrc) >= uint64(h.Rows) || uint64(gr.maxLink) >= uint64(len(w)/g)) {
		panic(fmt.Sprintf("tensor: AggregateGroupedLinked: source %d outside the %d rows of the dense operand, or link %d outside the %d of the weights",
			gr.maxSrc, h.Rows, gr.maxLink, len(w)/g))
	}
	groups := len(gr.ptr) - 1
	if groups == 0 {
		return
	}
	if linkedGroupsKernel[T](g, dst.Cols) {
		k := kernel[T]{kind: kAggregateGroupsLinked}
		k.dst, k.a, k.ptr, k.idx, k.link, k.w, k.acc, k.width = dst, h, gr.ptr, gr.src, gr.link, w, accumulate, g
		k.launch(groups, (len(gr.src)/groups+1)*h.Cols*g)
		return
	}
	// Elsewhere: the weights in AggregateGrouped's order, then that.
	tmp := getScratch[T](1, len(gr.src)*g)
	wc := tmp.Data
	for s := 0; s < groups; s++ {
		e0, e1 := int(gr.ptr[s]), int(gr.ptr[s+1])
		n := e1 - e0
		for t, l := range gr.link[e0:e1] {
			for r := 0; r < g; r++ {
				wc[g*e0+r*n+t] = w[int(l)*g+r]
			}
		}
	}
	AggregateGrouped(dst, gr, wc, h, accumulate)
	putScratch(tmp)
}

// linkedAVX2Only makes axpyRows16Tail4Links take its AVX2 kernel on
// AVX-512 (tests).
var linkedAVX2Only = false

// linkedGroupsKernel reports whether AggregateGroupedLinked runs
// axpyRows16Tail4Links (AVX2 or AVX-512) for groups of g rows of c columns
// of T.
func linkedGroupsKernel[T Float](g, c int) bool {
	var z T
	_, f32 := any(z).(float32)
	return f32 && haveAVX2FMA && g == 4 && c > 16 && c < 24
}

// aggregateGroupsLinked runs groups [lo, hi) of AggregateGroupedLinked's
// kernel path (float32, g = 4, 17-23 columns).
func aggregateGroupsLinked[T Float](k *kernel[T], lo, hi int) {
	dst := any(k.dst.Data).([]float32)
	h := any(k.a.Data).([]float32)
	w := any(k.w).([]float32)
	c := k.dst.Cols
	mask := 1<<(c-16) - 1
	for s := lo; s < hi; s++ {
		e0, e1 := int(k.ptr[s]), int(k.ptr[s+1])
		rows := dst[s*4*c : (s+1)*4*c]
		if e1 == e0 {
			if !k.acc {
				clear(rows)
			}
			continue
		}
		axpyRows16Tail4Links(&rows[0], &h[0], c, &k.idx[e0], &k.link[e0], &w[0], e1-e0, k.acc, mask)
	}
}
