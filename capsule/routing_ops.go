package capsule

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Per-link ops of the capsule routing layer (DESIGN §5). Each works on the
// links of a Links (CSR by parent): per-child quantities are rows of a
// C×… matrix (C = Links.Children), per-parent ones rows of a P×… matrix,
// per-link ones rows of an E×… matrix in the Links' storage order. Forward
// passes and parent-side gradients run in parallel over parents; child-side
// gradients run in parallel over children through the child-major grouping
// of linkIndex, so no two goroutines write the same row.

// linkCost estimates the work per parent (or child) for tensor.ParallelFor.
func linkCost(ix *linkIndex, perLink int) int {
	P := max(ix.links.Parents, 1)
	return (ix.links.NumLinks()/P + 1) * perLink
}

func checkRows[T autodiff.Float](op, name string, v *autodiff.Var[T], rows, cols int) {
	if v.Value.Rows != rows || v.Value.Cols != cols {
		panic(fmt.Sprintf("capsule: %s: %s is %d×%d, want %d×%d", op, name, v.Value.Rows, v.Value.Cols, rows, cols))
	}
}

// ---------------------------------------------------------------- linkCos

// CosEps is the ε of the guarded norms √(‖x‖²+ε) in the cosine of Eq.
// (local_curvature): it makes κ̂ = 0 (with a finite gradient) when either
// vector is 0 and changes nothing measurable otherwise.
const CosEps = 1e-8

type linkCosOp[T autodiff.Float] struct {
	a, z, out *autodiff.Var[T]
	tape      *autodiff.Tape[T]
	ix        *linkIndex
	na, nz    []float64
	// dot is ⟨a_i, z_j⟩ per link, kept for Backward, which recomputes
	// κ̂_e = dot_e/(n_a n_z) from it with the forward pass's roundings (half
	// the memory of keeping κ̂ in float64).
	dot                    []T
	wp, wc                 []T // E, Backward (tape scratch): G_e/(n_a n_z) by parent, by child
	fwdC, fwdP, bwdP, bwdC func(lo, hi int)
	bwdPVec, bwdCVec       func(lo, hi int) // the backward loops on AVX-512
}

// linkCos records κ̂_e = ⟨a_i, z_j⟩ / (√(‖a_i‖²+ε)·√(‖z_j‖²+ε)) for every
// link e = (i→j), ε = CosEps: the Euclidean cosine of Eq. (local_curvature).
// a is C×d, z is P×d; the result is E×1.
func linkCos[T autodiff.Float](t *autodiff.Tape[T], ix *linkIndex, a, z *autodiff.Var[T]) *autodiff.Var[T] {
	l := ix.links
	d := a.Value.Cols
	checkRows("linkCos", "a", a, l.Children, d)
	checkRows("linkCos", "z", z, l.Parents, d)
	E := l.NumLinks()
	out := t.Node(E, 1, a, z)
	p := autodiff.OpOf[linkCosOp[T]](out)
	if p.fwdC == nil {
		p.fwdC, p.fwdP, p.bwdP, p.bwdC = p.forwardChildren, p.forwardParents, p.backwardParents, p.backwardChildren
		p.bwdPVec, p.bwdCVec = p.backwardParentsVec, p.backwardChildrenVec
	}
	p.a, p.z, p.out, p.tape, p.ix = a, z, out, t, ix
	p.na = grow(p.na, l.Children)
	p.nz = grow(p.nz, l.Parents)
	p.dot = grow(p.dot, E)
	tensor.ParallelFor(l.Children, 2*d, p.fwdC)
	tensor.ParallelFor(l.Parents, linkCost(ix, 2*d), p.fwdP)
	return out
}

func rowSq[T autodiff.Float](x []T) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return s
}

func (p *linkCosOp[T]) forwardChildren(lo, hi int) {
	d := p.a.Value.Cols
	for i := lo; i < hi; i++ {
		p.na[i] = math.Sqrt(rowSq(p.a.Value.Data[i*d:(i+1)*d]) + CosEps)
	}
}

