package nn

import (
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/tensor"
)

// QGCNConv is the graph convolution of Q-GCN (Xiong et al. 2022,
// "Pseudo-Riemannian Graph Convolutional Networks"), HGCN's layer carried
// to the pseudo-hyperboloid Q_{s,t}^β with the diffeomorphic maps at the
// pole o (package manifold). For points x on the input manifold:
//
//	HypLinear:  h₁ = Proj_Q(exp̂_o(loĝ_o(x)·W + b))
//	HypAgg:     h₂ = Proj_Q(exp̂_o(Â·loĝ_o(h₁)))
//	HypAct:     y  = Proj_Q(exp̂_o(ReLU(loĝ_o(h₂))))
//
// with Â the row-normalised D̃⁻¹(A+I) (MeanAggInto), Q-GCN's default.
// y lies on Q with Dims (its tangent width is the layer's output width).
//
// One reading differs from the authors' code: their bias is a point moved
// to h₁ by parallel transport (HGCN's Möbius addition), which needs the
// general exponential map our package does not have; here b is added in the
// tangent space at o, before exp̂_o, as capsule.TangentGCN does.
type QGCNConv[T autodiff.Float] struct {
	W    *autodiff.Var[T] // in×d, Glorot with gain √2 (HGCN's init)
	B    *autodiff.Var[T] // 1×d, zero
	Dims manifold.Dims    // output manifold; d = Dims.Tangent()
}

// NewQGCNConv returns a QGCNConv from in tangent features to points on Q
// with dims. It panics on invalid dims, like manifold.Dims.Validate.
func NewQGCNConv[T autodiff.Float](name string, in int, dims manifold.Dims, rng *rand.Rand) *QGCNConv[T] {
	dims.Validate()
	d := dims.Tangent()
	c := &QGCNConv[T]{
		W:    autodiff.NewParam[T](name+".weight", in, d),
		B:    autodiff.NewParam[T](name+".bias", 1, d),
		Dims: dims,
	}
	Glorot(c.W, rng)
	for i := range c.W.Value.Data {
		c.W.Value.Data[i] *= T(math.Sqrt2)
	}
	return c
}

// Forward records the layer for points x (N×D_in on Q_in, curvature beta,
// 1×1; the input manifold has in = D_in − 1 tangent coordinates) and
// returns N×D points on the output Q.
func (c *QGCNConv[T]) Forward(t *autodiff.Tape[T], adj *tensor.Adjacency[T], x, beta *autodiff.Var[T], in manifold.Dims) *autodiff.Var[T] {
	return c.ForwardTangent(t, adj, manifold.LogO(t, x, beta, in), beta)
}

// ForwardTangent records the layer for inputs already in the tangent space
// at o: u = loĝ_o(x), N×in.
func (c *QGCNConv[T]) ForwardTangent(t *autodiff.Tape[T], adj *tensor.Adjacency[T], u, beta *autodiff.Var[T]) *autodiff.Var[T] {
	return c.rest(t, adj, autodiff.MatMul(t, u, c.W), beta)
}

// ForwardSparse records the layer for sparse constant input features read
// as tangent vectors at the pole (kept with their transpose, see
// SparseInput). Q-GCN maps its input features onto Q by exp̂_o and HypLinear
// maps them back by loĝ_o; that round trip is the identity unless a row's
// first T features (the time block) reach norm π·√|β|, where it wraps. For
// features in [0, 1] (bag-of-words, row-normalised) that needs
// |β| ≤ T/π², so at Q-GCN's fixed β = −1 with T < 9 the sparse path, which
// feeds the features to W directly, is exact.
func (c *QGCNConv[T]) ForwardSparse(t *autodiff.Tape[T], adj *tensor.Adjacency[T], x *tensor.Adjacency[T], beta *autodiff.Var[T]) *autodiff.Var[T] {
	return c.rest(t, adj, autodiff.SpMMTransposed(t, x, c.W), beta)
}

func (c *QGCNConv[T]) rest(t *autodiff.Tape[T], adj *tensor.Adjacency[T], uw, beta *autodiff.Var[T]) *autodiff.Var[T] {
	h := c.onQ(t, autodiff.Add(t, uw, c.B), beta)                                          // HypLinear
	h = c.onQ(t, autodiff.GraphAggregate(t, adj, manifold.LogO(t, h, beta, c.Dims)), beta) // HypAgg
	return c.onQ(t, autodiff.ReLU(t, manifold.LogO(t, h, beta, c.Dims)), beta)             // HypAct
}

// onQ records Proj_Q(exp̂_o(ξ)).
func (c *QGCNConv[T]) onQ(t *autodiff.Tape[T], xi, beta *autodiff.Var[T]) *autodiff.Var[T] {
	return manifold.ProjQ(t, manifold.ExpO(t, xi, beta, c.Dims), beta, c.Dims)
}

// Params lists the layer's parameters.
func (c *QGCNConv[T]) Params() []*autodiff.Var[T] { return []*autodiff.Var[T]{c.W, c.B} }
