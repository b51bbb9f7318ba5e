package autodiff

import (
	"fmt"

	"github.com/prcaps/prcaps/tensor"
)

// graphAggOp is the record of out = A·h for a constant graph operator A.
type graphAggOp[T Float] struct {
	adj *tensor.Adjacency[T]
	h   *Var[T]
}

// Backward implements Op: ∂h += Aᵀ·∂out, a row-parallel SpMM over the
// transpose that the Adjacency keeps, so the scatter to sources needs no
// atomics.
func (p *graphAggOp[T]) Backward(out *Var[T]) {
	if p.h.requiresGrad {
		tensor.SpMM(&p.h.Grad, p.adj.AT, &out.Grad, true)
	}
}

// GraphAggregate records out = A·h where A = adj.A is a constant weighted
// graph operator stored as CSR by target (for GCN, the normalised adjacency
// D^−½(A+I)D^−½): out[v] = Σ_{u→v} A[v][u]·h[u]. Build adj once per graph
// with tensor.NewAdjacency. It panics if A's column count differs from h's
// row count.
func GraphAggregate[T Float](t *Tape[T], adj *tensor.Adjacency[T], h *Var[T]) *Var[T] {
	a := adj.A
	if a.Cols != h.Value.Rows {
		panic(fmt.Sprintf("autodiff: GraphAggregate of a %d×%d operator with %d×%d features", a.Rows, a.Cols, h.Value.Rows, h.Value.Cols))
	}
	out := t.Node(a.Rows, h.Value.Cols, h)
	tensor.SpMM(&out.Value, a, &h.Value, false)
	if out.requiresGrad {
		p := OpOf[graphAggOp[T]](out)
		p.adj, p.h = adj, h
	}
	return out
}

// graphAggBiasOp is the record of out = A·h + b (b a 1×C row).
type graphAggBiasOp[T Float] struct {
	adj       *tensor.Adjacency[T]
	h, b, out *Var[T]
	part      []T       // the bias gradient's partial column sums
	acc       []float64 // and their float64 totals
	fwd       func(lo, hi int)
}

// addBias adds b to rows [lo, hi) of the output, as Add does.
func (p *graphAggBiasOp[T]) addBias(lo, hi int) {
	C := p.out.Value.Cols
	bias := p.b.Value.Data
	for i := lo; i < hi; i++ {
		row := p.out.Value.Data[i*C : (i+1)*C]
		tensor.VecAdd(row, row, bias)
	}
}

// Backward implements Op: ∂b += the column sums of ∂out, then ∂h +=
// Aᵀ·∂out; Add's backward pass followed by GraphAggregate's, without the
// copy of ∂out that Add hands on.
func (p *graphAggBiasOp[T]) Backward(out *Var[T]) {
	if p.b.requiresGrad {
		p.biasGrad(out)
	}
	if p.h.requiresGrad {
		tensor.SpMM(&p.h.Grad, p.adj.AT, &out.Grad, true)
	}
}

// biasGrad adds the column sums of ∂out to ∂b, as Add's backward pass does
// for a bias row.
func (p *graphAggBiasOp[T]) biasGrad(out *Var[T]) {
	R, C := out.Value.Rows, out.Value.Cols
	if cap(p.acc) < C {
		p.acc = make([]float64, C)
	}
	acc := p.acc[:C]
	clear(acc)
	p.part = sumRowBlocks(p.part, acc, out.Grad.Data, R, C)
	for k, x := range acc {
		p.b.Grad.Data[k] += T(x)
	}
}

