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
}

func (p *geluOp[T]) forwardRange(lo, hi int) {
	x, y := p.x.Value.Data[lo:hi], p.out.Value.Data[lo:hi]
	for i, v := range x {
		y[i] = T(float64(v) * normalCDF(float64(v)))
	}
}

// backwardRange adds ∂x = ∂y·(Φ(x) + x·φ(x)).
func (p *geluOp[T]) backwardRange(lo, hi int) {
	x, g, gx := p.x.Value.Data[lo:hi], p.out.Grad.Data[lo:hi], p.x.Grad.Data[lo:hi]
	for i, v := range x {
		z := float64(v)
		gx[i] += T(float64(g[i]) * (normalCDF(z) + z*math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)))
	}
}

// Backward implements autodiff.Op.
func (p *geluOp[T]) Backward(*autodiff.Var[T]) {
	if p.x.RequiresGrad() {
		tensor.ParallelFor(len(p.x.Value.Data), 16, p.bwd)
	}
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// GELU records x·Φ(x) elementwise, Φ the standard normal distribution
// function: the exact GELU (Hendrycks & Gimpel 2016) of torch.nn.GELU's
// default, the activation of GraphGPS's configurations (cfg.gnn.act gelu)
// in the GPS layers' feed-forward blocks and the prediction head.
func GELU[T autodiff.Float](t *autodiff.Tape[T], x *autodiff.Var[T]) *autodiff.Var[T] {
	r, c := x.Shape()
	out := t.Node(r, c, x.RequiresGrad())
	p := autodiff.OpOf[geluOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRange, p.backwardRange
	}
	p.x, p.out = x, out
	tensor.ParallelFor(len(x.Value.Data), 16, p.fwd)
	return out
}
