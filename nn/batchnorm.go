package nn

import "github.com/prcaps/prcaps/autodiff"

// BatchNorm normalises each feature over the rows of a mini-batch (the
// nodes of a batch of graphs), PyTorch's nn.BatchNorm1d: Gamma and Beta
// (1×features, initialised to 1 and 0) are trained; RunningMean and
// RunningVar (initialised to 0 and 1) are buffers that training moves by
// Momentum and evaluation normalises with. List the buffers in a model
// group with Buffer set, so that the optimiser leaves them alone and
// snapshots keep them.
type BatchNorm[T autodiff.Float] struct {
	Gamma, Beta             *autodiff.Var[T]
	RunningMean, RunningVar *autodiff.Var[T]
	Eps, Momentum           float64
}

// NewBatchNorm returns a BatchNorm over rows of width features with
// PyTorch's defaults (eps 1e-5, momentum 0.1).
func NewBatchNorm[T autodiff.Float](name string, features int) *BatchNorm[T] {
	bn := &BatchNorm[T]{
		Gamma:       autodiff.NewParam[T](name+".weight", 1, features),
		Beta:        autodiff.NewParam[T](name+".bias", 1, features),
		RunningMean: autodiff.NewParam[T](name+".running_mean", 1, features),
		RunningVar:  autodiff.NewParam[T](name+".running_var", 1, features),
		Eps:         autodiff.BatchNormEps,
		Momentum:    0.1,
	}
	Fill(bn.Gamma, 1)
	Fill(bn.RunningVar, 1)
	return bn
}

// Forward records the normalisation on t: batch statistics in training
// (which also moves the running ones), running statistics otherwise.
func (bn *BatchNorm[T]) Forward(t *autodiff.Tape[T], x *autodiff.Var[T], training bool) *autodiff.Var[T] {
	st := autodiff.BatchStats[T]{Mean: bn.RunningMean.Value.Data, Var: bn.RunningVar.Value.Data, Momentum: bn.Momentum}
	return autodiff.BatchNorm(t, x, bn.Gamma, bn.Beta, &st, bn.Eps, training)
}

// Params lists the trained parameters.
func (bn *BatchNorm[T]) Params() []*autodiff.Var[T] { return []*autodiff.Var[T]{bn.Gamma, bn.Beta} }

// Buffers lists the running statistics.
func (bn *BatchNorm[T]) Buffers() []*autodiff.Var[T] {
	return []*autodiff.Var[T]{bn.RunningMean, bn.RunningVar}
}
