package capsule

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/tensor"
)

// predictBlock is the row block of the deterministic reduction of the
// prediction weights' gradients.
const predictBlock = 256

type predictOp[T autodiff.Float] struct {
	a, out     *autodiff.Var[T]
	tape       *autodiff.Tape[T]  // its scratch (the float32 form)
	wsph, weuc []*autodiff.Var[T] // groups·K each (own copies of the caller's slices)
	bias, beta []*autodiff.Var[T] // groups·K, K
	s, t       int
	r          []float64 // r_k = √|β_k|
	part       []float64 // per block: groups·K × (t² + s² + d + 1)
	// Kept from the forward pass for the backward one (when out requires a
	// gradient): per output row and perspective, x = a_T·Wsph_k (t values)
	// and the wrap's θ, ‖x‖ and h (the float32 form's vector kernel keeps
	// θ = ‖x‖ = 0 for a block that cannot wrap: the backward pass asks
	// only whether θ < π).
	x, wrap  []float64
	fwd, bwd func(lo, hi int)
	groups   int // weight groups stacked in the output (see predict)
	// The float32 form (routing_predict_gemm.go).
	f32              bool
	gemm             predictGemm[T]
	fwdWrap, bwdWrap func(lo, hi int)
	vec              wrapVec // the wrap's vector kernels (float32 on AVX2 or AVX-512)
}

// predict records the K perspective predictions of every child (Eq.
// perspective_prediction_vector in tangent coordinates, DESIGN §5 step 1):
//
//	ξ_{i,k} = (wrap_{r_k}(a_{i,T}·Wsph_k), a_{i,S}·Weuc_k) + b_k,
//
// with wrap_r = log_p∘exp_p on S^t(r) (manifold.Wrap), r_k = √|β_k|, a C×d
// (t time-like coordinates first), Wsph_k t×t, Weuc_k s×s, b_k 1×d, β_k
// 1×1; the result is C×(K·d), perspective k in columns [k·d, (k+1)·d). It
// fuses what would otherwise be 2K small matrix products, K wraps and K
// concatenations, and is checked against that composition in the tests.
//
// With G·K weights (G groups of K, group-major; β still K) it stacks the G
// groups' predictions: row g·C + i is child i's under group g (graph-level
// routing's per-class predictions, one op instead of G and a concatenation).
func predict[T autodiff.Float](t *autodiff.Tape[T], a *autodiff.Var[T], wsph, weuc, bias, beta []*autodiff.Var[T], s, tt int) *autodiff.Var[T] {
	K := len(beta)
	d := s + tt
	if K == 0 || a.Value.Cols != d || len(wsph)%K != 0 || len(weuc) != len(wsph) || len(bias) != len(wsph) {
		panic(fmt.Sprintf("capsule: predict: a is %d×%d for s=%d t=%d, %d/%d/%d/%d weights", a.Value.Rows, a.Value.Cols, s, tt, len(wsph), len(weuc), len(bias), K))
	}
	G := len(wsph) / K
	var inBuf [256]*autodiff.Var[T] // on the stack unless G·K is large
	inputs := append(inBuf[:0], a)
	for q := range wsph {
		checkRows("predict", "wsph", wsph[q], tt, tt)
		checkRows("predict", "weuc", weuc[q], s, s)
		checkRows("predict", "bias", bias[q], 1, d)
		inputs = append(inputs, wsph[q], weuc[q], bias[q])
	}
	for _, b := range beta {
		checkRows("predict", "beta", b, 1, 1)
	}
	inputs = append(inputs, beta...)
	n := a.Value.Rows
	out := t.Node(G*n, K*d, inputs...)
	p := autodiff.OpOf[predictOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRows, p.backwardBlocks
		p.fwdWrap, p.bwdWrap = p.wrapRows, p.wrapGradBlocks
		var zero T
		_, p.f32 = any(zero).(float32)
	}
	p.a, p.out, p.tape, p.s, p.t, p.groups = a, out, t, s, tt, G
	p.wsph = append(p.wsph[:0], wsph...)
	p.weuc = append(p.weuc[:0], weuc...)
	p.bias = append(p.bias[:0], bias...)
	p.beta = append(p.beta[:0], beta...)
	p.r = p.r[:0]
	for _, b := range beta {
		bv := float64(b.Value.Data[0])
		if !(bv < 0) || math.IsInf(bv, 0) {
			panic(fmt.Sprintf("capsule: predict: curvature β = %v must be finite and negative", bv))
		}
		p.r = append(p.r, math.Sqrt(-bv))
	}
	p.x, p.wrap = p.x[:0], p.wrap[:0]
	if out.RequiresGrad() {
		p.wrap = grow(p.wrap, G*n*K*3)
	}
	if p.f32 {
		p.forwardGemm()
		return out
	}
	if out.RequiresGrad() {
		p.x = grow(p.x, G*n*K*tt)
	}
	tensor.ParallelFor(n, G*K*(tt*tt+s*s+4*d), p.fwd)
	return out
}

