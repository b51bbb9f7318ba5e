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
	var slope []float64
	if p.keep {
		slope = p.slope[lo:hi]
	}
	if x32, ok := any(x).([]float32); ok {
		y32, _ := any(y).([]float32)
		tensor.GELU32(y32, slope, x32)
		return
	}
	for i, v := range x {
		z := float64(v)
		cdf, pdf := normal(z)
		y[i] = T(z * cdf)
		if slope != nil {
			slope[i] = cdf + z*pdf
		}
	}
}

// backwardRange adds ∂x = ∂y·(Φ(x) + x·φ(x)).
func (p *geluOp[T]) backwardRange(lo, hi int) {
	g, gx, slope := p.out.Grad.Data[lo:hi], p.x.Grad.Data[lo:hi], p.slope[lo:hi]
	for i, s := range slope {
		gx[i] += T(float64(g[i]) * s)
	}
}

// Backward implements autodiff.Op.
func (p *geluOp[T]) Backward(*autodiff.Var[T]) {
	if p.x.RequiresGrad() {
		tensor.ParallelFor(len(p.x.Value.Data), 16, p.bwd)
	}
}

// normal returns the standard normal distribution function Φ(z), from
// math.Erfc, and density φ(z), for float64. float32 uses tensor.GELU32,
// whose Φ is Abramowitz and Stegun's approximation at float32's
// resolution, for a third of math.Erfc's cost.
func normal(z float64) (cdf, pdf float64) {
	return 0.5 * math.Erfc(-z/math.Sqrt2), math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
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
