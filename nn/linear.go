package nn

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Linear is y = x·W + b with W of shape in×out and b a 1×out row (nil when
// the layer has no bias).
type Linear[T autodiff.Float] struct {
	W, B *autodiff.Var[T]
}

// NewLinear returns a Linear layer initialised like PyTorch's nn.Linear
// (weights and bias from U(±1/√in)).
func NewLinear[T autodiff.Float](name string, in, out int, bias bool, rng *rand.Rand) *Linear[T] {
	l := &Linear[T]{W: autodiff.NewParam[T](name+".weight", in, out)}
	TorchLinear(l.W, in, rng)
	if bias {
		l.B = autodiff.NewParam[T](name+".bias", 1, out)
		TorchLinear(l.B, in, rng)
	}
	return l
}

// Forward records x·W + b on t.
func (l *Linear[T]) Forward(t *autodiff.Tape[T], x *autodiff.Var[T]) *autodiff.Var[T] {
	return l.AddBias(t, autodiff.MatMul(t, x, l.W))
}

// ForwardSparse records x·W + b for a sparse constant input x kept with its
// transpose (see SparseInput): only the non-zeros of x are touched.
func (l *Linear[T]) ForwardSparse(t *autodiff.Tape[T], x *tensor.Adjacency[T]) *autodiff.Var[T] {
	return l.AddBias(t, autodiff.SpMMTransposed(t, x, l.W))
}

// AddBias records y + b, or returns y when the layer has no bias.
func (l *Linear[T]) AddBias(t *autodiff.Tape[T], y *autodiff.Var[T]) *autodiff.Var[T] {
	if l.B == nil {
		return y
	}
	return autodiff.Add(t, y, l.B)
}

// Params lists the layer's parameters.
func (l *Linear[T]) Params() []*autodiff.Var[T] {
	if l.B == nil {
		return []*autodiff.Var[T]{l.W}
	}
	return []*autodiff.Var[T]{l.W, l.B}
}

// LayerNorm normalises each row to zero mean and unit variance, then scales
// by Gamma and shifts by Beta (both 1×features, initialised to 1 and 0 as in
// PyTorch).
type LayerNorm[T autodiff.Float] struct {
	Gamma, Beta *autodiff.Var[T]
	Eps         float64
}

// NewLayerNorm returns a LayerNorm over rows of width features.
func NewLayerNorm[T autodiff.Float](name string, features int) *LayerNorm[T] {
	ln := &LayerNorm[T]{
		Gamma: autodiff.NewParam[T](name+".weight", 1, features),
		Beta:  autodiff.NewParam[T](name+".bias", 1, features),
		Eps:   1e-5,
	}
	Fill(ln.Gamma, 1)
	return ln
}

// Forward records the normalisation on t.
func (ln *LayerNorm[T]) Forward(t *autodiff.Tape[T], x *autodiff.Var[T]) *autodiff.Var[T] {
	return autodiff.LayerNorm(t, x, ln.Gamma, ln.Beta, ln.Eps)
}

// Params lists the layer's parameters.
func (ln *LayerNorm[T]) Params() []*autodiff.Var[T] { return []*autodiff.Var[T]{ln.Gamma, ln.Beta} }
