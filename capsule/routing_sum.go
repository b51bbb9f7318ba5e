package capsule

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

type linkSumOp[T autodiff.Float] struct {
	w, x, out *autodiff.Var[T]
	tape      *autodiff.Tape[T]
	// gamma and c replace w in the gated form (linkSumGated): w = γ⊙c and
	// its gradient are then formed in the tape's scratch, within each call
	// (the product is recomputed for Backward, with the same roundings).
	gamma, c *autodiff.Var[T]
	wv, gw   []T // w's values and gradient: w's own, or tape scratch
	ix       *linkIndex
	pairs    *pairIndex
	k, d     int
	bwdP     func(lo, hi int)
	xv, gxv  tensor.Dense[T] // x and ∂x seen as (C·K)×d
}

// linkSum records S_j = Σ_{e=(i→j)} Σ_k w_ek·x_{i,k} for every parent j: the
// weighted tangent aggregation of Eq. (adaptive_aggregation) with
// w_ek = c_ij·γ_ijk. w is E×K, x is C×(K·d); the result is P×d (a parent
// with no links gets 0).
func linkSum[T autodiff.Float](t *autodiff.Tape[T], ix *linkIndex, w, x *autodiff.Var[T], d int) *autodiff.Var[T] {
	l := ix.links
	k := w.Value.Cols
	checkRows("linkSum", "w", w, l.NumLinks(), k)
	checkRows("linkSum", "x", x, l.Children, k*d)
	out := t.Node(l.Parents, d, w, x)
	p := linkSumRecord(t, out, ix, x, k, d)
	p.w, p.gamma, p.c = w, nil, nil
	p.wv = w.Value.Data
	p.forward()
	return out
}

// linkSumGated is linkSum of w = γ⊙c, w_ek = γ_ek·c_e, with γ E×K (ACR's
// gates) and c E×1 (the coupling coefficients), without recording the
// product: one op instead of autodiff.Mul and linkSum, which saves the
// product's pass over E×K values and its tape node in each direction.
// Values and gradients are those of the two ops, bit for bit.
func linkSumGated[T autodiff.Float](t *autodiff.Tape[T], ix *linkIndex, gamma, c, x *autodiff.Var[T], d int) *autodiff.Var[T] {
	l := ix.links
	E, k := l.NumLinks(), gamma.Value.Cols
	checkRows("linkSumGated", "gamma", gamma, E, k)
	checkRows("linkSumGated", "c", c, E, 1)
	checkRows("linkSumGated", "x", x, l.Children, k*d)
	out := t.Node(l.Parents, d, gamma, c, x)
	p := linkSumRecord(t, out, ix, x, k, d)
	p.w, p.gamma, p.c = nil, gamma, c
	p.gatedProduct()
	p.forward()
	p.wv = nil
	return out
}

// gatedProduct forms w = γ⊙c in tape scratch slot 0 (p.wv), as
// autodiff.Mul would, for one call of the gated form.
func (p *linkSumOp[T]) gatedProduct() {
	k := p.k
	gv, cv := p.gamma.Value.Data, p.c.Value.Data
	p.wv = p.tape.Scratch(0, len(cv)*k)
	tensor.ScaleGroups(p.wv, gv, cv, k, false) // autodiff.Mul's products
}

// linkSumRecord returns out's linkSum record, set up for x.
func linkSumRecord[T autodiff.Float](t *autodiff.Tape[T], out *autodiff.Var[T], ix *linkIndex, x *autodiff.Var[T], k, d int) *linkSumOp[T] {
	p := autodiff.OpOf[linkSumOp[T]](out)
	if p.bwdP == nil {
		p.bwdP = p.backwardParents
	}
	p.x, p.out, p.tape, p.ix, p.k, p.d = x, out, t, ix, k, d
	p.pairs = ix.pairsFor(k, directPairs[T](k, d))
	p.xv = pairRows(x.Value.Data, ix.links.Children*k, d)
	return p
}

func (p *linkSumOp[T]) forward() {
	pairSum(p.ix, p.pairs, p.k, &p.out.Value, p.wv, &p.xv)
}

// directPairs reports whether the by-parent pair sums of K perspectives of
// d-wide rows read the links themselves (pairIndex).
func directPairs[T autodiff.Float](K, d int) bool {
	return K > 1 && tensor.LinkKernels[T](K, d, true)
}

