package autodiff

import (
	"fmt"

	"github.com/prcaps/prcaps/tensor"
)

// spmmOp is the record of out = x·w for a constant sparse x.
type spmmOp[T Float] struct {
	x *tensor.CSR[T]
	w *Var[T]
}

// Backward implements Op: ∂w += xᵀ·∂out (tensor.SpMMT). x is a constant
// (input features), so no gradient flows into it.
func (p *spmmOp[T]) Backward(out *Var[T]) {
	if p.w.requiresGrad {
		tensor.SpMMT(&p.w.Grad, p.x, &out.Grad, true)
	}
}

// SpMM records out = x·w, a constant sparse matrix (typically the input
// features, possibly after tensor.DropoutCSR) times a dense Var. x must keep
// its values until Backward has run. It panics if x.Cols differs from w's
// row count.
func SpMM[T Float](t *Tape[T], x *tensor.CSR[T], w *Var[T]) *Var[T] {
	if x.Cols != w.Value.Rows {
		panic(fmt.Sprintf("autodiff: SpMM of a sparse %d×%d by %d×%d", x.Rows, x.Cols, w.Value.Rows, w.Value.Cols))
	}
	out := t.Node(x.Rows, w.Value.Cols, w)
	tensor.SpMM(&out.Value, x, &w.Value, false)
	if out.requiresGrad {
		p := OpOf[spmmOp[T]](out)
		p.x, p.w = x, w
	}
	return out
}

// spmmAdjOp is the record of out = x.A·w with a kept transpose.
type spmmAdjOp[T Float] struct {
	x *tensor.Adjacency[T]
	w *Var[T]
}

// Backward implements Op: ∂w += x.Aᵀ·∂out (transposedGrad).
func (p *spmmAdjOp[T]) Backward(out *Var[T]) {
	if p.w.requiresGrad {
		transposedGrad(&p.w.Grad, p.x, &out.Grad)
	}
}

// transposedGrad adds x.Aᵀ·g to dst: with x.AT when x keeps its transpose
// (row-parallel, each row of dst accumulated in cache, no reduction of
// per-goroutine copies as tensor.SpMMT needs), else from x.A's rows by
// tensor.TransposedSpMM, with the same bits.
func transposedGrad[T Float](dst *tensor.Dense[T], x *tensor.Adjacency[T], g *tensor.Dense[T]) {
	if x.AT == nil {
		tensor.TransposedSpMM(dst, x.A, g, true)
		return
	}
	tensor.SpMM(dst, x.AT, g, true)
}

// SpMMTransposed is SpMM for a sparse input prepared for its backward
// pass: out = x.A·w, and the backward pass adds x.Aᵀ·∂out to ∂w with the
// kept transpose x.AT, or, when x.AT is nil, from x.A's rows
// (tensor.TransposedSpMM; the same bits, no transpose in memory). With a
// kept transpose (tensor.NewAdjacency), when x.A's values change in place
// (for instance tensor.DropoutCSR writing into x.A from the clean
// features, which keeps the structure), call x.SyncValues before the
// backward pass. nn.SparseInput prepares features either way.
func SpMMTransposed[T Float](t *Tape[T], x *tensor.Adjacency[T], w *Var[T]) *Var[T] {
	a := x.A
	if a.Cols != w.Value.Rows {
		panic(fmt.Sprintf("autodiff: SpMMTransposed of a sparse %d×%d by %d×%d", a.Rows, a.Cols, w.Value.Rows, w.Value.Cols))
	}
	out := t.Node(a.Rows, w.Value.Cols, w)
	tensor.SpMM(&out.Value, a, &w.Value, false)
	if out.requiresGrad {
		p := OpOf[spmmAdjOp[T]](out)
		p.x, p.w = x, w
	}
	return out
}