// GraphAggregateBias records out = A·h + b, GraphAggregate followed by Add
// of the 1×C row b to every row (a GCN layer's propagation and bias), in
// one op: the same values and gradients, bit for bit, without keeping A·h.
// It panics on shape mismatches.
func GraphAggregateBias[T Float](t *Tape[T], adj *tensor.Adjacency[T], h, b *Var[T]) *Var[T] {
	a := adj.A
	C := h.Value.Cols
	if a.Cols != h.Value.Rows || b.Value.Rows != 1 || b.Value.Cols != C {
		panic(fmt.Sprintf("autodiff: GraphAggregateBias of a %d×%d operator with %d×%d features and a %d×%d bias",
			a.Rows, a.Cols, h.Value.Rows, C, b.Value.Rows, b.Value.Cols))
	}
	out := t.Node(a.Rows, C, h, b)
	tensor.SpMM(&out.Value, a, &h.Value, false)
	p := OpOf[graphAggBiasOp[T]](out)
	if p.fwd == nil {
		p.fwd = p.addBias
	}
	p.adj, p.h, p.b, p.out = adj, h, b, out
	tensor.ParallelFor(a.Rows, C, p.fwd)
	return out
}

// graphConvSparseOp is the record of out = A·(x·w) + b for constant
// sparse x (see GraphConvSparse).
type graphConvSparseOp[T Float] struct {
	graphAggBiasOp[T]
	x    *tensor.Adjacency[T]
	w    *Var[T]
	tape *Tape[T]
	xw   tensor.Dense[T] // x·w or its gradient, over the tape's scratch within a call
}

// Backward implements Op: GraphAggregateBias's backward pass, with the
// gradient of x·w in the tape's scratch, then SpMMTransposed's: ∂w +=
// xᵀ·∂(x·w).
func (p *graphConvSparseOp[T]) Backward(out *Var[T]) {
	if p.b.requiresGrad {
		p.biasGrad(out)
	}
	if p.w.requiresGrad {
		C := out.Value.Cols
		p.xw = tensor.Dense[T]{Rows: p.adj.A.Cols, Cols: C, Data: p.tape.Scratch(0, p.adj.A.Cols*C)}
		clear(p.xw.Data) // a zero gradient buffer, as the pool hands x·w
		tensor.SpMM(&p.xw, p.adj.AT, &out.Grad, true)
		transposedGrad(&p.w.Grad, p.x, &p.xw)
		p.xw.Data = nil
	}
}

// GraphConvSparse records out = A·(x·w) + b, a graph convolution of
// constant sparse features x (prepared as SpMMTransposed takes them) with
// weights w and a bias row b: the same
// values and gradients as SpMMTransposed then GraphAggregateBias, bit for
// bit, but x·w lives only in the tape's scratch, within each call, instead
// of on the tape. It panics on shape mismatches.
func GraphConvSparse[T Float](t *Tape[T], adj, x *tensor.Adjacency[T], w, b *Var[T]) *Var[T] {
	a, xa := adj.A, x.A
	C := w.Value.Cols
	if xa.Cols != w.Value.Rows || a.Cols != xa.Rows || b.Value.Rows != 1 || b.Value.Cols != C {
		panic(fmt.Sprintf("autodiff: GraphConvSparse of a %d×%d operator, %d×%d sparse features, %d×%d weights and a %d×%d bias",
			a.Rows, a.Cols, xa.Rows, xa.Cols, w.Value.Rows, C, b.Value.Rows, b.Value.Cols))
	}
	out := t.Node(a.Rows, C, w, b)
	p := OpOf[graphConvSparseOp[T]](out)
	p.xw = tensor.Dense[T]{Rows: xa.Rows, Cols: C, Data: t.Scratch(0, xa.Rows*C)}
	tensor.SpMM(&p.xw, xa, &w.Value, false)
	tensor.SpMM(&out.Value, a, &p.xw, false)
	p.xw.Data = nil
	if p.fwd == nil {
		p.fwd = p.addBias
	}
	p.adj, p.b, p.out, p.x, p.w, p.tape = adj, b, out, x, w, t
	tensor.ParallelFor(a.Rows, C, p.fwd)
	return out
}

// gatherRowsOp is the record of out[i] = h[idx[i]].
type gatherRowsOp[T Float] struct {
	h   *Var[T]
	idx []int32
}