// wrapFactor returns θ = n/r, n = ‖x‖ and h = ω/θ with ω = atan2(sin θ, cos θ)
// (manifold.WrapAngle; h = 1 for θ < π): wrap_r(x) = h·x (manifold.Wrap).
func wrapFactor[T autodiff.Float](x []T, r float64) (th, n, h float64) {
	for _, v := range x {
		n += float64(v) * float64(v)
	}
	n = math.Sqrt(n)
	th = n / r
	if th < math.Pi {
		return th, n, 1
	}
	return th, n, manifold.WrapAngle(th) / th
}

// maxPredictT bounds t for the stack scratch of the kernels (NewRouting
// rejects larger t).
const maxPredictT = 64

// preWrap computes x = a_T·Wsph into x.
func preWrap[T autodiff.Float](x []float64, aT []T, w []T, tt int) {
	clear(x)
	for m, av := range aT {
		if av == 0 {
			continue
		}
		a := float64(av)
		row := w[m*tt : (m+1)*tt]
		for c, wv := range row {
			x[c] += a * float64(wv)
		}
	}
}

func (p *predictOp[T]) forwardRows(lo, hi int) {
	s, tt := p.s, p.t
	d, K, n := s+tt, len(p.beta), p.a.Value.Rows
	keep := len(p.wrap) > 0
	var xbuf [maxPredictT]float64
	x := xbuf[:tt]
	for i := lo; i < hi; i++ {
		ai := p.a.Value.Data[i*d : (i+1)*d]
		aT, aS := ai[:tt], ai[tt:]
		for g := 0; g < p.groups; g++ {
			row := g*n + i
			for k := 0; k < K; k++ {
				q, rk := g*K+k, row*K+k // weight, output block
				o := p.out.Value.Data[rk*d : (rk+1)*d]
				b := p.bias[q].Value.Data
				if keep {
					x = p.x[rk*tt : (rk+1)*tt]
				}
				preWrap(x, aT, p.wsph[q].Value.Data, tt)
				th, nx, h := wrapFactor(x, p.r[k])
				if keep {
					p.wrap[rk*3], p.wrap[rk*3+1], p.wrap[rk*3+2] = th, nx, h
				}
				for c, v := range x {
					o[c] = T(h*v + float64(b[c]))
				}
				we := p.weuc[q].Value.Data
				for c := 0; c < s; c++ {
					acc := float64(b[tt+c])
					for m, av := range aS {
						acc += float64(av) * float64(we[m*s+c])
					}
					o[tt+c] = T(acc)
				}
			}
		}
	}
}