// pairSum sets dst (P×d) to Σ_e Σ_k w_ek·xv[Child[e]·K+k] for every parent:
// tensor.Aggregate over the pair layout, or over the links themselves.
func pairSum[T autodiff.Float](ix *linkIndex, pi *pairIndex, K int, dst *tensor.Dense[T], w []T, xv *tensor.Dense[T]) {
	if pi.direct {
		l := ix.links
		tensor.AggregateLinks(dst, l.Ptr[:l.Parents+1], l.Child[:l.NumLinks()], K, w, xv, false)
		return
	}
	tensor.Aggregate(dst, pi.ptr, pi.child, w, xv, false)
}

// pairDots sets (or with acc adds to) dst[e·K+k] the dot product of row j
// of q with xv[Child[e]·K+k] for the links e of parents [lo, hi):
// tensor.GatherDotSegments over the pair layout, or over the links
// themselves.
func pairDots[T autodiff.Float](ix *linkIndex, pi *pairIndex, K int, dst, q []T, xv *tensor.Dense[T], lo, hi int, acc bool) {
	if pi.direct {
		l := ix.links
		tensor.GatherDotLinks(dst, q, xv, l.Ptr[:l.Parents+1], l.Child[:l.NumLinks()], K, lo, hi, acc)
		return
	}
	tensor.GatherDotSegments(dst, q, xv, pi.ptr, pi.child, lo, hi, acc)
}

// pairRows is the C×(K·d) row-major data x seen as the (C·K)×d matrix
// whose row i·K+k is x_{i,k}.
func pairRows[T autodiff.Float](x []T, rows, d int) tensor.Dense[T] {
	return tensor.Dense[T]{Rows: rows, Cols: d, Data: x}
}

// backwardParents: ∂w_ek += G_j·x_{i,k}, one gathered dot per pair.
func (p *linkSumOp[T]) backwardParents(lo, hi int) {
	pairDots(p.ix, p.pairs, p.k, p.gw, p.out.Grad.Data, &p.xv, lo, hi, true)
}

// Backward implements autodiff.Op: ∂w_ek += G_j·x_{i,k} by parents, and
// ∂x_{i,k} += Σ_{e of i} w_ek·G_j by child rows. The gated form then passes
// ∂w on as autodiff.Mul's backward pass would: ∂γ_ek += ∂w_ek·c_e, then
// ∂c_e += Σ_k ∂w_ek·γ_ek (summed in float64).
func (p *linkSumOp[T]) Backward(out *autodiff.Var[T]) {
	gated := p.gamma != nil
	if gated {
		p.gatedProduct() // slot 0
	} else {
		p.wv = p.w.Value.Data
	}
	needW := (gated && autodiff.Any(p.gamma, p.c)) || (!gated && p.w.RequiresGrad())
	if needW {
		if gated {
			p.gw = p.tape.Scratch(1, len(p.wv))
			clear(p.gw) // a tape node's zero gradient, as the product's would be
		} else {
			p.gw = p.w.Grad.Data
		}
		tensor.ParallelFor(p.ix.links.Parents, linkCost(p.ix, 2*p.k*p.d), p.bwdP)
		if gated {
			p.backwardGates()
		}
	}
	if p.x.RequiresGrad() {
		// w read through the child grouping.
		p.gxv = pairRows(p.x.Grad.Data, p.ix.links.Children*p.k, p.d)
		tensor.AggregateGroupedLinked(&p.gxv, &p.pairs.groups, p.wv, &p.out.Grad, true)
	}
	p.wv, p.gw = nil, nil
}

// backwardGates passes the gated form's ∂w on to γ and c, in one pass over
// the links.
func (p *linkSumOp[T]) backwardGates() {
	k := p.k
	gv, cv := p.gamma.Value.Data, p.c.Value.Data
	var gg, gc []T
	if p.gamma.RequiresGrad() {
		gg = p.gamma.Grad.Data
	}
	if p.c.RequiresGrad() {
		gc = p.c.Grad.Data
	}
	if gg != nil {
		tensor.ScaleGroups(gg, p.gw, cv, k, true) // ∂γ_ek += ∂w_ek·c_e
	}
	if gc == nil {
		return
	}
	for e := range cv {
		dw, g := p.gw[e*k:(e+1)*k], gv[e*k:(e+1)*k]
		s := 0.0
		for q, v := range dw[:len(g)] {
			s += float64(v) * float64(g[q])
		}
		gc[e] += T(s)
	}
}
