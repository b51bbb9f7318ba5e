package nn

import (
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// geluOp is the record of y = GELU(x) elementwise.
type geluOp[T autodiff.Float] struct {
	x, out   *autodiff.Var[T]
	fwd, bwd func(lo, hi int)
	// slope is Φ(x) + x·φ(x) per element, kept by the forward pass for
	// the backward one when x needs a gradient: the normal distribution,
	// an exponential per element, is then computed once per step.
	slope []float64
	keep  bool
}

func (p *geluOp[T]) forwardRange(lo, hi int) {
	x, y := p.x.Value.Data[lo:hi], p.out.Value.Data[lo:hi]
	f32 := isFloat32[T]()
	if !p.keep {
		for i, v := range x {
			cdf, _ := normal(float64(v), f32)
			y[i] = T(float64(v) * cdf)
		}
		return
	}
	slope := p.slope[lo:hi]
	for i, v := range x {
		z := float64(v)
		cdf, pdf := normal(z, f32)
		y[i] = T(z * cdf)
		slope[i] = cdf + z*pdf
	}
}

// backwardRange adds ∂x = ∂y·(Φ(x) + x·φ(x)).
func (p *geluOp[T]) backwardRange(lo, hi int) {
	g, gx, slope := p.out.Grad.Data[lo:hi], p.x.Grad.Data[lo:hi], p.slope[lo:hi]
	for i, s := range slope {
		gx[i] += T(float64(g[i]) * s)
	}
}

func isFloat32[T autodiff.Float]() bool {
	var zero T
	_, ok := any(zero).(float32)
	return ok
}

// Backward implements autodiff.Op.
func (p *geluOp[T]) Backward(*autodiff.Var[T]) {
	if p.x.RequiresGrad() {
		tensor.ParallelFor(len(p.x.Value.Data), 16, p.bwd)
	}
}

// normal returns the standard normal distribution function Φ(z) and
// density φ(z). In float64 Φ comes from math.Erfc. For float32 it comes
// from Abramowitz and Stegun's 7.1.26 approximation of erf, whose error
// below 1.5e-7 is float32's resolution, at a third of math.Erfc's cost
// (which dominated GELU): erf(a) ≈ 1 − t·P(t)·e^{−a²}, t = 1/(1 + 0.3275911a),
// for a = |z|/√2 ≥ 0, sharing e^{−a²} = e^{−z²/2} with the density.
func normal(z float64, f32 bool) (cdf, pdf float64) {
	e := math.Exp(-z * z / 2)
	pdf = e / math.Sqrt(2*math.Pi)
	if !f32 {
		return 0.5 * math.Erfc(-z/math.Sqrt2), pdf
	}
	a := math.Abs(z) / math.Sqrt2
	t := 1 / (1 + 0.3275911*a)
	erfc := t * (0.254829592 + t*(-0.284496736+t*(1.421413741+t*(-1.453152027+t*1.061405429)))) * e
	if z >= 0 {
		return 1 - erfc/2, pdf
	}
	return erfc / 2, pdf
}

// GELU records x·Φ(x) elementwise, Φ the standard normal distribution
// function: the exact GELU (Hendrycks & Gimpel 2016) of torch.nn.GELU's
// default, the activation of GraphGPS's configurations (cfg.gnn.act gelu)
// in the GPS layers' feed-forward blocks and the prediction head.
func GELU[T autodiff.Float](t *autodiff.Tape[T], x *autodiff.Var[T]) *autodiff.Var[T] {
	r, c := x.Shape()
	out := t.Node(r, c, x)
	p := autodiff.OpOf[geluOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRange, p.backwardRange
	}
	p.x, p.out = x, out
	n := len(x.Value.Data)
	if p.keep = out.RequiresGrad(); p.keep {
		if cap(p.slope) < n {
			p.slope = make([]float64, n)
		}
		p.slope = p.slope[:n]
	}
	tensor.ParallelFor(n, 16, p.fwd)
	return out
}