// backwardBlocks handles row blocks [lo, hi). For the time block, with
// G the upstream gradient, x = a_T·Wsph and γ = G·x, the wrap's backward is
// (manifold.Wrap) ∂x = G for θ < π, otherwise
//
//	∂x = h·G + γ·(θ−ω)/(θ²·n·r)·x,   ∂r += −γ·(θ−ω)/(θ·r);
//
// then ∂Wsph += a_Tᵀ∂x, ∂a_T += ∂x·Wsphᵀ; the space block is linear:
// ∂Weuc += a_Sᵀ G_S, ∂a_S += G_S·Weucᵀ; ∂b += G.
func (p *predictOp[T]) backwardBlocks(lo, hi int) {
	s, tt := p.s, p.t
	d := s + tt
	Q, K := len(p.wsph), len(p.beta) // Q = groups·K weights
	per := tt*tt + s*s + d + 1
	n := p.a.Value.Rows
	gradA := p.a.RequiresGrad()
	var gbuf [maxPredictT]float64
	gx := gbuf[:tt]
	for b := lo; b < hi; b++ {
		part := p.part[b*Q*per : (b+1)*Q*per]
		clear(part)
		for i := b * predictBlock; i < min((b+1)*predictBlock, n); i++ {
			ai := p.a.Value.Data[i*d : (i+1)*d]
			aT, aS := ai[:tt], ai[tt:]
			var ga []T
			if gradA {
				ga = p.a.Grad.Data[i*d : (i+1)*d]
			}
			for q := 0; q < Q; q++ {
				k, rk := q%K, ((q/K)*n+i)*K+q%K // perspective, output block
				pk := part[q*per : (q+1)*per]
				dWs, dWe, dB := pk[:tt*tt], pk[tt*tt:tt*tt+s*s], pk[tt*tt+s*s:tt*tt+s*s+d]
				g := p.out.Grad.Data[rk*d : (rk+1)*d]
				for c, v := range g {
					dB[c] += float64(v)
				}
				// Time block through the wrap, from the forward pass's x.
				ws := p.wsph[q].Value.Data
				x := p.x[rk*tt : (rk+1)*tt]
				wf := p.wrap[rk*3 : rk*3+3]
				r := p.r[k]
				th, nx, h := wf[0], wf[1], wf[2]
				if th < math.Pi {
					for c := range gx {
						gx[c] = float64(g[c])
					}
				} else {
					gam := 0.0
					for c, v := range x {
						gam += float64(g[c]) * v
					}
					dw := th - h*th // θ − ω
					pk[per-1] -= gam * dw / (th * r)
					f := gam * dw / (th * th * nx * r)
					for c, v := range x {
						gx[c] = h*float64(g[c]) + f*v
					}
				}
				for m, av := range aT {
					a := float64(av)
					row := dWs[m*tt : (m+1)*tt]
					acc := 0.0
					wr := ws[m*tt : (m+1)*tt]
					for c, gv := range gx {
						row[c] += a * gv
						acc += float64(wr[c]) * gv
					}
					if gradA {
						ga[m] += T(acc)
					}
				}
				// Space block.
				we := p.weuc[q].Value.Data
				gs := g[tt:]
				for m, av := range aS {
					a := float64(av)
					row := dWe[m*s : (m+1)*s]
					wr := we[m*s : (m+1)*s]
					acc := 0.0
					for c, gv := range gs {
						row[c] += a * float64(gv)
						acc += float64(wr[c]) * float64(gv)
					}
					if gradA {
						ga[tt+m] += T(acc)
					}
				}
			}
		}
	}
}

// Backward implements autodiff.Op.
func (p *predictOp[T]) Backward(out *autodiff.Var[T]) {
	if p.f32 {
		p.backwardGemm()
		return
	}
	s, tt := p.s, p.t
	d := s + tt
	Q, K := len(p.wsph), len(p.beta)
	per := tt*tt + s*s + d + 1
	nb := (p.a.Value.Rows + predictBlock - 1) / predictBlock
	p.part = grow(p.part, nb*Q*per)
	tensor.ParallelFor(nb, predictBlock*Q*4*(tt*tt+s*s+d), p.bwd)
	add := func(v *autodiff.Var[T], off int) {
		if !v.RequiresGrad() {
			return
		}
		for c := range v.Grad.Data {
			acc := 0.0
			for b := 0; b < nb; b++ {
				acc += p.part[b*Q*per+off+c]
			}
			v.Grad.Data[c] += T(acc)
		}
	}
	for q := 0; q < Q; q++ {
		base := q * per
		add(p.wsph[q], base)
		add(p.weuc[q], base+tt*tt)
		add(p.bias[q], base+tt*tt+s*s)
	}
	for k := 0; k < K; k++ {
		if p.beta[k].RequiresGrad() {
			dr := 0.0
			for b := 0; b < nb; b++ {
				for q := k; q < Q; q += K {
					dr += p.part[b*Q*per+q*per+per-1]
				}
			}
			// ∂β = ∂r·dr/dβ = −∂r/(2r).
			p.beta[k].Grad.Data[0] += T(-dr / (2 * p.r[k]))
		}
	}
}
