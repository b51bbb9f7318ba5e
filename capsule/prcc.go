package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
)

// PRCCTau0Init is the initial τ₀ of PRCC, log(e − 1), at which
// softplus(τ₀) = 1: the initial scale is τ = r = √|β| (1 at β = −1).
var PRCCTau0Init = math.Log(math.E - 1)

// PRCC is the Pseudo-Riemannian Capsule Classifier (paper §"Pseudo-Riemannian
// Capsule Classifier", Eqs. tangent_space_mapping and alignment; DESIGN §5
// PRCC). A parent capsule v on Q is mapped to the tangent space at the pole,
// z = loĝ_o(v), and scored against one learnable tangent vector per class:
//
//	logit_c = τ·Align(z, w_c) + b_c,   τ = softplus(τ₀)·√|β|,
//
// with Align the ε-floored, clipped pseudo-cosine of manifold.Align
// (ε = manifold.AlignEps = 1e-6, clip ±manifold.AlignClip = ±10). The
// curvature weighting makes τ, and so the logits, depend on β: the gradient
// flows into β through both loĝ_o and r.
type PRCC[T autodiff.Float] struct {
	W    *autodiff.Var[T] // classes×d, the class vectors w_c (tangent coordinates at o)
	B    *autodiff.Var[T] // 1×classes, the biases b_c
	Tau0 *autodiff.Var[T] // 1×1, τ = softplus(τ₀)·r
	Dims manifold.Dims
}

// NewPRCC returns a PRCC for capsules on Q_{s,t} (dims) and the given number
// of classes. Initialisation: τ₀ = PRCCTau0Init (softplus(τ₀) = 1; SetScale
// changes it, and the PR-CapsNet models start at 10), b = 0,
// and each w_c drawn from N(0, 1/d)^d (‖w_c‖ ≈ 1), redrawn while
// |g(w_c,w_c)| < ¼‖w_c‖², so that no class vector starts near the light cone,
// where its floored pseudo-norm would make every score clip and pass no
// gradient.
func NewPRCC[T autodiff.Float](name string, dims manifold.Dims, classes int, rng *rand.Rand) *PRCC[T] {
	dims.Validate()
	if classes < 1 {
		panic(fmt.Sprintf("capsule: NewPRCC: %d classes", classes))
	}
	d := dims.Tangent()
	c := &PRCC[T]{
		W:    autodiff.NewParam[T](name+".weight", classes, d),
		B:    autodiff.NewParam[T](name+".bias", 1, classes),
		Tau0: autodiff.NewParam[T](name+".tau0", 1, 1),
		Dims: dims,
	}
	c.Tau0.Value.Data[0] = T(PRCCTau0Init)
	sd := 1 / math.Sqrt(float64(d))
	w := make([]float64, d)
	for k := 0; k < classes; k++ {
		for try := 0; ; try++ {
			for j := range w {
				w[j] = sd * rng.NormFloat64()
			}
			q, n2 := 0.0, 0.0
			for j, v := range w {
				n2 += v * v
				if j < dims.T {
					q -= v * v
				} else {
					q += v * v
				}
			}
			if math.Abs(q) >= 0.25*n2 || try >= 1000 {
				break
			}
		}
		for j, v := range w {
			c.W.Value.Data[k*d+j] = T(v)
		}
	}
	return c
}

// SetScale sets τ₀ so that softplus(τ₀) = s: at β = −1 the logits then
// start as s·Align + b. Align is a (pseudo-)cosine, about ±1 for most
// capsules, so s bounds how far apart the logits can start; like the scale
// of any cosine classifier it decides how hard the loss pushes on examples
// already classified correctly. s must be positive and finite.
func (c *PRCC[T]) SetScale(s float64) error {
	if !(s > 0) || math.IsInf(s, 0) {
		return fmt.Errorf("capsule: PRCC scale %v must be positive and finite", s)
	}
	// softplus⁻¹(s) = log(eˢ − 1) = s + log(1 − e⁻ˢ), stable for large s.
	c.Tau0.Value.Data[0] = T(s + math.Log(-math.Expm1(-s)))
	return nil
}

// tau records τ = softplus(τ₀)·r, r = √|β|.
func (c *PRCC[T]) tau(t *autodiff.Tape[T], beta *autodiff.Var[T]) *autodiff.Var[T] {
	return autodiff.Mul(t, autodiff.Softplus(t, c.Tau0), manifold.RadiusOp(t, beta))
}

