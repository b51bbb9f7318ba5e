package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/blas/gonum"
)

// smallRow is the row length below which the kernels use a Go loop rather
// than gonum's assembly axpy, whose call overhead dominates short rows.
const smallRow = 8

// SpMM computes dst = a·b (or dst += a·b with accumulate), a sparse
// (a.Rows×a.Cols) times dense (a.Cols×N). dst must be a.Rows×N and must not
// alias b. Rows run in parallel; no atomics are needed because each row of
// dst is written by one goroutine.
func SpMM[T Float](dst *Dense[T], a *CSR[T], b *Dense[T], accumulate bool) {
	if a.Cols != b.Rows || dst.Rows != a.Rows || dst.Cols != b.Cols {
		panic(fmt.Sprintf("tensor: SpMM shape mismatch: a %d×%d, b %d×%d, dst %d×%d", a.Rows, a.Cols, b.Rows, b.Cols, dst.Rows, dst.Cols))
	}
	aggregate(dst, a.Indptr, a.Indices, a.Data, b, 1, accumulate)
}

// Aggregate is SpMM on a graph stored as CSR by target: for every target v,
// dst[v] = Σ_{e in ptr[v]:ptr[v+1]} w[e]·h[src[e]] (dst[v] += … with
// accumulate). w may be nil for unit weights. It lets edge weights that are
// computed per step (attention, dropout) drive a fixed graph structure.
// dst must be (len(ptr)−1)×h.Cols and must not alias h.
func Aggregate[T Float](dst *Dense[T], ptr, src []int32, w []T, h *Dense[T], accumulate bool) {
	if len(ptr) == 0 || dst.Rows != len(ptr)-1 || dst.Cols != h.Cols || (w != nil && len(w) != len(src)) {
		panic(fmt.Sprintf("tensor: Aggregate shape mismatch: %d targets, %d sources, %d weights, h %d×%d, dst %d×%d",
			len(ptr)-1, len(src), len(w), h.Rows, h.Cols, dst.Rows, dst.Cols))
	}
	aggregate(dst, ptr, src, w, h, 1, accumulate)
}

// AggregateGroups is Aggregate for targets in groups of g consecutive rows
// that sum the same sources with their own weights, the sources stored once
// per group: group s has the sources src[ptr[s]:ptr[s+1]] (n of them), and
// its row s·g+k sums them with the weights w[g·ptr[s]+k·n : g·ptr[s]+(k+1)·n]:
//
//	dst[s·g+k] (+)= Σ_{t<n} w[g·ptr[s]+k·n+t]·h[src[ptr[s]+t]].
//
// The K perspective rows ξ_{i,k} of a routing child, which each sum over the
// child's links, are such a group. dst has (len(ptr)−1)·g rows and w has
// g·len(src) entries (nil: unit weights). The result is Aggregate's on the
// structure written out row by row (each group's sources repeated for its g
// rows, the weights in the order above), bit for bit, from 1/g of its
// indices; the float32 kernel for rows of 17-23 columns reads each source
// row once for two rows of a group.
func AggregateGroups[T Float](dst *Dense[T], ptr, src []int32, w []T, h *Dense[T], g int, accumulate bool) {
	var gr Groups
	if err := gr.Set(ptr, src, g); err != nil {
		panic(err.Error())
	}
	AggregateGrouped(dst, &gr, w, h, accumulate)
}

// Groups is the row structure of AggregateGroups, checked once for callers
// that aggregate over it many times (routing's child-side gradients, several
// per pass): a pointer ptr over the sources src of each group of G rows. The
// zero value has no rows. Set keeps ptr and src, which must not change while
// the Groups is in use.
type Groups struct {
	ptr, src []int32
	g        int
	maxSrc   uint32 // the largest source, read as uint32
	// link holds each source's link id (SetLinks), nil until then;
	// maxLink is the largest, read as uint32.
	link    []int32
	maxLink uint32
}

