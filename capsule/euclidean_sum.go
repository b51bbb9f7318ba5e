package capsule

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// eucLinkSumOp is the record of s_j = Σ_{e=(i→j)} c_e·û_i.
type eucLinkSumOp[T autodiff.Float] struct {
	c, uh, out *autodiff.Var[T]
	ix         *eucIndex
	fwd        func(lo, hi int)
	bwdP, bwdC func(lo, hi int)
}

// eucLinkSum records the weighted aggregation of paper Eq.
// caps_weighted_sum_euclidean, s_j = Σ_i c_ij û_i, with the couplings c as
// an E×1 Var in link order and the predictions û (Children×d) indexed by
// each link's child — no E×d intermediate is formed. The result is
// Parents×d (0 for a parent without links).
func eucLinkSum[T autodiff.Float](t *autodiff.Tape[T], ix *eucIndex, c, uh *autodiff.Var[T]) *autodiff.Var[T] {
	l := ix.links
	d := uh.Value.Cols
	out := t.Node(l.Parents, d, c, uh)
	p := autodiff.OpOf[eucLinkSumOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwdP, p.bwdC = p.forwardParents, p.backwardParents, p.backwardChildren
	}
	p.c, p.uh, p.out, p.ix = c, uh, out, ix
	tensor.ParallelFor(l.Parents, eucCost(ix, l.Parents, 2*d), p.fwd)
	return out
}

func (p *eucLinkSumOp[T]) forwardParents(lo, hi int) {
	l, d := p.ix.links, p.uh.Value.Cols
	for j := lo; j < hi; j++ {
		s := p.out.Value.Data[j*d : (j+1)*d]
		clear(s)
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			i := int(l.Child[e])
			eucAxpy(p.c.Value.Data[e], p.uh.Value.Data[i*d:(i+1)*d], s)
		}
	}
}

// backwardParents: ∂c_e += ⟨∂s_j, û_i⟩.
func (p *eucLinkSumOp[T]) backwardParents(lo, hi int) {
	l, d := p.ix.links, p.uh.Value.Cols
	for j := lo; j < hi; j++ {
		g := p.out.Grad.Data[j*d : (j+1)*d]
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			i := int(l.Child[e])
			p.c.Grad.Data[e] += eucDot(g, p.uh.Value.Data[i*d:(i+1)*d])
		}
	}
}

// backwardChildren: ∂û_i += Σ_{e of i} c_e·∂s_{parent(e)}.
func (p *eucLinkSumOp[T]) backwardChildren(lo, hi int) {
	x, d := p.ix, p.uh.Value.Cols
	for i := lo; i < hi; i++ {
		gu := p.uh.Grad.Data[i*d : (i+1)*d]
		for q := x.childPtr[i]; q < x.childPtr[i+1]; q++ {
			e := x.childLink[q]
			j := int(x.parent[e])
			eucAxpy(p.c.Value.Data[e], p.out.Grad.Data[j*d:(j+1)*d], gu)
		}
	}
}

// Backward implements autodiff.Op.
func (p *eucLinkSumOp[T]) Backward(out *autodiff.Var[T]) {
	l, d := p.ix.links, p.uh.Value.Cols
	if p.c.RequiresGrad() {
		tensor.ParallelFor(l.Parents, eucCost(p.ix, l.Parents, 2*d), p.bwdP)
	}
	if p.uh.RequiresGrad() {
		tensor.ParallelFor(l.Children, eucCost(p.ix, l.Children, 2*d), p.bwdC)
	}
}
