package capsule

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

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
