package optim

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Optimizer is what a training loop needs from an optimiser, independent of
// the element type.
type Optimizer interface {
	// Step updates every trainable parameter from its accumulated gradient.
	// It does not zero the gradients.
	Step() error
	// ZeroGrad zeroes the gradients of all parameters, frozen ones included
	// (leaves accumulate gradients until zeroed).
	ZeroGrad()
	// LR returns the base learning rate.
	LR() float64
	// SetLR sets the base learning rate, e.g. from a Schedule; each group
	// steps with LR()·LRScale.
	SetLR(lr float64)
	// Reset forgets all optimiser state (moments and step counts), as if the
	// optimiser had just been built.
	Reset()
}

// Config holds the hyper-parameters shared by all groups. Zero LR, Beta1,
// Beta2 and Eps take PyTorch's defaults (1e-3, 0.9, 0.999, 1e-8); zero
// WeightDecay means no decay (also for AdamW, whose PyTorch default is 1e-2:
// pass it explicitly).
type Config struct {
	LR          float64 // base learning rate
	Beta1       float64 // decay rate of the first moment, in [0, 1)
	Beta2       float64 // decay rate of the second moment, in [0, 1)
	Eps         float64 // added to the denominator after the square root
	WeightDecay float64 // L2 (Adam, RiemannianAdam) or decoupled (AdamW) decay
	// AMSGrad uses the running maximum of the second moment in the
	// denominator (Reddi et al.; torch's and geoopt's amsgrad flag).
	AMSGrad bool
	// Stabilize (RiemannianAdam only) re-projects manifold parameters, and
	// their first moments when the Manifold is a TangentProjector, every
	// Stabilize steps (geoopt's stabilize; 0 = never). Points are also
	// projected before every step, as geoopt does.
	Stabilize int
}

// DefaultConfig returns PyTorch's Adam defaults.
func DefaultConfig() Config {
	return Config{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
}

// withDefaults fills zero fields with PyTorch's defaults and validates.
func (c Config) withDefaults() (Config, error) {
	d := DefaultConfig()
	if c.LR == 0 {
		c.LR = d.LR
	}
	if c.Beta1 == 0 {
		c.Beta1 = d.Beta1
	}
	if c.Beta2 == 0 {
		c.Beta2 = d.Beta2
	}
	if c.Eps == 0 {
		c.Eps = d.Eps
	}
	switch {
	case !(c.LR >= 0) || math.IsInf(c.LR, 0):
		return c, fmt.Errorf("optim: invalid learning rate %v", c.LR)
	case !(c.Beta1 >= 0 && c.Beta1 < 1):
		return c, fmt.Errorf("optim: invalid Beta1 %v, want [0, 1)", c.Beta1)
	case !(c.Beta2 >= 0 && c.Beta2 < 1):
		return c, fmt.Errorf("optim: invalid Beta2 %v, want [0, 1)", c.Beta2)
	case !(c.Eps > 0) || math.IsInf(c.Eps, 0):
		return c, fmt.Errorf("optim: invalid Eps %v", c.Eps)
	case !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0):
		return c, fmt.Errorf("optim: invalid WeightDecay %v", c.WeightDecay)
	case c.Stabilize < 0:
		return c, fmt.Errorf("optim: invalid Stabilize %d", c.Stabilize)
	}
	return c, nil
}

// Group is a set of parameters that share per-group settings, like one of
// PyTorch's param_groups.
type Group[T tensor.Float] struct {
	// Name identifies the group in error messages (optional).
	Name string
	// Params are trainable leaves (autodiff.NewParam).
	Params []*autodiff.Var[T]
	// LRScale multiplies the base learning rate for this group, so that a
	// schedule moves all groups together (as PyTorch's schedulers scale each
	// group's initial lr). 0 means 1; use Frozen to stop a group.
	LRScale float64
	// NoWeightDecay turns weight decay off for this group (biases, norms,
	// curvatures).
	NoWeightDecay bool
	// Frozen groups are not updated and their state does not advance; their
	// gradients are still zeroed by ZeroGrad.
	Frozen bool
	// Buffer groups hold state a model keeps beside its parameters and
	// updates itself (batch-norm running statistics): like Frozen groups
	// they are never updated by the optimiser or clipped, and
	// model.CountParams does not count them; snapshots and checkpoints
	// keep them with the parameters.
	Buffer bool
	// Manifold, when non-nil, is the geometry of every parameter of the
	// group (each row a point); nil means Euclidean. Only RiemannianAdam
	// accepts manifold groups.
	Manifold Manifold[T]
}

func (g *Group[T]) label(i int) string {
	if g.Name != "" {
		return fmt.Sprintf("group %q", g.Name)
	}
	return fmt.Sprintf("group %d", i)
}

// paramLabel names parameter j of a group in error messages.
func paramLabel[T tensor.Float](p *autodiff.Var[T], j int) string {
	if p.Name != "" {
		return fmt.Sprintf("parameter %q", p.Name)
	}
	return fmt.Sprintf("parameter %d", j)
}
