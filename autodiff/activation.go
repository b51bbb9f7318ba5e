package autodiff

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/tensor"
)

// unaryKind selects the function an elementwise unary op applies. All unary
// functions share one op record type so that a model whose activation changes
// at a tape position (ReLU in one pass, Tanh in the next) still reuses it.
type unaryKind uint8

const (
	unaryReLU unaryKind = iota
	unaryLeakyReLU
	unaryELU
	unaryTanh
	unarySigmoid
	unaryExp
	unaryLog
	unarySoftplus
	unarySquare
	unarySqrt
	unaryClamp
	unaryScale
	unaryAddScalar
)

// unaryCost is the relative per-element cost handed to tensor.ParallelFor:
// transcendental functions are worth splitting across cores at smaller sizes
// than a multiply.
func (k unaryKind) cost() int {
	switch k {
	case unaryELU, unaryTanh, unarySigmoid, unaryExp, unaryLog, unarySoftplus, unarySqrt:
		return 16
	}
	return 1
}

// unaryOp is the record of y = f(x) applied elementwise. a and b are the
// function's parameters (slope, alpha, eps, bounds, constant).
type unaryOp[T Float] struct {
	x, out *Var[T]
	kind   unaryKind
	a, b   float64
	// fwd and bwd are method values bound once per record: handing a stored
	// func to ParallelFor allocates nothing, building a closure per pass would.
	fwd, bwd func(lo, hi int)
}

// Backward implements Op.
func (p *unaryOp[T]) Backward(out *Var[T]) {
	if !p.x.requiresGrad {
		return
	}
	tensor.ParallelFor(len(out.Value.Data), p.kind.cost(), p.bwd)
}

// recordUnary runs f on x and records it on the tape.
func recordUnary[T Float](t *Tape[T], x *Var[T], kind unaryKind, a, b float64) *Var[T] {
	out := t.Node(x.Value.Rows, x.Value.Cols, x)
	p := OpOf[unaryOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRange, p.backwardRange
	}
	p.x, p.out, p.kind, p.a, p.b = x, out, kind, a, b
	tensor.ParallelFor(len(out.Value.Data), kind.cost(), p.fwd)
	return out
}

// stableSigmoid is 1/(1+e^−v) without overflow for large |v|.
func stableSigmoid(v float64) float64 {
	if v >= 0 {
		return 1 / (1 + math.Exp(-v))
	}
	e := math.Exp(v)
	return e / (1 + e)
}

// stableSoftplus is log(1+e^v) = max(v,0) + log1p(e^−|v|), exact for large |v|.
func stableSoftplus(v float64) float64 {
	return math.Max(v, 0) + math.Log1p(math.Exp(-math.Abs(v)))
}

// unaryIndicator is 1 when b holds and 0 otherwise, compiled without a
// branch (SETcc): activations see signs that are random to the branch
// predictor, and a mispredicted branch per element made ReLU 4x slower.
func unaryIndicator(b bool) uint8 {
	var u uint8
	if b {
		u = 1
	}
	return u
}

// forwardRange computes out[lo:hi] = f(x[lo:hi]). The switch sits outside the
// loops so each loop is a tight kernel; the piecewise-linear ones use the
// branch-free min and max builtins.
func (p *unaryOp[T]) forwardRange(lo, hi int) {
	x := p.x.Value.Data[lo:hi]
	y := p.out.Value.Data[lo:hi]
	y = y[:len(x)]
	switch p.kind {
	case unaryReLU:
		tensor.VecReLU(y, x) // NaN propagates, as in PyTorch
	case unaryLeakyReLU:
		s := T(p.a)
		for i, v := range x {
			y[i] = max(v, 0) + s*min(v, 0)
		}
	case unaryELU:
		for i, v := range x {
			if v > 0 {
				y[i] = v
			} else {
				y[i] = T(p.a * math.Expm1(float64(v)))
			}
		}
	case unaryTanh:
		for i, v := range x {
			y[i] = T(math.Tanh(float64(v)))
		}
	case unarySigmoid:
		for i, v := range x {
			y[i] = T(stableSigmoid(float64(v)))
		}
	case unaryExp:
		for i, v := range x {
			y[i] = T(math.Exp(float64(v)))
		}
	case unaryLog:
		for i, v := range x {
			y[i] = T(math.Log(float64(v)))
		}
	case unarySoftplus:
		for i, v := range x {
			y[i] = T(stableSoftplus(float64(v)))
		}
	case unarySquare:
		for i, v := range x {
			y[i] = v * v
		}
	case unarySqrt:
		for i, v := range x {
			y[i] = T(math.Sqrt(float64(v) + p.a))
		}
	case unaryClamp:
		lo, hi := T(p.a), T(p.b)
		for i, v := range x {
			y[i] = min(max(v, lo), hi) // NaN propagates, as in PyTorch
		}
	case unaryScale:
		c := T(p.a)
		for i, v := range x {
			y[i] = c * v
		}
	case unaryAddScalar:
		c := T(p.a)
		for i, v := range x {
			y[i] = v + c
		}
	default:
		panic(fmt.Sprintf("autodiff: unknown unary op kind %d", p.kind))
	}
}

