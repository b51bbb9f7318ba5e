package nn

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// SparseInput holds a model's sparse input features X for SpMMTransposed
// and, once a pass asks for dropout, a copy of X's values for it: dropout
// on sparse inputs touches only the non-zeros, and the copy shares X's
// structure. For large X, where tensor.TransposedSpMM works from X's rows
// (float32 on AVX2), the backward pass of X·W needs nothing more; else X's
// transpose is kept too, and the dropout copy's transpose shares its
// structure, so that it is refreshed by a permutation of the values rather
// than rebuilt. The zero value is ready for Reset.
type SparseInput[T autodiff.Float] struct {
	clean, drop tensor.Adjacency[T]
	dropX       tensor.CSR[T]
	dropSet     bool // drop is paired with the current X (see Apply)
	rows        bool // no transposes: the backward pass reads X's rows
}

// NewSparseInput prepares x (not modified) for SpMM with dropout.
func NewSparseInput[T autodiff.Float](x *tensor.CSR[T]) *SparseInput[T] {
	s := &SparseInput[T]{}
	s.Reset(x)
	return s
}

// Reset points s at the features x (not modified), rebuilding the
// transposes, where they are kept, into s's storage: graph mini-batches
// change their features every step without allocating once warm.
func (s *SparseInput[T]) Reset(x *tensor.CSR[T]) {
	s.rows = tensor.TransposedSpMMInPlace[T]() && len(x.Data) == len(x.Indices) && len(x.Indices) >= rowsMinEntries
	if s.rows {
		s.clean = tensor.Adjacency[T]{A: x}
	} else {
		s.clean.Reset(x)
	}
	s.dropSet = false
}

// ResetForward points s at the features x (not modified) for passes that
// record no backward (a NoGrad tape): no transpose is built.
func (s *SparseInput[T]) ResetForward(x *tensor.CSR[T]) {
	s.rows = false
	s.clean.ResetForward(x)
	s.dropSet = false
}

// rowsMinEntries is the least number of non-zeros for which SparseInput
// keeps no transpose. Below it the kept transpose is the faster: the
// backward pass reads the rows of ∂(X·W) that it gathers from cache, and
// refreshing the dropped values' transpose costs little (Cora's 49k
// non-zeros: 0.14 ms a step with the transpose, 0.3 ms from X's rows).
// From about half a million non-zeros up (Coauthor CS's 1.1 million: 7.4
// against 6.0 ms) the refresh costs more than the row pass saves, and the
// three transposed arrays of the features and their dropout copy weigh
// tens of megabytes.
const rowsMinEntries = 1 << 19

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
			d.Data = tensor.Regrow(d.Data, len(x.Data))
		}
		d.Data = d.Data[:len(x.Data)]
		if s.rows {
			s.drop = tensor.Adjacency[T]{A: d}
		} else {
			s.drop.ResetLike(d, &s.clean)
		}
		s.dropSet = true
	}
	tensor.DropoutCSR(s.drop.A, s.clean.A, p, rng)
	if !s.rows {
		s.drop.SyncValues()
	}
	return &s.drop
}