func (p *linkCosOp[T]) forwardParents(lo, hi int) {
	l := p.ix.links
	d := p.a.Value.Cols
	for j := lo; j < hi; j++ {
		zj := p.z.Value.Data[j*d : (j+1)*d]
		nz := math.Sqrt(rowSq(zj) + CosEps)
		p.nz[j] = nz
		e0, e1 := l.Ptr[j], l.Ptr[j+1]
		tensor.GatherDot(p.dot[e0:e1], zj, &p.a.Value, l.Child[e0:e1], false)
		for e := e0; e < e1; e++ {
			p.out.Value.Data[e] = T(float64(p.dot[e]) / (p.na[l.Child[e]] * nz))
		}
	}
}

// backwardParents: ∂z_j += Σ_e G_e·(a_i/(n_a n_z) − κ̂_e·z_j/n_z²), the
// first sum an aggregation of the a_i with the weights wp.
func (p *linkCosOp[T]) backwardParents(lo, hi int) {
	l := p.ix.links
	d := p.a.Value.Cols
	g := p.out.Grad.Data
	for j := lo; j < hi; j++ {
		nz := p.nz[j]
		self := 0.0
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			ge, den := float64(g[e]), p.na[l.Child[e]]*nz
			p.wp[e] = T(ge / den)
			self += ge * (float64(p.dot[e]) / den) // κ̂_e
		}
		c := -self / (nz * nz)
		gz := p.z.Grad.Data[j*d : (j+1)*d]
		for m, v := range p.z.Value.Data[j*d : (j+1)*d] {
			gz[m] += T(c * float64(v))
		}
	}
}

// backwardChildren: ∂a_i += Σ_e G_e·(z_j/(n_a n_z) − κ̂_e·a_i/n_a²), the
// first sum an aggregation of the z_j with the weights wc (child order).
func (p *linkCosOp[T]) backwardChildren(lo, hi int) {
	ix := p.ix
	d := p.a.Value.Cols
	g := p.out.Grad.Data
	for i := lo; i < hi; i++ {
		na := p.na[i]
		self := 0.0
		for q := ix.childPtr[i]; q < ix.childPtr[i+1]; q++ {
			e := ix.childLink[q]
			ge, den := float64(g[e]), na*p.nz[ix.childParent[q]]
			p.wc[q] = T(ge / den)
			self += ge * (float64(p.dot[e]) / den) // κ̂_e
		}
		c := -self / (na * na)
		ga := p.a.Grad.Data[i*d : (i+1)*d]
		for m, v := range p.a.Value.Data[i*d : (i+1)*d] {
			ga[m] += T(c * float64(v))
		}
	}
}

// Backward implements autodiff.Op.
func (p *linkCosOp[T]) Backward(out *autodiff.Var[T]) {
	ix := p.ix
	E := ix.links.NumLinks()
	bwdP, bwdC := p.bwdP, p.bwdC
	if E > 0 && cosBackVec[T](p.a.Value.Cols) {
		bwdP, bwdC = p.bwdPVec, p.bwdCVec
	}
	if p.z.RequiresGrad() {
		p.wp = p.tape.Scratch(0, E)
		tensor.ParallelFor(ix.links.Parents, linkCost(ix, 8), bwdP)
		tensor.Aggregate(&p.z.Grad, ix.links.Ptr, ix.links.Child, p.wp, &p.a.Value, true)
	}
	if p.a.RequiresGrad() {
		p.wc = p.tape.Scratch(0, E)
		tensor.ParallelFor(ix.links.Children, linkCost(ix, 8), bwdC)
		tensor.Aggregate(&p.a.Grad, ix.childPtr, ix.childParent, p.wc, &p.z.Value, true)
	}
	p.wp, p.wc = nil, nil
}

// backwardParentsVec is backwardParents on AVX2 or AVX-512 (float32 only).
func (p *linkCosOp[T]) backwardParentsVec(lo, hi int) {
	l := p.ix.links
	a := cosArgs(p, l.Ptr, nil, l.Child, p.nz, p.na, p.wp, p.z, lo, hi)
	cosBack(&a)
}

// backwardChildrenVec is backwardChildren on AVX2 or AVX-512 (float32 only).
func (p *linkCosOp[T]) backwardChildrenVec(lo, hi int) {
	ix := p.ix
	a := cosArgs(p, ix.childPtr, ix.childLink, ix.childParent, p.na, p.nz, p.wc, p.a, lo, hi)
	cosBack(&a)
}

