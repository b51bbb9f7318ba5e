package optim

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// clipEps is added to the norm in the clipping coefficient, as in
// torch.nn.utils.clip_grad_norm_.
const clipEps = 1e-6

// GradNorm returns the global L2 norm of the gradients of params, taken over
// all their elements together (the norm of the per-parameter norms), in
// float64. It returns an error naming the first parameter whose gradient
// holds a NaN or an infinity. Parameters with an empty gradient count as
// zero. A sum of squares that overflows float64 while every element is
// finite is recomputed with scaling, so only truly non-finite gradients fail.
func GradNorm[T tensor.Float](params []*autodiff.Var[T]) (float64, error) {
	var sum float64
	for _, p := range params {
		for _, g := range p.Grad.Data {
			sum += float64(g) * float64(g)
		}
	}
	if !math.IsNaN(sum) && !math.IsInf(sum, 0) {
		return math.Sqrt(sum), nil
	}
	// Either some element is not finite, or the sum overflowed.
	var scale float64
	for j, p := range params {
		for i, g := range p.Grad.Data {
			a := math.Abs(float64(g))
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return math.NaN(), fmt.Errorf("optim: gradient of %s is not finite (%v at element %d)", paramLabel(p, j), g, i)
			}
			scale = max(scale, a)
		}
	}
	sum = 0
	for _, p := range params {
		for _, g := range p.Grad.Data {
			r := float64(g) / scale
			sum += r * r
		}
	}
	return scale * math.Sqrt(sum), nil
}

// ClipGradNorm rescales the gradients of params in place so that their
// global L2 norm is at most maxNorm, and returns the norm before clipping,
// with torch.nn.utils.clip_grad_norm_'s semantics: the coefficient is
// maxNorm/(norm + 1e-6), applied only when it is below 1. All-zero gradients
// are left alone.
//
// Unlike PyTorch's default (error_if_nonfinite=False, which scales every
// gradient to NaN), a NaN or infinite gradient is an error and no gradient
// is changed, so the caller can skip the step instead of corrupting the
// weights. maxNorm must be positive (to disable clipping, do not call it).
func ClipGradNorm[T tensor.Float](params []*autodiff.Var[T], maxNorm float64) (float64, error) {
	if !(maxNorm > 0) {
		return 0, fmt.Errorf("optim: ClipGradNorm: maxNorm %v must be positive", maxNorm)
	}
	norm, err := GradNorm(params)
	if err != nil {
		return norm, err
	}
	coef := maxNorm / (norm + clipEps)
	if coef < 1 {
		for _, p := range params {
			g := p.Grad.Data
			for i := range g {
				g[i] = T(float64(g[i]) * coef)
			}
		}
	}
	return norm, nil
}
