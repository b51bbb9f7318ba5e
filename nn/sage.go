package nn

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// NeighborMeanInto builds the mean over in-neighbours, without the node
// itself (GraphSAGE's mean aggregator), into a's slices: row v holds
// 1/deg(v) at each in-neighbour of v, and is empty (a zero mean) for a node
// without in-neighbours. A self-loop in the graph counts as a neighbour.
func NeighborMeanInto[T autodiff.Float](a *tensor.CSR[T], n int, ptr, src []int32) {
	a.Rows, a.Cols = n, n
	a.Indptr = append(a.Indptr[:0], ptr[:n+1]...)
	a.Indices = append(a.Indices[:0], src[:ptr[n]]...)
	if cap(a.Data) < len(a.Indices) {
		a.Data = make([]T, len(a.Indices))
	}
	a.Data = a.Data[:len(a.Indices)]
	for v := 0; v < n; v++ {
		lo, hi := ptr[v], ptr[v+1]
		for p := lo; p < hi; p++ {
			a.Data[p] = T(1 / float64(hi-lo))
		}
	}
}

// SAGEConv is GraphSAGE's layer with the mean aggregator (Hamilton et al.
// 2017) in PyG's form: out = mean_{j∈N(i)} h_j · W_nb + b + h_i · W_self,
// with the neighbour mean from NeighborMeanInto. Both weights are
// initialised like PyTorch's nn.Linear; only the neighbour term has a bias,
// as in PyG's SAGEConv.
type SAGEConv[T autodiff.Float] struct {
	Neighbors *Linear[T] // W_nb, b
	Self      *Linear[T] // W_self, no bias
}

// NewSAGEConv returns a SAGEConv from in to out features.
func NewSAGEConv[T autodiff.Float](name string, in, out int, rng *rand.Rand) *SAGEConv[T] {
	return &SAGEConv[T]{
		Neighbors: NewLinear[T](name+".lin_l", in, out, true, rng),
		Self:      NewLinear[T](name+".lin_r", in, out, false, rng),
	}
}

// Forward records the layer for dense h over the neighbour-mean operator
// mean (NeighborMeanInto).
func (c *SAGEConv[T]) Forward(t *autodiff.Tape[T], mean *tensor.Adjacency[T], h *autodiff.Var[T]) *autodiff.Var[T] {
	nb := c.Neighbors.AddBias(t, autodiff.GraphAggregate(t, mean, autodiff.MatMul(t, h, c.Neighbors.W)))
	return autodiff.Add(t, nb, c.Self.Forward(t, h))
}

// ForwardSparse records the layer for sparse constant features x (kept
// with their transpose, see SparseInput). The mean is taken after the
// projection, mean(x)·W = mean(x·W), so the wide input is touched once.
func (c *SAGEConv[T]) ForwardSparse(t *autodiff.Tape[T], mean *tensor.Adjacency[T], x *tensor.Adjacency[T]) *autodiff.Var[T] {
	nb := c.Neighbors.AddBias(t, autodiff.GraphAggregate(t, mean, autodiff.SpMMTransposed(t, x, c.Neighbors.W)))
	return autodiff.Add(t, nb, c.Self.ForwardSparse(t, x))
}

// Params lists the layer's parameters.
func (c *SAGEConv[T]) Params() []*autodiff.Var[T] {
	return append(c.Neighbors.Params(), c.Self.Params()...)
}