// cosArgs fills cosBack's operands for segments [lo, hi) of ptr,
// whose own rows are those of v (the op has links: E > 0).
func cosArgs[T autodiff.Float](p *linkCosOp[T], ptr, link, other []int32, own, partner []float64, w []T, v *autodiff.Var[T], lo, hi int) cosBackArgs {
	d := v.Value.Cols
	a := cosBackArgs{
		ptr: &ptr[0], other: &other[0],
		g: &any(p.out.Grad.Data).([]float32)[0], dot: &any(p.dot).([]float32)[0],
		own: &own[0], partner: &partner[0],
		w: &any(w).([]float32)[0], val: &any(v.Value.Data).([]float32)[0], grad: &any(v.Grad.Data).([]float32)[0],
		d: d, lo: lo, hi: hi,
	}
	if link != nil {
		a.link = &link[0]
	}
	if t := d % 8; t > 0 {
		a.tail = 1<<t - 1
	}
	return a
}

// ---------------------------------------------------------------- linkInner

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

// ---------------------------------------------------------------- linkSum

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

// ---------------------------------------------------------------- linkAgree

type linkAgreeOp[T autodiff.Float] struct {
	b, gamma, h, out *autodiff.Var[T]
}

// linkAgree records b + Σ_k γ_ek·h_ek for every link (E×1 from b E×1, γ and
// h E×K): the logit update b_ij += Σ_k γ_ijk g(loĝ_o(v_j), ξ_{j|i,k}) of
// Algorithm 1 in one op instead of autodiff.Mul, RowSum and Add, which
// saves two tape nodes and their passes over E×K values. Values and
// gradients are those of the three ops, bit for bit: each product is
// rounded to T, the row sum is taken in float64 and rounded to T, then
// added to b. K is at most maxGateK.
//
// b nil stands for b = 0 (the first iteration's logits), without a vector
// of zeros: the result is then 0 + Σ_k γ_ek·h_ek as the addition rounds it
// (−0 becomes +0).
func linkAgree[T autodiff.Float](t *autodiff.Tape[T], b, gamma, h *autodiff.Var[T]) *autodiff.Var[T] {
	E, k := gamma.Value.Rows, gamma.Value.Cols
	if b != nil {
		checkRows("linkAgree", "b", b, E, 1)
	}
	checkRows("linkAgree", "h", h, E, k)
	out := t.Node(E, 1, b, gamma, h)
	p := autodiff.OpOf[linkAgreeOp[T]](out)
	p.b, p.gamma, p.h, p.out = b, gamma, h, out
	gv, hv, o := gamma.Value.Data, h.Value.Data, out.Value.Data
	var bv []T
	if b != nil {
		bv = b.Value.Data[:len(o)]
	}
	for e := range o {
		g, hh := gv[e*k:(e+1)*k], hv[e*k:(e+1)*k]
		s := 0.0
		for q, x := range g {
			s += float64(x * hh[q])
		}
		if bv != nil {
			o[e] = bv[e] + T(s)
			continue
		}
		v := T(s)
		if v == 0 {
			v = 0 // 0 + (−0) is +0
		}
		o[e] = v
	}
	return out
}

// Backward implements autodiff.Op: ∂b_e += G_e, ∂γ_ek += G_e·h_ek, ∂h_ek +=
// G_e·γ_ek. ∂γ goes through tensor.VecMulAdd for K ≥ 8, as autodiff.Mul's
// backward pass does (fused multiply-adds on AVX2), and below 8, as ∂h
// always, through tensor.ScaleGroups: a rounded product, then the sum, as
// Mul's scalar steps.
func (p *linkAgreeOp[T]) Backward(out *autodiff.Var[T]) {
	g := out.Grad.Data
	k := p.gamma.Value.Cols
	if p.b != nil && p.b.RequiresGrad() {
		tensor.VecAdd(p.b.Grad.Data, p.b.Grad.Data, g)
	}
	gv, hv := p.gamma.Value.Data, p.h.Value.Data
	var gg, gh []T
	if p.gamma.RequiresGrad() {
		gg = p.gamma.Grad.Data
	}
	if p.h.RequiresGrad() {
		gh = p.h.Grad.Data
	}
	switch {
	case gg == nil:
	case k >= 8:
		var rep [maxGateK]T
		for e, ge := range g {
			r := rep[:k]
			for q := range r {
				r[q] = ge
			}
			tensor.VecMulAdd(gg[e*k:(e+1)*k], r, hv[e*k:(e+1)*k])
		}
	default:
		tensor.ScaleGroups(gg, hv, g, k, true)
	}
	if gh != nil {
		tensor.ScaleGroups(gh, gv, g, k, true)
	}
}

