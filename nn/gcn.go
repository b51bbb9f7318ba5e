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
	a := &tensor.CSR[T]{}
	var deg []float64
	GCNNormInto(a, n, ptr, src, &deg)
	return tensor.NewAdjacency(a)
}

// GCNNormInto is GCNNorm's operator built into a's slices (and deg as
// scratch), reusing their storage: graph mini-batches rebuild it every step
// without allocating once warm. On a block-diagonal batch it equals the
// per-graph operators side by side.
func GCNNormInto[T autodiff.Float](a *tensor.CSR[T], n int, ptr, src []int32, deg *[]float64) {
	a.Rows, a.Cols = n, n
	a.Indptr, a.Indices = AppendSelfLoops(a.Indptr[:0], a.Indices[:0], n, ptr, src)
	if cap(*deg) < n {
		*deg = make([]float64, n)
	}
	dg := (*deg)[:n]
	for v := range dg {
		dg[v] = float64(a.Indptr[v+1] - a.Indptr[v])
	}
	if cap(a.Data) < len(a.Indices) {
		a.Data = make([]T, len(a.Indices))
	}
	a.Data = a.Data[:len(a.Indices)]
	for v := 0; v < n; v++ {
		for p := a.Indptr[v]; p < a.Indptr[v+1]; p++ {
			a.Data[p] = T(1 / math.Sqrt(dg[v]*dg[a.Indices[p]]))
		}
	}
}

// SumAggInto builds GIN's sum aggregation A + I (GIN-0: each node's own
// features plus its in-neighbours', every weight 1) into a's slices, with
// the structure GCNNormInto gives Â: self-loops where missing, CSR by
// target. Unlike Â it keeps counts: a carbon with three nitrogen
// neighbours sums to another row than one with a single nitrogen, where
// Â's degree normalisation makes the two nearly alike.
func SumAggInto[T autodiff.Float](a *tensor.CSR[T], n int, ptr, src []int32) {
	a.Rows, a.Cols = n, n
	a.Indptr, a.Indices = AppendSelfLoops(a.Indptr[:0], a.Indices[:0], n, ptr, src)
	if cap(a.Data) < len(a.Indices) {
		a.Data = make([]T, len(a.Indices))
	}
	a.Data = a.Data[:len(a.Indices)]
	for p := range a.Data {
		a.Data[p] = 1
	}
}

// MeanAggInto builds the random-walk operator D̃^−1 Ã (Ã = A + I, self-loops
// where missing) into a's slices: each node's new row is the mean of its own
// and its in-neighbours' rows, DGCNN's propagation (Zhang et al. 2018).
func MeanAggInto[T autodiff.Float](a *tensor.CSR[T], n int, ptr, src []int32) {
	SumAggInto(a, n, ptr, src)
	for v := 0; v < n; v++ {
		lo, hi := a.Indptr[v], a.Indptr[v+1]
		for p := lo; p < hi; p++ {
			a.Data[p] = T(1 / float64(hi-lo))
		}
	}
}

// AppendSelfLoops appends to ptr and idx the CSR rows of the graph on n
// nodes (rows src[ptr0[v]:ptr0[v+1]], sorted, unique) with v inserted into
// row v where it is missing, keeping every row sorted. ptr gets n+1 entries
// (starting with len(idx) as given, normally 0). It is the structure of both
// GCN's Â and node-level routing links (each node its own child).
func AppendSelfLoops(ptr, idx []int32, n int, ptr0, src []int32) ([]int32, []int32) {
	ptr = append(ptr, int32(len(idx)))
	for v := 0; v < n; v++ {
		self := false
		for _, u := range src[ptr0[v]:ptr0[v+1]] {
			if !self && u >= int32(v) {
				if u != int32(v) {
					idx = append(idx, int32(v))
				}
				self = true
			}
			idx = append(idx, u)
		}
		if !self {
			idx = append(idx, int32(v))
		}
		ptr = append(ptr, int32(len(idx)))
	}
	return ptr, idx
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
	return autodiff.GraphConvSparse(t, adj, x, c.W, c.B)
}

func (c *GCNConv[T]) propagate(t *autodiff.Tape[T], adj *tensor.Adjacency[T], h *autodiff.Var[T]) *autodiff.Var[T] {
	return autodiff.GraphAggregateBias(t, adj, h, c.B)
}

// Params lists the layer's parameters.
func (c *GCNConv[T]) Params() []*autodiff.Var[T] { return []*autodiff.Var[T]{c.W, c.B} }
