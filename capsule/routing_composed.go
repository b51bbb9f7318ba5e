package capsule

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
)

// The routing layer's steps built from elementary autodiff ops, which the
// tests (Routing.composed) compare with the fused ops, values and gradients.

// predictComposed is predict built from MatMul, manifold.Wrap, ConcatCols
// and Add (the test oracle of the fused op).
func (r *Routing[T]) predictComposed(t *autodiff.Tape[T], a *autodiff.Var[T], betas []*autodiff.Var[T]) *autodiff.Var[T] {
	dims := r.Cfg.Dims
	tt, d, K := dims.T, dims.Tangent(), r.K
	aT := autodiff.SliceCols(t, a, 0, tt)
	var aS *autodiff.Var[T]
	if dims.S > 0 {
		aS = autodiff.SliceCols(t, a, tt, d)
	}
	var xiBuf [maxGateK]*autodiff.Var[T]
	xis := xiBuf[:K]
	for k := range xis {
		xk := manifold.Wrap(t, autodiff.MatMul(t, aT, r.Wsph[k]), betas[k])
		if aS != nil {
			xk = autodiff.ConcatCols(t, xk, autodiff.MatMul(t, aS, r.Weuc[k]))
		}
		xis[k] = autodiff.Add(t, xk, r.B[k])
	}
	if K == 1 {
		return xis[0]
	}
	return autodiff.ConcatCols(t, xis...)
}

// firstGatesComposed is firstGates built from elementwise autodiff ops (the
// test oracle of the fused linkGate).
func (r *Routing[T]) firstGatesComposed(t *autodiff.Tape[T], ix *linkIndex, p1, betaRow *autodiff.Var[T]) *autodiff.Var[T] {
	cfg := r.Cfg
	K, C := r.K, ix.links.Children
	var logit *autodiff.Var[T]
	if !cfg.NoA {
		logit = autodiff.MulScalarVar(t, linkAlign(t, ix.self, p1, nil, r.AlignW), r.AlphaA)
	}
	if !cfg.NoC {
		cRow := autodiff.MulScalarVar(t, autodiff.Scale(t, autodiff.Square(t, betaRow), -0.5), r.AlphaC)
		if logit == nil {
			logit = constant[T](t, C, K, 0)
		}
		logit = autodiff.Add(t, logit, cRow)
	}
	if logit == nil {
		return constant[T](t, ix.links.NumLinks(), K, T(1/float64(K)))
	}
	g := autodiff.Sigmoid(t, logit)
	g = autodiff.Div(t, g, autodiff.RowSum(t, g))
	return autodiff.GatherRows(t, g, ix.links.Child)
}

// gatesComposed is gates built from elementwise autodiff ops (the test
// oracle of the fused linkGate).
func (r *Routing[T]) gatesComposed(t *autodiff.Tape[T], ix *linkIndex, a, p1, z, h, c, betaRow *autodiff.Var[T]) *autodiff.Var[T] {
	cfg := r.Cfg
	K := r.K
	var logit *autodiff.Var[T]
	add := func(term, alpha *autodiff.Var[T]) {
		term = autodiff.MulScalarVar(t, term, alpha)
		if logit == nil {
			logit = term
		} else {
			logit = autodiff.Add(t, logit, term)
		}
	}
	if !cfg.NoC {
		// Eqs. (local_curvature), (curvature_compatibility).
		kappa := linkCos(t, ix, a, z) // E×1
		diff := autodiff.Sub(t, kappa, betaRow)
		add(autodiff.Scale(t, autodiff.Square(t, diff), -0.5), r.AlphaC)
	}
	if !cfg.NoA {
		// Eq. (feature_alignment).
		p2 := autodiff.MatMul(t, z, r.AlignZ)
		add(linkAlign(t, ix, p1, p2, r.AlignW), r.AlphaA)
	}
	if !cfg.NoR {
		// Eq. (routing_consistency): log(c + 1e-9)·(W^C h)_k.
		lc := autodiff.Log(t, autodiff.AddScalar(t, c, 1e-9))
		add(autodiff.Mul(t, lc, autodiff.MatMul(t, h, r.WC)), r.AlphaR)
	}
	if logit == nil {
		// All three terms removed: σ(0) = ½ for every k, i.e. γ = 1/K.
		return constant[T](t, ix.links.NumLinks(), K, T(1/float64(K)))
	}
	g := autodiff.Sigmoid(t, logit)
	return autodiff.Div(t, g, autodiff.RowSum(t, g))
}