// Set checks that ptr is a pointer over src (ptr[0] = 0, non-decreasing,
// ending at len(src)) and that g ≥ 1, and keeps ptr, src and g.
func (gr *Groups) Set(ptr, src []int32, g int) error {
	groups := len(ptr) - 1
	if groups < 0 || g < 1 || ptr[0] != 0 || int(ptr[groups]) != len(src) {
		return fmt.Errorf("tensor: groups: %d group pointers over %d sources in groups of %d rows", len(ptr), len(src), g)
	}
	for s := 0; s < groups; s++ {
		if ptr[s] > ptr[s+1] {
			return fmt.Errorf("tensor: groups: group %d ends at %d before it starts at %d", s, ptr[s+1], ptr[s])
		}
	}
	*gr = Groups{ptr: ptr, src: src, g: g, maxSrc: maxSource(src)}
	return nil
}

// AggregateGrouped is AggregateGroups over a structure checked once by
// Groups.Set: per call it checks only the shapes and that the sources are
// rows of h. The results are AggregateGroups', bit for bit.
func AggregateGrouped[T Float](dst *Dense[T], gr *Groups, w []T, h *Dense[T], accumulate bool) {
	rows := max(len(gr.ptr)-1, 0) * gr.g
	if len(gr.ptr) == 0 || dst.Rows != rows || dst.Cols != h.Cols || (w != nil && len(w) != gr.g*len(gr.src)) {
		panic(fmt.Sprintf("tensor: AggregateGrouped shape mismatch: %d groups of %d rows, %d sources, %d weights, h %d×%d, dst %d×%d",
			len(gr.ptr)-1, gr.g, len(gr.src), len(w), h.Rows, h.Cols, dst.Rows, dst.Cols))
	}
	if len(gr.src) > 0 && uint64(gr.maxSrc) >= uint64(h.Rows) {
		panic(fmt.Sprintf("tensor: AggregateGrouped: source %d outside the %d rows of the dense operand", gr.maxSrc, h.Rows))
	}
	launchAggregate(dst, gr.ptr, gr.src, w, h, gr.g, accumulate)
}

// aggregate runs Aggregate in parallel over groups of g rows (g = 1: rows).
func aggregate[T Float](dst *Dense[T], ptr, src []int32, w []T, h *Dense[T], g int, accumulate bool) {
	rows := dst.Rows
	if rows == 0 {
		return
	}
	checkSources(src, h.Rows)
	launchAggregate(dst, ptr, src, w, h, g, accumulate)
}

// launchAggregate runs the checked aggregation in parallel over groups of g
// rows, ptr pointing at each group's sources (AggregateGroups; g = 1:
// Aggregate's rows).
func launchAggregate[T Float](dst *Dense[T], ptr, src []int32, w []T, h *Dense[T], g int, accumulate bool) {
	groups := dst.Rows / g
	if groups == 0 {
		return
	}
	k := kernel[T]{kind: kAggregateRows}
	k.dst, k.a, k.ptr, k.idx, k.w, k.acc, k.width = dst, h, ptr, src, w, accumulate, g
	k.launch(groups, (len(src)/groups+1)*max(h.Cols, 1)*g)
}

// aggregateRows uses dst, a (= h), ptr, idx (= sources), w, acc. The
// element-type switch runs once per chunk so that the inner loop calls
// gonum's axpy directly: at 10-20 non-zeros per row the per-call overhead is
// a good part of the cost.
//
// width is the group size g of AggregateGroups: lo and hi count groups,
// and k.ptr points at each group's sources.
func aggregateRows[T Float](k *kernel[T], lo, hi int) {
	if g := k.width; g > 1 {
		aggregateGroups(k, lo, hi, g)
		return
	}
	switch d := any(k.dst.Data).(type) {
	case []float32:
		w, _ := any(k.w).([]float32)
		if haveAVX2FMA && k.dst.Cols >= 1 {
			aggregateRowsAVX(d, any(k.a.Data).([]float32), w, k.dst.Cols, k.ptr, k.idx, k.acc, lo, hi)
			return
		}
		if useAxpyTermsGo(k.dst.Cols) {
			aggregateRowsGo(d, any(k.a.Data).([]float32), w, k.dst.Cols, k.ptr, k.idx, k.acc, lo, hi)
			return
		}
		aggregateRowsBlas(d, any(k.a.Data).([]float32), w, k.dst.Cols, k.ptr, k.idx, k.acc, lo, hi,
			gonum.Implementation{}.Saxpy)
	case []float64:
		w, _ := any(k.w).([]float64)
		aggregateRowsBlas(d, any(k.a.Data).([]float64), w, k.dst.Cols, k.ptr, k.idx, k.acc, lo, hi,
			gonum.Implementation{}.Daxpy)
	default:
		aggregateRowsBlas(k.dst.Data, k.a.Data, k.w, k.dst.Cols, k.ptr, k.idx, k.acc, lo, hi, axpyGo[T])
	}
}