// Backward implements Op: ∂h[idx[i]] += ∂out[i], summing over repeated
// indices.
func (p *gatherRowsOp[T]) Backward(out *Var[T]) {
	if p.h.requiresGrad {
		tensor.IndexAddRows(&p.h.Grad, &out.Grad, p.idx, true)
	}
}

// GatherRows records out[i] = h[idx[i]] (len(idx) rows; indices may repeat,
// e.g. the source node of every arc). idx must not change until Backward has
// run. It panics if an index is outside h's rows.
func GatherRows[T Float](t *Tape[T], h *Var[T], idx []int32) *Var[T] {
	n := h.Value.Rows
	for i, j := range idx {
		if j < 0 || int(j) >= n {
			panic(fmt.Sprintf("autodiff: GatherRows index %d is %d, outside [0, %d)", i, j, n))
		}
	}
	out := t.Node(len(idx), h.Value.Cols, h)
	tensor.GatherRows(&out.Value, &h.Value, idx, false)
	if out.requiresGrad {
		p := OpOf[gatherRowsOp[T]](out)
		p.h, p.idx = h, idx
	}
	return out
}

// scatterAddRowsOp is the record of out[s] = Σ of the rows of segment s of h.
type scatterAddRowsOp[T Float] struct {
	h      *Var[T]
	segPtr []int32
}

// Backward implements Op: every row of segment s receives ∂out[s].
func (p *scatterAddRowsOp[T]) Backward(out *Var[T]) {
	if p.h.requiresGrad {
		tensor.BroadcastSegmentRows(&p.h.Grad, &out.Grad, p.segPtr, true)
	}
}

// ScatterAddRows records out[s] = Σ_{r in [segPtr[s], segPtr[s+1])} h[r]:
// the rows of h are grouped into consecutive segments (for instance the arcs
// of a CSR-by-target graph, grouped by target) and each segment is summed;
// an empty segment gives a zero row. out has len(segPtr)−1 rows. segPtr must
// run from 0 to h's row count and not change until Backward has run.
func ScatterAddRows[T Float](t *Tape[T], h *Var[T], segPtr []int32) *Var[T] {
	mgCheckSegPtr("ScatterAddRows", segPtr, h.Value.Rows)
	out := t.Node(len(segPtr)-1, h.Value.Cols, h)
	tensor.ScatterAddRows(&out.Value, &h.Value, segPtr, false)
	if out.requiresGrad {
		p := OpOf[scatterAddRowsOp[T]](out)
		p.h, p.segPtr = h, segPtr
	}
	return out
}

// segSoftmaxOp is the record of a softmax within segments.
type segSoftmaxOp[T Float] struct {
	scores *Var[T]
	segPtr []int32
}

// Backward implements Op: ∂s_e += y_e·(∂y_e − Σ_{e' in seg} y_e'·∂y_e').
func (p *segSoftmaxOp[T]) Backward(out *Var[T]) {
	if p.scores.requiresGrad {
		tensor.SegmentSoftmaxBackward(p.scores.Grad.Data, out.Value.Data, out.Grad.Data, p.segPtr, true)
	}
}

// SegmentSoftmax records the softmax of a column vector of scores (E×1, one
// per arc of a CSR-by-target graph) within each segment
// [segPtr[s], segPtr[s+1]) — the attention coefficients over the in-arcs of
// each node. Empty segments are allowed. segPtr must run from 0 to E and not
// change until Backward has run.
func SegmentSoftmax[T Float](t *Tape[T], scores *Var[T], segPtr []int32) *Var[T] {
	if scores.Value.Cols != 1 {
		panic(fmt.Sprintf("autodiff: SegmentSoftmax needs an E×1 column of scores, got %d×%d", scores.Value.Rows, scores.Value.Cols))
	}
	mgCheckSegPtr("SegmentSoftmax", segPtr, scores.Value.Rows)
	out := t.Node(scores.Value.Rows, 1, scores)
	tensor.SegmentSoftmax(out.Value.Data, scores.Value.Data, segPtr)
	if out.requiresGrad {
		p := OpOf[segSoftmaxOp[T]](out)
		p.scores, p.segPtr = scores, segPtr
	}
	return out
}

