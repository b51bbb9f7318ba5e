package nn

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// GINConv is the graph isomorphism layer of Xu et al. (2019, eq. 4.1),
// h'_v = MLP((1 + ε)·h_v + Σ_{u ∈ N(v)} h_u), with the two-layer MLP of the
// authors' code: Linear → BatchNorm → ReLU → Linear. The sum runs on an
// operator from SumOperatorInto, which holds ε (0 for GIN-0).
type GINConv[T autodiff.Float] struct {
	Lin1 *Linear[T]
	Norm *BatchNorm[T]
	Lin2 *Linear[T]
}

// NewGINConv returns a layer from in to out features through hidden ones,
// initialised like PyTorch's nn.Linear.
func NewGINConv[T autodiff.Float](name string, in, hidden, out int, rng *rand.Rand) *GINConv[T] {
	return &GINConv[T]{
		Lin1: NewLinear[T](name+".mlp.0", in, hidden, true, rng),
		Norm: NewBatchNorm[T](name+".mlp.1", hidden),
		Lin2: NewLinear[T](name+".mlp.3", hidden, out, true, rng),
	}
}

// Forward records the layer on dense h. The sum is taken after the first
// product, (A + (1+ε)I)·(h·W₁), which equals the MLP of the sum.
func (c *GINConv[T]) Forward(t *autodiff.Tape[T], sum *tensor.Adjacency[T], h *autodiff.Var[T], training bool) *autodiff.Var[T] {
	return c.mlp(t, autodiff.GraphAggregate(t, sum, autodiff.MatMul(t, h, c.Lin1.W)), training)
}

// ForwardSparse records the layer on sparse constant features x (kept
// with their transpose, see SparseInput).
func (c *GINConv[T]) ForwardSparse(t *autodiff.Tape[T], sum *tensor.Adjacency[T], x *tensor.Adjacency[T], training bool) *autodiff.Var[T] {
	return c.mlp(t, autodiff.GraphAggregate(t, sum, autodiff.SpMMTransposed(t, x, c.Lin1.W)), training)
}

func (c *GINConv[T]) mlp(t *autodiff.Tape[T], z *autodiff.Var[T], training bool) *autodiff.Var[T] {
	z = autodiff.ReLU(t, c.Norm.Forward(t, c.Lin1.AddBias(t, z), training))
	return c.Lin2.Forward(t, z)
}

// Params lists the layer's trained parameters.
func (c *GINConv[T]) Params() []*autodiff.Var[T] {
	return append(append(c.Lin1.Params(), c.Norm.Params()...), c.Lin2.Params()...)
}

// Buffers lists the batch norm's running statistics.
func (c *GINConv[T]) Buffers() []*autodiff.Var[T] { return c.Norm.Buffers() }

// SumOperatorInto sets dst to GIN's sum operator A + (1+eps)·I of the graph
// on n nodes given CSR by target (in-neighbours src[ptr[v]:ptr[v+1]],
// sorted): weight 1 per arc and 1+eps on the diagonal, added to a self
// loop the graph already has. dst's buffers are reused.
func SumOperatorInto[T autodiff.Float](dst *tensor.CSR[T], n int, ptr, src []int32, eps float64) {
	dst.Rows, dst.Cols = n, n
	dst.Indptr = append(dst.Indptr[:0], 0)
	dst.Indices, dst.Data = dst.Indices[:0], dst.Data[:0]
	self := T(1 + eps)
	for v := 0; v < n; v++ {
		placed := false
		for _, u := range src[ptr[v]:ptr[v+1]] {
			if !placed && int(u) >= v {
				placed = true
				if int(u) == v {
					dst.Indices, dst.Data = append(dst.Indices, u), append(dst.Data, self+1)
					continue
				}
				dst.Indices, dst.Data = append(dst.Indices, int32(v)), append(dst.Data, self)
			}
			dst.Indices, dst.Data = append(dst.Indices, u), append(dst.Data, 1)
		}
		if !placed {
			dst.Indices, dst.Data = append(dst.Indices, int32(v)), append(dst.Data, self)
		}
		dst.Indptr = append(dst.Indptr, int32(len(dst.Indices)))
	}
}