// ---------------------------------------------------------------- linkAlign

// alignBlock is the parent block of the deterministic reduction of ∂w.
const alignBlock = 128

// alignKeepMax bounds the float32 tanh values (E·K·d_align) that linkAlign
// keeps for its backward pass: 4 MB, enough for a graph micro-batch (a
// 128-node micro-batch of DD has about 800 links, 200 KB) and for Cora and
// CiteSeer full-batch (about 850k and 800k values: each run 4-5% less CPU
// time than with 2 MB, for 7 MB more). Beyond it the backward pass
// recomputes τ, which then costs less than reading it back from memory, and
// keeps memory per link low on large graphs. A variable only so that tests
// can take both paths.
var alignKeepMax = 1 << 20

type linkAlignOp[T autodiff.Float] struct {
	p1, p2, w, out *autodiff.Var[T]
	ix             *linkIndex
	k, m           int
	f32            bool      // T is float32: vector kernels that recompute τ (forwardParents32, backward32)
	keep           bool      // tau holds the E×(K·m) tanh values
	tau, delta     []T       // tanh values; not float32: G_ek·w_km·(1−τ²)
	part           []float64 // per-block partial ∂w
	fuseC          bool      // float32 on one goroutine: the parent pass also adds ∂P1
	fwd, bwdP      func(lo, hi int)
	bwdC           func(lo, hi int) // float32: backwardChildren32
	dv             tensor.Dense[T]  // not float32: δ as an E×(K·m) matrix
}

// linkAlign records A_ek = Σ_m w_km·tanh(P1_i[k,m] + P2_j[k,m]) for every link
// e = (i→j): the feature alignment of Eq. (feature_alignment),
// w_kᵀ tanh(W^align_k [a_i ‖ z_j]), with W^align_k = [W1_k | W2_k] split so
// that P1 = a·W1 is computed per child and P2 = z·W2 per parent. p1 is
// C×(K·m), p2 is P×(K·m) or nil (zero), w is K×m; the result is E×K.
func linkAlign[T autodiff.Float](t *autodiff.Tape[T], ix *linkIndex, p1, p2, w *autodiff.Var[T]) *autodiff.Var[T] {
	l := ix.links
	K, m := w.Value.Rows, w.Value.Cols
	checkRows("linkAlign", "p1", p1, l.Children, K*m)
	if p2 != nil {
		checkRows("linkAlign", "p2", p2, l.Parents, K*m)
	}
	E := l.NumLinks()
	out := t.Node(E, K, p1, p2, w)
	p := autodiff.OpOf[linkAlignOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwdP, p.bwdC = p.forwardParents, p.backwardBlocks, p.backwardChildren32
	}
	p.p1, p.p2, p.w, p.out, p.ix, p.k, p.m = p1, p2, w, out, ix, K, m
	var zero T
	_, p.f32 = any(zero).(float32)
	// float32 keeps τ for the backward pass only while it fits in cache
	// and recomputes it otherwise; float64 always keeps it.
	p.keep = !p.f32 || (out.RequiresGrad() && E*K*m <= alignKeepMax)
	if p.keep {
		if cap(p.tau) < E*K*m {
			p.tau = tensor.Regrow(p.tau, E*K*m)
		}
		p.tau = p.tau[:E*K*m]
	}
	tensor.ParallelFor(l.Parents, linkCost(ix, 24*K*m), p.fwd)
	return out
}