// Forward records the logits of N capsules: v is N×D (points of Q), beta the
// 1×1 manifold curvature; the result is N×classes.
func (c *PRCC[T]) Forward(t *autodiff.Tape[T], v, beta *autodiff.Var[T]) *autodiff.Var[T] {
	return c.ForwardTangent(t, manifold.LogO(t, v, beta, c.Dims), beta)
}

// ForwardTangent is Forward given z = loĝ_o(v) (N×d, as
// Routing.ForwardTangent returns it).
func (c *PRCC[T]) ForwardTangent(t *autodiff.Tape[T], z, beta *autodiff.Var[T]) *autodiff.Var[T] {
	a := manifold.Align(t, z, c.W, c.Dims)
	return autodiff.Add(t, autodiff.MulScalarVar(t, a, c.tau(t, beta)), c.B)
}

// ForwardPerClass records the logits of graph classification (DESIGN §5
// "Graph classification network"): v is (G·classes)×D, its row g·C+c the
// class-c capsule of graph g, and logit[g][c] = τ·Align(z_{g,c}, w_c) + b_c,
// so the result is G×classes.
func (c *PRCC[T]) ForwardPerClass(t *autodiff.Tape[T], v, beta *autodiff.Var[T]) *autodiff.Var[T] {
	return c.ForwardPerClassTangent(t, manifold.LogO(t, v, beta, c.Dims), beta)
}

// ForwardPerClassTangent is ForwardPerClass given z = loĝ_o(v) ((G·classes)
// × d, as GraphRouting.ForwardTangent returns it).
func (c *PRCC[T]) ForwardPerClassTangent(t *autodiff.Tape[T], z, beta *autodiff.Var[T]) *autodiff.Var[T] {
	a := manifold.AlignPerClass(t, z, c.W, c.Dims)
	return autodiff.Add(t, autodiff.MulScalarVar(t, a, c.tau(t, beta)), c.B)
}

// Params lists the classifier's parameters.
func (c *PRCC[T]) Params() []*autodiff.Var[T] { return []*autodiff.Var[T]{c.W, c.B, c.Tau0} }

// TangentLinear is the "Linear" classifier ablation (paper Table 5, DESIGN §5
// "Variant Linear"): logits = Linear(loĝ_o(v)) — the tangent coordinates at
// the pole (Eq. tangent_space_mapping) go through an ordinary affine layer,
// with no pseudo-metric and no curvature weighting.
type TangentLinear[T autodiff.Float] struct {
	Lin  *nn.Linear[T] // d×classes, PyTorch nn.Linear initialisation
	Dims manifold.Dims
}

// NewTangentLinear returns a TangentLinear for capsules on Q_{s,t}.
func NewTangentLinear[T autodiff.Float](name string, dims manifold.Dims, classes int, rng *rand.Rand) *TangentLinear[T] {
	dims.Validate()
	return &TangentLinear[T]{Lin: nn.NewLinear[T](name, dims.Tangent(), classes, true, rng), Dims: dims}
}

// Forward records Linear(loĝ_o(v)) for v of N×D; the result is N×classes.
func (c *TangentLinear[T]) Forward(t *autodiff.Tape[T], v, beta *autodiff.Var[T]) *autodiff.Var[T] {
	return c.ForwardTangent(t, manifold.LogO(t, v, beta, c.Dims))
}

// ForwardTangent is Forward given z = loĝ_o(v) (N×d).
func (c *TangentLinear[T]) ForwardTangent(t *autodiff.Tape[T], z *autodiff.Var[T]) *autodiff.Var[T] {
	return c.Lin.Forward(t, z)
}

// ForwardPerClass is the per-class-capsule form (graph classification): v is
// (G·C)×D and logit[g][c] = ⟨z_{g,c}, W[:,c]⟩ + b_c, the class-c column of
// the linear layer applied to graph g's class-c capsule only.
func (c *TangentLinear[T]) ForwardPerClass(t *autodiff.Tape[T], v, beta *autodiff.Var[T]) *autodiff.Var[T] {
	return c.ForwardPerClassTangent(t, manifold.LogO(t, v, beta, c.Dims))
}

// ForwardPerClassTangent is ForwardPerClass given z = loĝ_o(v) ((G·C) × d,
// as GraphRouting.ForwardTangent returns it).
func (c *TangentLinear[T]) ForwardPerClassTangent(t *autodiff.Tape[T], z *autodiff.Var[T]) *autodiff.Var[T] {
	m := autodiff.MatMul(t, z, c.Lin.W)
	return c.Lin.AddBias(t, prccPick(t, m))
}

// Params lists the classifier's parameters.
func (c *TangentLinear[T]) Params() []*autodiff.Var[T] { return c.Lin.Params() }
