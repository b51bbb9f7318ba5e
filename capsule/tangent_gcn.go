package capsule

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/tensor"
)

// TangentGCN is a pseudo-Riemannian graph convolution without routing, as in
// Q-GCN: the "PR only" ablation of DESIGN §5. Points x on Q (N×D) are mapped
// to the tangent space at the pole (Eq. diffeo_log_map), aggregated there by
// an ordinary GCN layer, activated, and mapped back (Eq. diffeo_exp_map):
//
//	z = loĝ_o(x),   h = Â z W + b,   y = Proj_Q(exp̂_o(σ(h))),
//
// Â = D^−½(A+I)D^−½ from GCNNorm. The output lies on the same Q_{s,t}^β.
type TangentGCN[T autodiff.Float] struct {
	W    *autodiff.Var[T] // d×d, nn.Glorot (as nn.GCNConv)
	B    *autodiff.Var[T] // 1×d, zero
	Dims manifold.Dims
	// Act is the tangent activation σ; NewTangentGCN sets ActSquash, the
	// routing layers' default (DESIGN §5 step 4), so that the ablation
	// differs from the full model only by the missing routing.
	Act manifold.Activation
}

// NewTangentGCN returns a TangentGCN on Q_{s,t} (dims).
func NewTangentGCN[T autodiff.Float](name string, dims manifold.Dims, rng *rand.Rand) *TangentGCN[T] {
	dims.Validate()
	d := dims.Tangent()
	g := &TangentGCN[T]{
		W:    autodiff.NewParam[T](name+".weight", d, d),
		B:    autodiff.NewParam[T](name+".bias", 1, d),
		Dims: dims,
		Act:  manifold.ActSquash,
	}
	nn.Glorot(g.W, rng)
	return g
}

// Forward records the layer for points x (N×D on Q with curvature beta,
// 1×1) over the normalised adjacency adj (GCNNorm) and returns N×D points on
// Q. Gradients flow into x, β, W and b.
func (g *TangentGCN[T]) Forward(t *autodiff.Tape[T], x, beta *autodiff.Var[T], adj *tensor.Adjacency[T]) *autodiff.Var[T] {
	return manifold.ProjQ(t, manifold.ExpO(t, g.activation(t, manifold.LogO(t, x, beta, g.Dims), adj), beta, g.Dims), beta, g.Dims)
}

// ForwardTangent is Forward with the points given and returned as their
// tangent coordinates at the pole: z = loĝ_o(x) (N×d) in, loĝ_o(y) out,
// which is the exact wrap of σ(h) (manifold.LogExpO), so no point of Q is
// formed.
func (g *TangentGCN[T]) ForwardTangent(t *autodiff.Tape[T], z, beta *autodiff.Var[T], adj *tensor.Adjacency[T]) *autodiff.Var[T] {
	return manifold.LogExpO(t, g.activation(t, z, adj), beta, g.Dims)
}

// activation records σ(Â z W + b).
func (g *TangentGCN[T]) activation(t *autodiff.Tape[T], z *autodiff.Var[T], adj *tensor.Adjacency[T]) *autodiff.Var[T] {
	h := autodiff.Add(t, autodiff.GraphAggregate(t, adj, autodiff.MatMul(t, z, g.W)), g.B)
	return manifold.TangentActivation(t, h, g.Act)
}

// Params lists the layer's parameters.
func (g *TangentGCN[T]) Params() []*autodiff.Var[T] { return []*autodiff.Var[T]{g.W, g.B} }