// axpyGo is the BLAS-shaped Go fallback of axpy for named element types.
func axpyGo[T Float](n int, alpha T, x []T, incX int, y []T, incY int) {
	y = y[:n]
	for i, v := range x[:n] {
		y[i] += alpha * v
	}
}

func aggregateRowsBlas[E Float](dst, h, w []E, c int, ptr, src []int32, acc bool, lo, hi int,
	axpyFn func(n int, alpha E, x []E, incX int, y []E, incY int)) {
	for v := lo; v < hi; v++ {
		var wv []E
		if w != nil {
			wv = w[ptr[v]:ptr[v+1]]
		}
		axpyTermsBlas(dst[v*c:(v+1)*c], h, wv, c, src[ptr[v]:ptr[v+1]], acc, axpyFn)
	}
}

// axpyTermsBlas sets row to (acc ? row : 0) + Σ_e w[e]·h[src[e]] (w nil:
// unit weights), one axpy per term in order.
func axpyTermsBlas[E Float](row, h, w []E, c int, src []int32, acc bool,
	axpyFn func(n int, alpha E, x []E, incX int, y []E, incY int)) {
	if !acc {
		clear(row)
	}
	for e, sv := range src {
		wt := E(1)
		if w != nil {
			wt = w[e]
			if wt == 0 {
				continue // an entry dropped by DropoutCSR adds nothing
			}
		}
		s := int(sv) * c
		x := h[s : s+c]
		if c < smallRow {
			for j, xv := range x {
				row[j] += wt * xv
			}
		} else {
			axpyFn(c, wt, x, 1, row, 1)
		}
	}
}

// aggregateGroups is aggregateRows for groups of g > 1 rows (AggregateGroups'
// layout): groups lo … hi−1.
func aggregateGroups[T Float](k *kernel[T], lo, hi, g int) {
	c := k.dst.Cols
	switch d := any(k.dst.Data).(type) {
	case []float32:
		w, _ := any(k.w).([]float32)
		if haveAVX2FMA && c >= 1 {
			aggregateGroupsAVX(d, any(k.a.Data).([]float32), w, c, k.ptr, k.idx, k.acc, lo, hi, g)
			return
		}
		if useAxpyTermsGo(c) {
			aggregateGroupsGo(d, any(k.a.Data).([]float32), w, c, k.ptr, k.idx, k.acc, lo, hi, g)
			return
		}
		aggregateGroupsBlas(d, any(k.a.Data).([]float32), w, c, k.ptr, k.idx, k.acc, lo, hi, g,
			gonum.Implementation{}.Saxpy)
	case []float64:
		w, _ := any(k.w).([]float64)
		aggregateGroupsBlas(d, any(k.a.Data).([]float64), w, c, k.ptr, k.idx, k.acc, lo, hi, g,
			gonum.Implementation{}.Daxpy)
	default:
		aggregateGroupsBlas(k.dst.Data, k.a.Data, k.w, c, k.ptr, k.idx, k.acc, lo, hi, g, axpyGo[T])
	}
}