// mgCheckSegPtr panics unless segPtr is a non-decreasing pointer from 0 to
// items: a malformed pointer is a programming error in the caller (loaders
// validate graphs), and catching it here names the op.
func mgCheckSegPtr(op string, segPtr []int32, items int) {
	if len(segPtr) == 0 || segPtr[0] != 0 || int(segPtr[len(segPtr)-1]) != items {
		panic(fmt.Sprintf("autodiff: %s: segment pointer (length %d) must run from 0 to %d", op, len(segPtr), items))
	}
	for s := 1; s < len(segPtr); s++ {
		if segPtr[s] < segPtr[s-1] {
			panic(fmt.Sprintf("autodiff: %s: segment pointer decreases at %d", op, s))
		}
	}
}

// edgeAggOp is the record of out[v] = Σ_e w_e·h[src_e] with learned edge
// weights.
type edgeAggOp[T Float] struct {
	adj  *tensor.Adjacency[T]
	w, h *Var[T]
	wT   []T // w in Aᵀ's storage order; grown once, reused every pass
}

// Backward implements Op: ∂w_e += ⟨∂out[v], h[src_e]⟩ for each arc
// e = src_e→v, and ∂h += Aᵀ(w)·∂out, row-parallel over the transpose.
func (p *edgeAggOp[T]) Backward(out *Var[T]) {
	a := p.adj.A
	if p.w.requiresGrad {
		// EdgeDot overwrites, so it cannot write into w.Grad directly.
		if cap(p.wT) < a.NNZ() {
			p.wT = make([]T, a.NNZ())
		}
		p.wT = p.wT[:a.NNZ()]
		tensor.EdgeDot(p.wT, a.Indptr, a.Indices, &out.Grad, &p.h.Value)
		tensor.Axpy(1, p.wT, p.w.Grad.Data)
	}
	if p.h.requiresGrad {
		if cap(p.wT) < a.NNZ() {
			p.wT = make([]T, a.NNZ())
		}
		p.wT = p.wT[:a.NNZ()]
		p.adj.TransposeEdgeValues(p.wT, p.w.Value.Data)
		at := p.adj.AT
		tensor.Aggregate(&p.h.Grad, at.Indptr, at.Indices, p.wT, &out.Grad, true)
	}
}

// EdgeAggregate records out[v] = Σ_{e = u→v} w_e·h[u] over the arcs of
// adj.A (CSR by target; its stored values are ignored), with per-arc weights
// w, an E×1 Var in A's storage order — for instance attention coefficients
// from SegmentSoftmax(scores, adj.A.Indptr). It is GraphAggregate with
// learned weights, fused so that no E×C intermediate is formed. It panics on
// shape mismatches.
func EdgeAggregate[T Float](t *Tape[T], adj *tensor.Adjacency[T], w, h *Var[T]) *Var[T] {
	a := adj.A
	if w.Value.Cols != 1 || w.Value.Rows != a.NNZ() || a.Cols != h.Value.Rows {
		panic(fmt.Sprintf("autodiff: EdgeAggregate over %d arcs (%d×%d operator) with weights %d×%d and features %d×%d",
			a.NNZ(), a.Rows, a.Cols, w.Value.Rows, w.Value.Cols, h.Value.Rows, h.Value.Cols))
	}
	out := t.Node(a.Rows, h.Value.Cols, w, h)
	tensor.Aggregate(&out.Value, a.Indptr, a.Indices, w.Value.Data, &h.Value, false)
	if out.requiresGrad {
		p := OpOf[edgeAggOp[T]](out)
		p.adj, p.w, p.h = adj, w, h
	}
	return out
}
