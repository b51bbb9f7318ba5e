package capsule

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// eucLinkDotOp is the record of a_e = ⟨v_j, û_i⟩ for every link e = (i→j).
type eucLinkDotOp[T autodiff.Float] struct {
	v, uh, out *autodiff.Var[T]
	ix         *eucIndex
	fwd        func(lo, hi int)
	bwdP, bwdC func(lo, hi int)
}

// eucLinkDot records the agreement of paper Eq.
// caps_agreement_update_euclidean, a_ij = v_j·û_i, for every link (E×1, link
// order), from the parents v (Parents×d) and the predictions û
// (Children×d).
func eucLinkDot[T autodiff.Float](t *autodiff.Tape[T], ix *eucIndex, v, uh *autodiff.Var[T]) *autodiff.Var[T] {
	l := ix.links
	d := uh.Value.Cols
	out := t.Node(l.NumLinks(), 1, v, uh)
	p := autodiff.OpOf[eucLinkDotOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwdP, p.bwdC = p.forwardParents, p.backwardParents, p.backwardChildren
	}
	p.v, p.uh, p.out, p.ix = v, uh, out, ix
	tensor.ParallelFor(l.Parents, eucCost(ix, l.Parents, 2*d), p.fwd)
	return out
}

func (p *eucLinkDotOp[T]) forwardParents(lo, hi int) {
	l, d := p.ix.links, p.uh.Value.Cols
	for j := lo; j < hi; j++ {
		vj := p.v.Value.Data[j*d : (j+1)*d]
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			i := int(l.Child[e])
			p.out.Value.Data[e] = eucDot(vj, p.uh.Value.Data[i*d:(i+1)*d])
		}
	}
}

// backwardParents: ∂v_j += Σ_{e of j} ∂a_e·û_i.
func (p *eucLinkDotOp[T]) backwardParents(lo, hi int) {
	l, d := p.ix.links, p.uh.Value.Cols
	for j := lo; j < hi; j++ {
		gv := p.v.Grad.Data[j*d : (j+1)*d]
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			i := int(l.Child[e])
			eucAxpy(p.out.Grad.Data[e], p.uh.Value.Data[i*d:(i+1)*d], gv)
		}
	}
}

// backwardChildren: ∂û_i += Σ_{e of i} ∂a_e·v_{parent(e)}.
func (p *eucLinkDotOp[T]) backwardChildren(lo, hi int) {
	x, d := p.ix, p.uh.Value.Cols
	for i := lo; i < hi; i++ {
		gu := p.uh.Grad.Data[i*d : (i+1)*d]
		for q := x.childPtr[i]; q < x.childPtr[i+1]; q++ {
			e := x.childLink[q]
			j := int(x.parent[e])
			eucAxpy(p.out.Grad.Data[e], p.v.Value.Data[j*d:(j+1)*d], gu)
		}
	}
}

// Backward implements autodiff.Op.
func (p *eucLinkDotOp[T]) Backward(out *autodiff.Var[T]) {
	l, d := p.ix.links, p.uh.Value.Cols
	if p.v.RequiresGrad() {
		tensor.ParallelFor(l.Parents, eucCost(p.ix, l.Parents, 2*d), p.bwdP)
	}
	if p.uh.RequiresGrad() {
		tensor.ParallelFor(l.Children, eucCost(p.ix, l.Children, 2*d), p.bwdC)
	}
}