func (p *linkAlignOp[T]) forwardParents(lo, hi int) {
	if p.f32 {
		p.forwardParents32(lo, hi)
		return
	}
	l := p.ix.links
	km := p.k * p.m
	w := p.w.Value.Data
	for j := lo; j < hi; j++ {
		var pj []T
		if p.p2 != nil {
			pj = p.p2.Value.Data[j*km : (j+1)*km]
		}
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			i := int(l.Child[e])
			pi := p.p1.Value.Data[i*km : (i+1)*km]
			tau := p.tau[int(e)*km : int(e+1)*km]
			o := p.out.Value.Data[int(e)*p.k : int(e+1)*p.k]
			for k := range o {
				lo, hi := k*p.m, (k+1)*p.m
				s := 0.0
				for q := lo; q < hi; q++ {
					x := float64(pi[q])
					if pj != nil {
						x += float64(pj[q])
					}
					th := math.Tanh(x)
					tau[q] = T(th)
					s += float64(w[q]) * th
				}
				o[k] = T(s)
			}
		}
	}
}

// forwardParents32 is forwardParents for float32: the tanh and the dot
// products of the K d_align blocks of all the parents' links in one vector
// kernel call (tensor.TanhAddDotLinks).
func (p *linkAlignOp[T]) forwardParents32(lo, hi int) {
	l := p.ix.links
	km := p.k * p.m
	p1 := any(p.p1.Value.Data).([]float32)
	w := any(p.w.Value.Data).([]float32)
	out := any(p.out.Value.Data).([]float32)
	var p2 []float32
	if p.p2 != nil {
		p2 = any(p.p2.Value.Data).([]float32)
	}
	e0, e1 := int(l.Ptr[lo]), int(l.Ptr[hi])
	var tau []float32
	if p.keep {
		tau = any(p.tau).([]float32)[e0*km : e1*km]
	}
	tensor.TanhAddDotLinks(out[e0*p.k:e1*p.k], tau, p1, p2, w, l.Child[e0:e1], p.ix.parent[e0:e1])
}

// backwardBlocks handles parent blocks [lo, hi): δ_e[k,m] = G_ek·w_km·(1−τ²),
// ∂P2_j += Σ_e δ_e, and the block's partial ∂w_km = Σ_e G_ek·τ_ekm.
func (p *linkAlignOp[T]) backwardBlocks(lo, hi int) {
	l := p.ix.links
	K, m := p.k, p.m
	km := K * m
	w := p.w.Value.Data
	gradP2, gradW := p.p2 != nil && p.p2.RequiresGrad(), p.w.RequiresGrad()
	if p.f32 {
		p.backwardBlocks32(lo, hi, gradP2)
		return
	}
	for b := lo; b < hi; b++ {
		part := p.part[b*km : (b+1)*km]
		clear(part)
		for j := b * alignBlock; j < min((b+1)*alignBlock, l.Parents); j++ {
			for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
				tau := p.tau[int(e)*km : int(e+1)*km]
				del := p.delta[int(e)*km : int(e+1)*km]
				g := p.out.Grad.Data[int(e)*K : int(e+1)*K]
				for k, gk := range g {
					ge := float64(gk)
					lo, hi := k*m, (k+1)*m
					tk, dk, wk, pk := tau[lo:hi], del[lo:hi], w[lo:hi], part[lo:hi]
					dk, wk, pk = dk[:len(tk)], wk[:len(tk)], pk[:len(tk)] // bounds hints
					if ge == 0 {
						clear(dk)
						continue
					}
					for q, tv := range tk {
						th := float64(tv)
						dk[q] = T(ge * float64(wk[q]) * (1 - th*th))
						if gradW {
							pk[q] += ge * th
						}
					}
				}
				if gradP2 {
					gp := p.p2.Grad.Data[j*km : (j+1)*km]
					for q, v := range del {
						gp[q] += v
					}
				}
			}
		}
	}
}

