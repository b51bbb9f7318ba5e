package capsule

import (
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

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