// backwardRange adds f'(x)·g into x.Grad[lo:hi]. Derivatives that are cheaper
// in terms of the output (exp, tanh, sigmoid, sqrt, ELU) read y.
func (p *unaryOp[T]) backwardRange(lo, hi int) {
	x := p.x.Value.Data[lo:hi]
	gx := p.x.Grad.Data[lo:hi]
	y := p.out.Value.Data[lo:hi]
	g := p.out.Grad.Data[lo:hi]
	gx, y, g = gx[:len(x)], y[:len(x)], g[:len(x)]
	switch p.kind {
	case unaryReLU:
		tensor.VecReLUGrad(gx, g, x) // subgradient 0 at exactly 0, as PyTorch
	case unaryLeakyReLU:
		s := T(p.a)
		for i, v := range x {
			gx[i] += g[i] * (s + (1-s)*T(unaryIndicator(v > 0)))
		}
	case unaryELU:
		a := T(p.a)
		for i, v := range x {
			if v > 0 {
				gx[i] += g[i]
			} else {
				gx[i] += g[i] * (y[i] + a) // α·eˣ = y + α
			}
		}
	case unaryTanh:
		for i := range x {
			gx[i] += g[i] * (1 - y[i]*y[i])
		}
	case unarySigmoid:
		for i := range x {
			gx[i] += g[i] * y[i] * (1 - y[i])
		}
	case unaryExp:
		for i := range x {
			gx[i] += g[i] * y[i]
		}
	case unaryLog:
		for i, v := range x {
			gx[i] += g[i] / v
		}
	case unarySoftplus:
		for i, v := range x {
			gx[i] += g[i] * T(stableSigmoid(float64(v)))
		}
	case unarySquare:
		for i, v := range x {
			gx[i] += 2 * v * g[i]
		}
	case unarySqrt:
		for i := range x {
			gx[i] += g[i] / (2 * y[i])
		}
	case unaryClamp:
		lo, hi := T(p.a), T(p.b)
		for i, v := range x {
			// Inclusive bounds, as torch.clamp.
			gx[i] += g[i] * T(unaryIndicator(v >= lo)&unaryIndicator(v <= hi))
		}
	case unaryScale:
		c := T(p.a)
		for i := range x {
			gx[i] += c * g[i]
		}
	case unaryAddScalar:
		for i := range x {
			gx[i] += g[i]
		}
	default:
		panic(fmt.Sprintf("autodiff: unknown unary op kind %d", p.kind))
	}
}

// ReLU returns max(x, 0) elementwise. Its gradient at exactly 0 is 0 (the
// subgradient PyTorch uses); NaN propagates.
func ReLU[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordUnary(t, x, unaryReLU, 0, 0)
}

// LeakyReLU returns x for x > 0 and slope·x otherwise (PyTorch's default
// slope is 0.01). The gradient at 0 is slope.
func LeakyReLU[T Float](t *Tape[T], x *Var[T], slope float64) *Var[T] {
	return recordUnary(t, x, unaryLeakyReLU, slope, 0)
}

// ELU returns x for x > 0 and alpha·(eˣ − 1) otherwise. The gradient at 0 is
// alpha, as in PyTorch.
func ELU[T Float](t *Tape[T], x *Var[T], alpha float64) *Var[T] {
	return recordUnary(t, x, unaryELU, alpha, 0)
}

// Tanh returns tanh(x) elementwise.
func Tanh[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordUnary(t, x, unaryTanh, 0, 0)
}

// Sigmoid returns 1/(1+e^−x) elementwise, computed without overflow for
// large |x|.
func Sigmoid[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordUnary(t, x, unarySigmoid, 0, 0)
}

// Exp returns eˣ elementwise. It overflows to +Inf above ≈ 88.7 in float32
// (709.8 in float64); use LogSumExp-style formulations (SoftmaxCrossEntropy,
// Softplus) where large inputs are expected.
func Exp[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordUnary(t, x, unaryExp, 0, 0)
}

// Log returns the natural logarithm elementwise. Its domain is x > 0: log 0 is
// −Inf and a negative input gives NaN (as math.Log); the gradient 1/x is
// infinite at 0. Callers that may feed zeros add an epsilon first (AddScalar).
func Log[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordUnary(t, x, unaryLog, 0, 0)
}

// Softplus returns log(1+eˣ) elementwise, computed as max(x,0)+log1p(e^−|x|)
// so that it neither overflows for large x nor loses precision for very
// negative x. Its gradient is Sigmoid(x).
func Softplus[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordUnary(t, x, unarySoftplus, 0, 0)
}

// Square returns x² elementwise.
func Square[T Float](t *Tape[T], x *Var[T]) *Var[T] {
	return recordUnary(t, x, unarySquare, 0, 0)
}

// Sqrt returns √(x + eps) elementwise; the gradient is 1/(2√(x+eps)). eps
// keeps the gradient finite where x reaches 0 (e.g. the norm of a zero
// vector). The domain is x ≥ −eps: below it the result is NaN, at it the
// gradient is +Inf.
func Sqrt[T Float](t *Tape[T], x *Var[T], eps float64) *Var[T] {
	return recordUnary(t, x, unarySqrt, eps, 0)
}

// Clamp limits x to [lo, hi] elementwise. The gradient is 1 where
// lo ≤ x ≤ hi (bounds included, as torch.clamp) and 0 outside; NaN
// propagates. It panics if lo > hi.
func Clamp[T Float](t *Tape[T], x *Var[T], lo, hi float64) *Var[T] {
	if lo > hi {
		panic(fmt.Sprintf("autodiff: Clamp with lo %g > hi %g", lo, hi))
	}
	return recordUnary(t, x, unaryClamp, lo, hi)
}