// backwardBlocks32 is backwardBlocks for float32: with τ kept, one vector
// kernel call per block of parents (tensor.TanhDotBackLinks), else one per
// link recomputing τ (TanhAddDotBack2), adds δ to ∂P2_j and
// G_ek·τ to the block's ∂w, and, with fuseC, δ to ∂P1_i as well. fuseC
// scatters into the children's rows, so it is only taken on one goroutine
// (all blocks, in order); the links of child i then arrive in increasing
// order, the order of backwardChildren32, so ∂P1 gets the same bits.
func (p *linkAlignOp[T]) backwardBlocks32(lo, hi int, gradP2 bool) {
	l := p.ix.links
	K := p.k
	km := K * p.m
	f := p.f32Views()
	var dw []float64
	for b := lo; b < hi; b++ {
		if p.w.RequiresGrad() {
			dw = p.part[b*km : (b+1)*km]
			clear(dw)
		}
		if f.tau != nil { // all the block's links in one call
			e0, e1 := int(l.Ptr[b*alignBlock]), int(l.Ptr[min((b+1)*alignBlock, l.Parents)])
			var gp, gc []float32
			if gradP2 {
				gp = f.gp2
			}
			if p.fuseC {
				gc = f.gp1
			}
			tensor.TanhDotBackLinks(gp, gc, dw, f.tau[e0*km:e1*km], f.w, f.grad[e0*K:e1*K], l.Child[e0:e1], p.ix.parent[e0:e1])
			continue
		}
		for j := b * alignBlock; j < min((b+1)*alignBlock, l.Parents); j++ {
			var pj, gp []float32
			if f.p2 != nil {
				pj = f.p2[j*km : (j+1)*km]
			}
			if gradP2 {
				gp = f.gp2[j*km : (j+1)*km]
			}
			for e := int(l.Ptr[j]); e < int(l.Ptr[j+1]); e++ {
				i := int(l.Child[e])
				var gc []float32
				if p.fuseC {
					gc = f.gp1[i*km : (i+1)*km]
				}
				if e+prefetchLinks < len(l.Child) { // the child rows of the links ahead
					c := int(l.Child[e+prefetchLinks])
					tensor.Prefetch(f.p1[c*km : (c+1)*km])
					if p.fuseC {
						tensor.Prefetch(f.gp1[c*km : (c+1)*km])
					}
				}
				if f.tau != nil {
					tensor.TanhDotBack(gp, gc, dw, f.tau[e*km:(e+1)*km], f.w, f.grad[e*K:(e+1)*K])
				} else {
					tensor.TanhAddDotBack2(gp, gc, dw, f.p1[i*km:(i+1)*km], pj, f.w, f.grad[e*K:(e+1)*K])
				}
			}
		}
	}
}

// backwardChildren32: ∂P1_i += Σ_{e of i} δ_e, with τ kept or recomputed.
func (p *linkAlignOp[T]) backwardChildren32(lo, hi int) {
	ix := p.ix
	K := p.k
	km := K * p.m
	f := p.f32Views()
	for i := lo; i < hi; i++ {
		gp, pi := f.gp1[i*km:(i+1)*km], f.p1[i*km:(i+1)*km]
		for q := ix.childPtr[i]; q < ix.childPtr[i+1]; q++ {
			e := int(ix.childLink[q])
			if f.tau != nil {
				tensor.TanhDotBack(gp, nil, nil, f.tau[e*km:(e+1)*km], f.w, f.grad[e*K:(e+1)*K])
				continue
			}
			// The parents in child order (childParent) are read in
			// sequence, not through the links' random ids.
			if int(q)+prefetchLinks < len(ix.childLink) && f.p2 != nil { // the parent rows of the links ahead
				ea := int(ix.childLink[int(q)+prefetchLinks])
				ja := int(ix.childParent[int(q)+prefetchLinks])
				tensor.Prefetch(f.p2[ja*km : (ja+1)*km])
				tensor.Prefetch(f.grad[ea*K : (ea+1)*K])
			}
			var pj []float32
			if f.p2 != nil {
				j := int(ix.childParent[q])
				pj = f.p2[j*km : (j+1)*km]
			}
			tensor.TanhAddDotBack(gp, nil, pi, pj, f.w, f.grad[e*K:(e+1)*K])
		}
	}
}

// prefetchLinks is how many links ahead the alignment's backward loops
// prefetch the rows they gather (tensor.Prefetch).
const prefetchLinks = 8

// align32 is the float32 data of a linkAlignOp.
type align32 struct {
	p1, p2, w, grad, gp1, gp2 []float32
	tau                       []float32 // nil: recompute τ
}

