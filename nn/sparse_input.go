package nn

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// SparseInput holds a model's sparse input features X with the transpose
// that the backward pass of X·W needs (∂W = Xᵀ∂Y as a row-parallel SpMM),
// and, once a pass asks for dropout, a copy of X's values for it: dropout on
// sparse inputs touches only the non-zeros, the copy shares X's structure,
// and its transpose shares the structure of X's transpose, so that it is
// refreshed by a permutation of the values rather than rebuilt. The zero
// value is ready for Reset.
type SparseInput[T autodiff.Float] struct {
	clean, drop tensor.Adjacency[T]
	dropX       tensor.CSR[T]
	dropSet     bool // drop is paired with the current X (see Apply)
}

// NewSparseInput prepares x (not modified) for SpMM with dropout.
func NewSparseInput[T autodiff.Float](x *tensor.CSR[T]) *SparseInput[T] {
	s := &SparseInput[T]{}
	s.Reset(x)
	return s
}

// Reset points s at the features x (not modified), rebuilding the
// transposes into s's storage: graph mini-batches change their features
// every step without allocating once warm.
func (s *SparseInput[T]) Reset(x *tensor.CSR[T]) {
	s.clean.Reset(x)
	s.dropSet = false
}

// Cols is the feature dimension.
func (s *SparseInput[T]) Cols() int { return s.clean.A.Cols }

// Apply returns the features for one pass: X itself in evaluation mode or
// with p = 0, otherwise X with inverted dropout at rate p drawn from rng.
// The result is valid until the next call.
func (s *SparseInput[T]) Apply(p float64, rng *rand.Rand, training bool) *tensor.Adjacency[T] {
	if !training || p == 0 {
		return &s.clean
	}
	if !s.dropSet {
		x, d := s.clean.A, &s.dropX
		d.Rows, d.Cols, d.Indptr, d.Indices = x.Rows, x.Cols, x.Indptr, x.Indices
		if cap(d.Data) < len(x.Data) {
			d.Data = make([]T, len(x.Data))
		}
		d.Data = d.Data[:len(x.Data)]
		s.drop.ResetLike(d, &s.clean)
		s.dropSet = true
	}
	tensor.DropoutCSR(s.drop.A, s.clean.A, p, rng)
	s.drop.SyncValues()
	return &s.drop
}
