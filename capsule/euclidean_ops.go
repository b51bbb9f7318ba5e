package capsule

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// eucIndex is the derived structure of a Links that Euclidean routing needs
// besides the parent-major CSR: the parent of every link, and the links
// grouped by child, so that gradients into child rows accumulate in parallel
// over children without atomics, and couplings can be normalised over the
// parents of each child.
type eucIndex struct {
	links *Links
	gen   uint64 // links.gen when built
	// parent[e] is the parent of link e.
	parent []int32
	// The links of child i are childLink[childPtr[i]:childPtr[i+1]], in
	// increasing order; inv[e] is the position of link e there.
	childPtr, childLink, inv []int32
}

// build fills x from l (the slices must have the right lengths).
func (x *eucIndex) build(l *Links) {
	x.links, x.gen = l, l.gen
	for j := 0; j < l.Parents; j++ {
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			x.parent[e] = int32(j)
		}
	}
	clear(x.childPtr)
	for _, i := range l.Child {
		x.childPtr[i+1]++
	}
	for i := 0; i < l.Children; i++ {
		x.childPtr[i+1] += x.childPtr[i]
	}
	// Counting sort, stable: each child's links stay in parent order. The
	// pointer is advanced while filling and shifted back afterwards.
	for e, i := range l.Child {
		pos := x.childPtr[i]
		x.childLink[pos], x.inv[e] = int32(e), pos
		x.childPtr[i]++
	}
	for i := l.Children; i > 0; i-- {
		x.childPtr[i] = x.childPtr[i-1]
	}
	x.childPtr[0] = 0
}

// eucCost is the ParallelFor cost of a pass over n rows that together touch
// every link once with work w per link.
func eucCost(x *eucIndex, n, w int) int {
	return (x.links.NumLinks()*w)/max(n, 1) + w
}

func eucDot[T autodiff.Float](a, b []T) T {
	var s T
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func eucAxpy[T autodiff.Float](alpha T, x, y []T) {
	for i, v := range x {
		y[i] += alpha * v
	}
}

// ---------------------------------------------------------------- link sum

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

// ---------------------------------------------------------------- link dot

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