func (p *linkAlignOp[T]) f32Views() align32 {
	f := align32{
		p1:   any(p.p1.Value.Data).([]float32),
		w:    any(p.w.Value.Data).([]float32),
		grad: any(p.out.Grad.Data).([]float32),
	}
	if p.keep {
		f.tau = any(p.tau).([]float32)
	}
	if p.p1.RequiresGrad() {
		f.gp1 = any(p.p1.Grad.Data).([]float32)
	}
	if p.p2 != nil {
		f.p2 = any(p.p2.Value.Data).([]float32)
		if p.p2.RequiresGrad() {
			f.gp2 = any(p.p2.Grad.Data).([]float32)
		}
	}
	return f
}

// Backward implements autodiff.Op.
func (p *linkAlignOp[T]) Backward(out *autodiff.Var[T]) {
	l := p.ix.links
	km := p.k * p.m
	E := l.NumLinks()
	if p.f32 {
		p.backward32()
		return
	}
	if cap(p.delta) < E*km {
		p.delta = make([]T, E*km)
	}
	p.delta = p.delta[:E*km]
	nb := (l.Parents + alignBlock - 1) / alignBlock
	p.part = grow(p.part, nb*km)
	tensor.ParallelFor(nb, alignBlock*linkCost(p.ix, 4*km), p.bwdP)
	if p.w.RequiresGrad() {
		p.addPartsToW(nb)
	}
	if p.p1.RequiresGrad() { // ∂P1_i += Σ_{e of i} δ_e
		p.dv = tensor.Dense[T]{Rows: E, Cols: km, Data: p.delta}
		tensor.Aggregate(&p.p1.Grad, p.ix.childPtr, p.ix.childLink, nil, &p.dv, true)
	}
}

// addPartsToW adds the nb blocks' partial ∂w to ∂w.
func (p *linkAlignOp[T]) addPartsToW(nb int) {
	km := p.k * p.m
	gw := p.w.Grad.Data
	for q := range gw {
		s := 0.0
		for b := 0; b < nb; b++ {
			s += p.part[b*km+q]
		}
		gw[q] += T(s)
	}
}

// backward32 is Backward for float32: the parent pass (∂P2, ∂w) and the
// child pass (∂P1) read the kept τ, or each recompute it when the forward
// pass kept none (more than alignKeepMax values), so that no δ matrix is
// formed. When the passes would run on one goroutine anyway (one core, or
// every core busy with a fold of its own), the parent pass adds ∂P1 too,
// and τ is read or recomputed once instead of twice.
func (p *linkAlignOp[T]) backward32() {
	l := p.ix.links
	km := p.k * p.m
	gradP1, gradP2, gradW := p.p1.RequiresGrad(), p.p2 != nil && p.p2.RequiresGrad(), p.w.RequiresGrad()
	nb := (l.Parents + alignBlock - 1) / alignBlock
	cost := alignBlock * linkCost(p.ix, 24*km)
	p.fuseC = gradP1 && tensor.Serial(nb, cost) && tensor.Serial(l.Children, linkCost(p.ix, 24*km))
	if gradP2 || gradW || p.fuseC {
		p.part = grow(p.part, nb*km)
		if p.fuseC {
			p.bwdP(0, nb) // one goroutine: see backwardBlocks32
		} else {
			tensor.ParallelFor(nb, cost, p.bwdP)
		}
	}
	if gradW {
		p.addPartsToW(nb)
	}
	if gradP1 && !p.fuseC {
		tensor.ParallelFor(l.Children, linkCost(p.ix, 24*km), p.bwdC)
	}
}

// ---------------------------------------------------------------- detach

// detach records a copy of x through which no gradient flows (a stop-gradient,
// for DetachB).
func detach[T autodiff.Float](t *autodiff.Tape[T], x *autodiff.Var[T]) *autodiff.Var[T] {
	out := t.Node(x.Value.Rows, x.Value.Cols)
	copy(out.Value.Data, x.Value.Data)
	return out
}

// constant records an r×c node holding v everywhere, with no gradient.
func constant[T autodiff.Float](t *autodiff.Tape[T], r, c int, v T) *autodiff.Var[T] {
	out := t.Node(r, c)
	for i := range out.Value.Data {
		out.Value.Data[i] = v
	}
	return out
}