func aggregateGroupsBlas[E Float](dst, h, w []E, c int, ptr, src []int32, acc bool, lo, hi, g int,
	axpyFn func(n int, alpha E, x []E, incX int, y []E, incY int)) {
	for s := lo; s < hi; s++ {
		e0, e1 := int(ptr[s]), int(ptr[s+1])
		n := e1 - e0
		for r := 0; r < g; r++ {
			var wr []E
			if w != nil {
				wr = w[g*e0+r*n : g*e0+(r+1)*n]
			}
			v := s*g + r
			axpyTermsBlas(dst[v*c:(v+1)*c], h, wr, c, src[e0:e1], acc, axpyFn)
		}
	}
}

// columnBlock picks the column-block width of a column-partitioned kernel:
// about one block per core, at least 16 columns so rows stay vectorisable.
func columnBlock(cols int) int {
	procs := runtime.GOMAXPROCS(0)
	w := (cols + procs - 1) / procs
	w = max(16, (w+7)&^7)
	return min(w, max(cols, 1))
}

// SpMMT computes dst = aᵀ·b (or dst += aᵀ·b with accumulate): a is a sparse
// R×C matrix, b dense R×N, dst C×N. This is the weight gradient of a sparse
// input layer (∂W = Xᵀ∂Y). Row i of a scatters into many rows of dst, so
// instead of atomics, when dst fits in cache (≤ 1 MiB), each of P
// goroutines takes a slice of a's rows (equal non-zero counts) and
// accumulates into a private copy of dst (the first into dst itself); the
// copies are then summed into dst, in parallel over rows. The extra memory,
// (P−1)·C·N elements, is recycled between calls. A larger dst is split by
// column blocks instead. When the same structure is multiplied every step, a
// kept transpose (CSR.Transpose, Adjacency) and SpMM avoid the reduction.
func SpMMT[T Float](dst *Dense[T], a *CSR[T], b *Dense[T], accumulate bool) {
	if a.Rows != b.Rows || dst.Rows != a.Cols || dst.Cols != b.Cols {
		panic(fmt.Sprintf("tensor: SpMMT shape mismatch: a %d×%d, b %d×%d, dst %d×%d", a.Rows, a.Cols, b.Rows, b.Cols, dst.Rows, dst.Cols))
	}
	if !accumulate {
		clear(dst.Data)
	}
	if dst.Len() == 0 || a.NNZ() == 0 {
		return
	}
	scatterRows(dst, b, a.Indptr, a.Indices, a.Data)
}

// scatterCopyMaxBytes bounds the size of dst for which scatterRows gives
// each goroutine a private copy: copies beyond the caches make every
// scattered add a cache miss and cost more than they save.
const scatterCopyMaxBytes = 1 << 20

// elemBytes is the size of T: 4 when T has float32's 24-bit significand,
// else 8.
func elemBytes[T Float]() int {
	big := T(1 << 24)
	if big+1 == big {
		return 4
	}
	return 8
}

// scatterRows adds w[e]·b[i] into dst[idx[e]] for the entries e of each row
// i of a CSR structure (ptr, idx, w); ptr == nil means one entry per row
// (e = i) and w == nil unit weights. Several entries may hit one row of dst,
// so rows of dst cannot be split among goroutines. When dst is small next
// to the work, P goroutines each take a slice of the entries and a private
// copy of dst, summed at the end; otherwise they split dst's columns into
// blocks, each scanning every entry (serial for narrow rows).
func scatterRows[T Float](dst, b *Dense[T], ptr, idx []int32, w []T) {
	rows := len(idx)
	if ptr != nil {
		rows = len(ptr) - 1
	}
	work := len(idx) * dst.Cols
	parts := min(runtime.GOMAXPROCS(0), parallelChunks(rows, work/max(rows, 1)+1), work/(4*dst.Len()))
	if dst.Len()*elemBytes[T]() > scatterCopyMaxBytes {
		parts = 1
	}
	if parts <= 1 {
		bw := columnBlock(dst.Cols)
		k := kernel[T]{kind: kScatterColBlocks, dst: dst, b: b, ptr: ptr, idx: idx, w: w, width: bw}
		k.launch((dst.Cols+bw-1)/bw, len(idx)*bw)
		return
	}
	k := kernel[T]{kind: kSpmmtParts, dst: dst, b: b, ptr: ptr, idx: idx, w: w, width: parts}
	scratch := getScratch[T]((parts-1)*dst.Rows, dst.Cols)
	defer putScratch(scratch)
	k.a = scratch
	k.launch(parts, len(idx)*dst.Cols/parts)
	// Sum the private copies into dst, row-parallel.
	r := kernel[T]{kind: kSumParts, dst: dst, a: scratch, width: parts}
	r.launch(dst.Rows, parts*dst.Cols)
}

