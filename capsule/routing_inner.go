package capsule

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

type linkInnerOp[T autodiff.Float] struct {
	x, z, out *autodiff.Var[T]
	tape      *autodiff.Tape[T]
	ix        *linkIndex
	pairs     *pairIndex
	k, d, neg int
	fwd       func(lo, hi int)
	xv, gxv   tensor.Dense[T] // x and ∂x seen as (C·K)×d
	zs        tensor.Dense[T] // P×d: s⊙z
	tmp       tensor.Dense[T] // Backward (tape scratch): Σ_e Σ_k G_ek·x_{i,k} per parent
}

// linkInner records h_{e,k} = g(z_j, x_{i,k}) = −Σ_{c<neg} z_j[c]·x_{i,k}[c]
// + Σ_{c≥neg} z_j[c]·x_{i,k}[c] for every link e = (i→j) and block k: x is
// C×(K·d) (the K perspective predictions ξ_{i,k} of each child side by
// side), z is P×d, the result E×K. With neg = t this is the tangent
// pseudo-metric of the routing context h_ij of Eq. (routing_consistency) and
// of the agreement of Algorithm 1.
func linkInner[T autodiff.Float](t *autodiff.Tape[T], ix *linkIndex, x, z *autodiff.Var[T], k, neg int) *autodiff.Var[T] {
	l := ix.links
	d := z.Value.Cols
	checkRows("linkInner", "x", x, l.Children, k*d)
	checkRows("linkInner", "z", z, l.Parents, d)
	out := t.Node(l.NumLinks(), k, x, z)
	p := autodiff.OpOf[linkInnerOp[T]](out)
	if p.fwd == nil {
		p.fwd = p.forwardParents
	}
	p.x, p.z, p.out, p.tape, p.ix, p.k, p.d, p.neg = x, z, out, t, ix, k, d, neg
	p.pairs = ix.pairsFor(k, directPairs[T](k, d))
	p.xv = pairRows(x.Value.Data, l.Children*k, d)
	p.zs.Reshape(l.Parents, d)
	copy(p.zs.Data, z.Value.Data)
	signRows(p.zs.Data, d, neg)
	tensor.ParallelFor(l.Parents, linkCost(ix, 2*k*d), p.fwd)
	return out
}

// forwardParents: h_{e,k} = (s⊙z_j)·x_{i,k}, one gathered dot per pair.
func (p *linkInnerOp[T]) forwardParents(lo, hi int) {
	pairDots(p.ix, p.pairs, p.k, p.out.Value.Data, p.zs.Data, &p.xv, lo, hi, false)
}

// Backward implements autodiff.Op: ∂z_j[c] += s_c·Σ_e Σ_k G_ek·x_{i,k}[c]
// by parents and ∂x_{i,k}[c] += s_c·Σ_{e of i} G_ek·z_j[c] by child rows,
// with s_c = −1 for c < neg and +1 otherwise.
func (p *linkInnerOp[T]) Backward(out *autodiff.Var[T]) {
	l := p.ix.links
	K, d := p.k, p.d
	if p.z.RequiresGrad() {
		p.tmp = tensor.Dense[T]{Rows: l.Parents, Cols: d, Data: p.tape.Scratch(0, l.Parents*d)}
		pairSum(p.ix, p.pairs, K, &p.tmp, p.out.Grad.Data, &p.xv)
		signRows(p.tmp.Data, d, p.neg)
		tensor.VecAdd(p.z.Grad.Data, p.z.Grad.Data, p.tmp.Data)
		p.tmp.Data = nil
	}
	if p.x.RequiresGrad() {
		p.gxv = pairRows(p.x.Grad.Data, l.Children*K, d)
		tensor.AggregateGroupedLinked(&p.gxv, &p.pairs.groups, p.out.Grad.Data, &p.zs, true) // G read through the child grouping
	}
}

// signRows negates the first neg columns of every d-wide row of x: s⊙x
// for the tangent pseudo-metric's signs.
func signRows[T autodiff.Float](x []T, d, neg int) {
	for r := 0; r+d <= len(x); r += d {
		row := x[r : r+neg]
		for c := range row {
			row[c] = -row[c]
		}
	}
}
