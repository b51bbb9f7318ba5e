package nn

import (
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// GCNNorm builds GCN's propagation operator Â = D^−½ (A + I) D^−½ for the
// graph on n nodes whose in-neighbours of v are src[ptr[v]:ptr[v+1]] (CSR by
// target, sorted, no duplicates). Self-loops are added where missing, as
// PyG's gcn_norm does (add_remaining_self_loops), and degrees count in-arcs
// including the self-loop. The result is CSR by target with its transpose.
func GCNNorm[T autodiff.Float](n int, ptr, src []int32) *tensor.Adjacency[T] {
	a := &tensor.CSR[T]{Rows: n, Cols: n, Indptr: make([]int32, n+1)}
	a.Indices = make([]int32, 0, len(src)+n)
	for v := 0; v < n; v++ {
		nbrs := src[ptr[v]:ptr[v+1]]
		inserted := false
		for _, u := range nbrs {
			if !inserted && u >= int32(v) {
				if u != int32(v) {
					a.Indices = append(a.Indices, int32(v))
				}
				inserted = true
			}
			a.Indices = append(a.Indices, u)
		}
		if !inserted {
			a.Indices = append(a.Indices, int32(v))
		}
		a.Indptr[v+1] = int32(len(a.Indices))
	}
	deg := make([]float64, n)
	for v := 0; v < n; v++ {
		deg[v] = float64(a.Indptr[v+1] - a.Indptr[v])
	}
	a.Data = make([]T, len(a.Indices))
	for v := 0; v < n; v++ {
		for p := a.Indptr[v]; p < a.Indptr[v+1]; p++ {
			u := a.Indices[p]
			a.Data[p] = T(1 / math.Sqrt(deg[v]*deg[u]))
		}
	}
	return tensor.NewAdjacency(a)
}

// GCNConv is Kipf & Welling's graph convolution with PyG semantics:
// out = Â (x·W) + b, Â from GCNNorm, W Glorot-initialised, b zero.
type GCNConv[T autodiff.Float] struct {
	W, B *autodiff.Var[T]
}

// NewGCNConv returns a GCNConv from in to out features, with a bias.
func NewGCNConv[T autodiff.Float](name string, in, out int, rng *rand.Rand) *GCNConv[T] {
	c := &GCNConv[T]{
		W: autodiff.NewParam[T](name+".weight", in, out),
		B: autodiff.NewParam[T](name+".bias", 1, out),
	}
	Glorot(c.W, rng)
	return c
}

// Forward records Â (x·W) + b for dense x.
func (c *GCNConv[T]) Forward(t *autodiff.Tape[T], adj *tensor.Adjacency[T], x *autodiff.Var[T]) *autodiff.Var[T] {
	return c.propagate(t, adj, autodiff.MatMul(t, x, c.W))
}

// ForwardSparse records Â (x·W) + b for sparse constant features x, kept
// with their transpose (see SparseInput) so the backward pass is a
// row-parallel SpMM.
func (c *GCNConv[T]) ForwardSparse(t *autodiff.Tape[T], adj *tensor.Adjacency[T], x *tensor.Adjacency[T]) *autodiff.Var[T] {
	return c.propagate(t, adj, autodiff.SpMMTransposed(t, x, c.W))
}

func (c *GCNConv[T]) propagate(t *autodiff.Tape[T], adj *tensor.Adjacency[T], h *autodiff.Var[T]) *autodiff.Var[T] {
	return autodiff.Add(t, autodiff.GraphAggregate(t, adj, h), c.B)
}

// Params lists the layer's parameters.
func (c *GCNConv[T]) Params() []*autodiff.Var[T] { return []*autodiff.Var[T]{c.W, c.B} }
