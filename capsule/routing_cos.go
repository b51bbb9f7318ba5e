package capsule

import (
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

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

// cosBackArgs are the operands of cosBackAVX512 and cosBackAVX2, linkCos's backward loop
// over segments: a child's links in child order (backwardChildren) or a
// parent's (backwardParents). Segment s has the positions
// ptr[s] … ptr[s+1]−1; position q is link link[q] (or link q itself when
// link is nil) with partner other[q]. For each segment, with n_s = own[s]:
//
//	den_q = n_s·partner[other[q]], w[q] = float32(G_e/den_q),
//	self = Σ_q G_e·(dot_e/den_q) in position order from 0.0,
//	c = −self/(n_s·n_s), grad row s += float32(c·val row s),
//
// each lane with the float64 operations of the Go loops in their order, so
// the same bits (TestLinkCosBackwardAVX512). The field offsets are fixed
// by the assembly (TestCosBackArgsLayout).
type cosBackArgs struct {
	ptr, link, other *int32
	g, dot           *float32
	own, partner     *float64
	w, val, grad     *float32
	d                int    // row length of val and grad
	lo, hi           int    // segments
	tail             uint64 // mask of the last d mod 8 lanes of a row (0: none)
}

// cosBackVec reports whether linkCos's backward loops run on AVX2 or
// AVX-512 (float32, rows of at most 64 values).
func cosBackVec[T autodiff.Float](d int) bool {
	return isFloat32[T]() && haveAVX2 && !cosVecOff && d <= 64
}

// cosBack runs linkCos's backward loop on the segments of a:
// cosBackAVX512 on AVX-512, cosBackAVX2 on AVX2, with the same results.
func cosBack(a *cosBackArgs) {
	if haveAVX512 && !cosAVX2Only {
		cosBackAVX512(a)
		return
	}
	cosBackAVX2(a)
}

// cosVecOff makes linkCos's backward loops take the Go code, and
// cosAVX2Only the AVX2 kernel on AVX-512 (tests).
var cosVecOff, cosAVX2Only = false, false