// spmmtParts runs partitions [lo, hi) of scatterRowsPartitioned; uses dst,
// a (the private copies of partitions 1..width−1, stacked), b, ptr, idx, w
// (the sparse structure; ptr and w may be nil), width (the partition count;
// 0 or 1 means one partition).
func spmmtParts[T Float](k *kernel[T], lo, hi int) {
	parts := max(k.width, 1)
	nnz := len(k.idx)
	n := k.dst.Cols
	bd := k.b.Data
	for p := lo; p < hi; p++ {
		out := k.dst.Data
		if p > 0 {
			m := k.dst.Len()
			out = k.a.Data[(p-1)*m : p*m]
			clear(out)
		}
		if k.ptr == nil { // one entry per row: split the entries evenly
			for i := nnz * p / parts; i < nnz*(p+1)/parts; i++ {
				j := int(k.idx[i])
				wt := T(1)
				if k.w != nil {
					wt = k.w[i]
				}
				spmmtAxpy(wt, bd[i*n:(i+1)*n], out[j*n:(j+1)*n])
			}
			continue
		}
		// Row range with about nnz/parts entries.
		r0 := spmmtSplit(k.ptr, nnz*p/parts)
		r1 := spmmtSplit(k.ptr, nnz*(p+1)/parts)
		for i := r0; i < r1; i++ {
			brow := bd[i*n : (i+1)*n]
			for e := k.ptr[i]; e < k.ptr[i+1]; e++ {
				j := int(k.idx[e])
				wt := T(1)
				if k.w != nil {
					wt = k.w[e]
					if wt == 0 {
						continue // an entry dropped by DropoutCSR adds nothing
					}
				}
				spmmtAxpy(wt, brow, out[j*n:(j+1)*n])
			}
		}
	}
}

// scatterColBlocks runs column blocks [lo, hi) of scatterRows; uses dst,
// b, ptr, idx, w (ptr and w may be nil), width (the block width).
func scatterColBlocks[T Float](k *kernel[T], lo, hi int) {
	n := k.dst.Cols
	c0, c1 := lo*k.width, min(hi*k.width, n)
	bd, dd := k.b.Data, k.dst.Data
	rows := len(k.idx)
	if k.ptr != nil {
		rows = len(k.ptr) - 1
	}
	for i := 0; i < rows; i++ {
		e0, e1 := i, i+1
		if k.ptr != nil {
			e0, e1 = int(k.ptr[i]), int(k.ptr[i+1])
		}
		brow := bd[i*n+c0 : i*n+c1]
		for e := e0; e < e1; e++ {
			j := int(k.idx[e])
			wt := T(1)
			if k.w != nil {
				wt = k.w[e]
				if wt == 0 {
					continue // an entry dropped by DropoutCSR adds nothing
				}
			}
			spmmtAxpy(wt, brow, dd[j*n+c0:j*n+c1])
		}
	}
}

// spmmtAxpy is axpy with a Go loop for short rows, where the call into
// gonum costs more than the arithmetic.
func spmmtAxpy[T Float](alpha T, x, y []T) {
	if len(x) <= 2*smallRow {
		y = y[:len(x)]
		for i, v := range x {
			y[i] += alpha * v
		}
		return
	}
	axpy(alpha, x, y)
}

// spmmtSplit returns the first row whose non-zeros start at or after
// position q (so that consecutive splits partition the rows).
func spmmtSplit(ptr []int32, q int) int {
	if q >= int(ptr[len(ptr)-1]) {
		return len(ptr) - 1
	}
	lo, hi := 0, len(ptr)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if int(ptr[mid]) < q {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// sumParts adds the stacked private copies (a) into rows [lo, hi) of dst;
// uses dst, a, width (the partition count).
func sumParts[T Float](k *kernel[T], lo, hi int) {
	n, m := k.dst.Cols, k.dst.Len()
	for p := 1; p < k.width; p++ {
		part := k.a.Data[(p-1)*m : p*m]
		addTo(part[lo*n:hi*n], k.dst.Data[lo*n:hi*n])
	}
}

// Transpose returns mᵀ as a new CSR matrix, and perm with
// t.Data[q] = m.Data[perm[q]], so that TransposeValues can refresh the values
// of t when m's values change but its structure does not (dropout masks,
// re-weighted edges). Column indices of t are sorted within each row.
func (m *CSR[T]) Transpose() (t *CSR[T], perm []int32) {
	t = &CSR[T]{}
	m.TransposeInto(t, &perm)
	return t, perm
}

// TransposeInto is Transpose written into t and *perm, reusing their
// storage: a structure rebuilt every step (graph mini-batches) allocates
// nothing once warm.
func (m *CSR[T]) TransposeInto(t *CSR[T], perm *[]int32) {
	nnz := m.NNZ()
	t.Rows, t.Cols = m.Cols, m.Rows
	t.Indptr = growInt32(t.Indptr, m.Cols+1)
	clear(t.Indptr)
	t.Indices = growInt32(t.Indices, nnz)
	if cap(t.Data) < nnz {
		t.Data = Regrow(t.Data, nnz)
	}
	t.Data = t.Data[:nnz]
	*perm = growInt32(*perm, nnz)
	pm := *perm
	for _, j := range m.Indices {
		t.Indptr[j+1]++
	}
	for j := 0; j < m.Cols; j++ {
		t.Indptr[j+1] += t.Indptr[j]
	}
	// t.Indptr[j] serves as row j's cursor, so that after the fill it holds
	// row j+1's start; shifting it back restores the row starts. Visiting
	// rows in order fills each row of t in ascending column order.
	for i := 0; i < m.Rows; i++ {
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			j := m.Indices[p]
			q := t.Indptr[j]
			t.Indptr[j]++
			t.Indices[q] = int32(i)
			t.Data[q] = m.Data[p]
			pm[q] = p
		}
	}
	copy(t.Indptr[1:], t.Indptr[:m.Cols])
	t.Indptr[0] = 0
}

func growInt32(b []int32, n int) []int32 {
	if cap(b) < n {
		return Regrow(b, n)
	}
	return b[:n]
}

// TransposeValues sets t.Data[q] = m.Data[perm[q]] for a t, perm from
// m.Transpose() (or from a matrix with m's structure).
func TransposeValues[T Float](t, m *CSR[T], perm []int32) {
	if len(perm) != len(t.Data) || len(m.Data) != len(t.Data) {
		panic(fmt.Sprintf("tensor: TransposeValues: %d values, %d in the source, %d in perm", len(t.Data), len(m.Data), len(perm)))
	}
	for q, p := range perm {
		t.Data[q] = m.Data[p]
	}
}

// Adjacency is a weighted graph operator (such as GCN's normalised adjacency
// Â, CSR by target: row v lists the sources of the arcs into v) together with
// its transpose, which the backward pass of Â·H needs (∂H = Âᵀ∂out scatters
// to sources). The transpose is built once per graph, not once per step.
type Adjacency[T Float] struct {
	A  *CSR[T] // forward operator, targets × sources
	AT *CSR[T] // Aᵀ, sources × targets
	// perm maps AT's entries to A's: AT.Data[q] = A.Data[perm[q]].
	perm []int32
	// spare keeps the transpose's storage while ResetForward has set AT
	// to nil, for the next Reset to reuse.
	spare *CSR[T]
}

// NewAdjacency pairs a with its transpose. a is shared, not copied.
func NewAdjacency[T Float](a *CSR[T]) *Adjacency[T] {
	g := &Adjacency[T]{}
	g.Reset(a)
	return g
}

// Reset pairs g with a (shared, not copied), rebuilding the transpose into
// g's storage; a zero Adjacency is ready for Reset.
func (g *Adjacency[T]) Reset(a *CSR[T]) {
	if g.AT == nil && g.spare != nil { // after ResetForward
		g.AT, g.spare = g.spare, nil
	}
	if g.AT == nil || g.AT == g.A { // none yet, or the operator itself (ResetFixed)
		g.AT = &CSR[T]{}
	}
	g.A = a
	a.TransposeInto(g.AT, &g.perm)
}

// ResetForward pairs g with a (shared, not copied) and keeps no transpose:
// for passes that record no backward (a NoGrad tape), which never read AT.
// Building the transpose costs as much as a product with a; an evaluation
// pass over many small blocks would pay it once per block for nothing.
func (g *Adjacency[T]) ResetForward(a *CSR[T]) {
	if g.AT != nil && g.AT != g.A {
		g.spare = g.AT
	}
	g.A, g.AT, g.perm = a, nil, g.perm[:0]
}

// ResetFixed is Reset for an operator whose values do not change while g
// uses it (no SyncValues). When a equals its transpose exactly, as an
// undirected graph's GCN operator Â does (every row sorted, Â[u][v] and
// Â[v][u] the same bits), AT is a itself and no transpose is kept: the
// backward passes read the same numbers from half the memory. Otherwise
// it is Reset.
func (g *Adjacency[T]) ResetFixed(a *CSR[T]) {
	g.Reset(a)
	t := g.AT
	if t.Rows != a.Rows || !slices.Equal(t.Indptr, a.Indptr[:a.Rows+1]) || !slices.Equal(t.Indices, a.Indices[:len(t.Indices)]) {
		return
	}
	for q, v := range t.Data {
		if math.Float64bits(float64(v)) != math.Float64bits(float64(a.Data[q])) {
			return
		}
	}
	g.AT, g.perm = a, nil
}

// symmetric reports whether g's transpose is its operator itself
// (ResetFixed).
func (g *Adjacency[T]) symmetric() bool { return g.AT == g.A && g.perm == nil }

// ResetLike pairs g with a, whose structure (shape, Indptr and Indices)
// is like's operator's, and fills g's transpose with a's values: the
// transpose's structure and permutation are like's, shared rather than
// rebuilt, and only its values are g's own (an operator that is its own
// transpose, ResetFixed, has none to share: then it is Reset). like must not be Reset while g
// uses them. It panics if a's shape or number of entries differ from
// like's.
func (g *Adjacency[T]) ResetLike(a *CSR[T], like *Adjacency[T]) {
	if like.symmetric() { // no transpose of its own to share (ResetFixed)
		g.Reset(a)
		return
	}
	l := like.A
	if a.Rows != l.Rows || a.Cols != l.Cols || len(a.Data) != len(like.perm) || len(a.Indices) != len(l.Indices) {
		panic(fmt.Sprintf("tensor: Adjacency.ResetLike: %d×%d with %d entries, like %d×%d with %d", a.Rows, a.Cols, len(a.Data), l.Rows, l.Cols, len(like.perm)))
	}
	if g.AT == nil || g.AT == g.A {
		g.AT = &CSR[T]{}
	}
	g.A = a
	t := like.AT
	data := g.AT.Data
	if cap(data) < len(t.Data) {
		data = Regrow(data, len(t.Data))
	}
	*g.AT = CSR[T]{Rows: t.Rows, Cols: t.Cols, Indptr: t.Indptr, Indices: t.Indices, Data: data[:len(t.Data)]}
	g.perm = like.perm
	g.SyncValues()
}

// SyncValues copies A's current values into AT, after the caller changed
// A.Data in place (same structure).
// It panics on an operator that is its own transpose (ResetFixed), whose
// values must not change.
func (g *Adjacency[T]) SyncValues() {
	if g.symmetric() {
		panic("tensor: Adjacency.SyncValues on a fixed operator that is its own transpose")
	}
	TransposeValues(g.AT, g.A, g.perm)
}

// TransposeEdgeValues permutes per-arc values of A (len A.NNZ(), in A's
// storage order) into AT's storage order: dst[q] = w[perm[q]]. It is how a
// backward pass scatters through per-step edge weights (attention) with a
// row-parallel kernel over AT.
func (g *Adjacency[T]) TransposeEdgeValues(dst, w []T) {
	if g.symmetric() {
		transposeSymmetricEdges(dst, w, g.A)
		return
	}
	if len(dst) != len(g.perm) || len(w) != len(g.perm) {
		panic(fmt.Sprintf("tensor: TransposeEdgeValues: %d arcs, dst %d, w %d", len(g.perm), len(dst), len(w)))
	}
	for q, p := range g.perm {
		dst[q] = w[p]
	}
}

// transposeSymmetricEdges is TransposeEdgeValues for an operator a that is
// its own transpose: entry (v, u) of the transpose is a's entry (u, v),
// found in a's sorted row u.
func transposeSymmetricEdges[T Float](dst, w []T, a *CSR[T]) {
	nnz := a.NNZ()
	if len(dst) != nnz || len(w) != nnz {
		panic(fmt.Sprintf("tensor: TransposeEdgeValues: %d arcs, dst %d, w %d", nnz, len(dst), len(w)))
	}
	for v := 0; v < a.Rows; v++ {
		for q := a.Indptr[v]; q < a.Indptr[v+1]; q++ {
			u := a.Indices[q]
			row := a.Indices[a.Indptr[u]:a.Indptr[u+1]]
			p, _ := slices.BinarySearch(row, int32(v))
			dst[q] = w[int(a.Indptr[u])+p]
		}
	}
}

// DropoutCSR writes into dst a copy of src whose stored values are each
// zeroed with probability p and otherwise scaled by 1/(1−p) (inverted
// dropout): dropout on sparse input features only touches the non-zeros.
// dst shares src's Indptr and Indices (its structure is src's, with the
// dropped entries stored as explicit zeros); dst.Data is reused when it has
// the capacity, so steady-state calls allocate nothing. The mask is drawn
// from rng in storage order, so a seeded rng gives a reproducible mask.
// p must be in [0, 1]; p = 1 zeroes every value. Values must be finite (the
// mask multiplies them: a dropped Inf would become NaN); loaders reject
// non-finite features.
func DropoutCSR[T Float](dst, src *CSR[T], p float64, rng *rand.Rand) {
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("tensor: DropoutCSR probability %v outside [0, 1]", p))
	}
	nnz := len(src.Data)
	dst.Rows, dst.Cols, dst.Indptr, dst.Indices = src.Rows, src.Cols, src.Indptr, src.Indices
	if cap(dst.Data) < nnz {
		dst.Data = make([]T, nnz)
	}
	dst.Data = dst.Data[:nnz]
	switch {
	case p == 0:
		copy(dst.Data, src.Data)
		return
	case p == 1:
		clear(dst.Data)
		return
	}
	// One 64-bit draw gives two 32-bit uniforms: keep when u ≥ p·2³².
	// DropoutMask decides a chunk of drawn words at a time.
	scale := T(1 / (1 - p))
	thr := uint64(p * (1 << 32))
	var buf [256]uint64
	for lo := 0; lo < nnz; lo += 2 * len(buf) {
		hi := min(lo+2*len(buf), nnz)
		words := buf[:(hi-lo+1)/2]
		for i := range words {
			words[i] = rng.Uint64()
		}
		DropoutMask(dst.Data[lo:hi], src.Data[lo:hi], words, thr, scale, 1)
	}
}
