package nn

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// GPSLayer is one layer of GraphGPS (Rampášek et al. 2022, §3.3: X_M =
// MPNN(X, A), X_T = GlobalAttn(X), X' = MLP(X_M + X_T)) as
// graphgps/layer/gps_layer.py builds it: the local message-passing layer
// and global attention side by side on the same input X, each with
// dropout, a residual connection and a normalisation, summed, then a
// two-layer feed-forward block with its own residual and normalisation:
//
//	X_M = Norm(X + Dropout(MPNN(X, A)))
//	X_T = Norm(X + Dropout(GlobalAttn(X)))
//	X'  = Norm(S + Dropout(W₂ Dropout(σ(W₁ S)))),  S = X_M + X_T
//
// W₁ widens to 2·dim, σ is GELU. The local MPNN is GCNConv over the
// normalised adjacency D^−½(A+I)D^−½: GraphGPS offers several (GatedGCN,
// GINE, GAT, PNA, GCN, ...); the citation graphs have no edge features,
// which the edge-aware ones exist for, and its own configurations for Cora
// use GCN (layer_type GCN+Transformer). GraphGPS normalises with
// BatchNorm by default; this package has no BatchNorm, so the norms here
// are LayerNorm, or none (nil), as GraphGPS's Cora configurations set.
type GPSLayer[T autodiff.Float] struct {
	Local                        *GCNConv[T]
	Attn                         *MultiHeadAttention[T]
	FF1, FF2                     *Linear[T]
	Norm1Local, Norm1Attn, Norm2 *LayerNorm[T] // nil: no normalisation
	Dropout                      float64
}

// NewGPSLayer returns a layer of width dim with heads attention heads, a
// Performer kernel when performer is set, LayerNorms when norm is set,
// dropout on the branches and the feed-forward block and attnDropout in
// the attention. Its parameters are named name.local.weight,
// name.attn.in_proj.weight, name.norm1_local.weight, name.ff1.weight, ….
func NewGPSLayer[T autodiff.Float](name string, dim, heads int, norm, performer bool, dropout, attnDropout float64, rng *rand.Rand) *GPSLayer[T] {
	l := &GPSLayer[T]{
		Local:   NewGCNConv[T](name+".local", dim, dim, rng),
		Attn:    NewMultiHeadAttention[T](name+".attn", dim, heads, attnDropout, performer, rng),
		FF1:     NewLinear[T](name+".ff1", dim, 2*dim, true, rng),
		FF2:     NewLinear[T](name+".ff2", 2*dim, dim, true, rng),
		Dropout: dropout,
	}
	if norm {
		l.Norm1Local = NewLayerNorm[T](name+".norm1_local", dim)
		l.Norm1Attn = NewLayerNorm[T](name+".norm1_attn", dim)
		l.Norm2 = NewLayerNorm[T](name+".norm2", dim)
	}
	return l
}

// Params lists the layer's trained parameters (not the attention's random
// features).
func (l *GPSLayer[T]) Params() []*autodiff.Var[T] {
	ps := append(l.Local.Params(), l.Attn.Params()...)
	ps = append(ps, l.FF1.Params()...)
	ps = append(ps, l.FF2.Params()...)
	for _, n := range []*LayerNorm[T]{l.Norm1Local, l.Norm1Attn, l.Norm2} {
		if n != nil {
			ps = append(ps, n.Params()...)
		}
	}
	return ps
}

// Forward records the layer on x (nodes × dim) over the GCN operator adj;
// performer selects FAVOR+ attention. Dropout draws from rng in training.
func (l *GPSLayer[T]) Forward(t *autodiff.Tape[T], adj *tensor.Adjacency[T], x *autodiff.Var[T], performer, training bool, rng *rand.Rand) *autodiff.Var[T] {
	return l.forward(t, adj, x, nil, performer, training, rng)
}

// ForwardSegments is Forward with exact attention within each segment of
// rows (each graph of a batch; see MultiHeadAttention.ForwardSegments).
func (l *GPSLayer[T]) ForwardSegments(t *autodiff.Tape[T], adj *tensor.Adjacency[T], x *autodiff.Var[T], seg []int32, training bool, rng *rand.Rand) *autodiff.Var[T] {
	return l.forward(t, adj, x, seg, false, training, rng)
}

func (l *GPSLayer[T]) forward(t *autodiff.Tape[T], adj *tensor.Adjacency[T], x *autodiff.Var[T], seg []int32, performer, training bool, rng *rand.Rand) *autodiff.Var[T] {
	hl := autodiff.Dropout(t, l.Local.Forward(t, adj, x), l.Dropout, rng, training)
	hl = norm(t, l.Norm1Local, autodiff.Add(t, x, hl))
	ha := autodiff.Dropout(t, l.Attn.forward(t, x, seg, performer, training, rng), l.Dropout, rng, training)
	ha = norm(t, l.Norm1Attn, autodiff.Add(t, x, ha))
	s := autodiff.Add(t, hl, ha)
	f := autodiff.Dropout(t, GELU(t, l.FF1.Forward(t, s)), l.Dropout, rng, training)
	f = autodiff.Dropout(t, l.FF2.Forward(t, f), l.Dropout, rng, training)
	return norm(t, l.Norm2, autodiff.Add(t, s, f))
}

// norm applies n, or nothing when n is nil.
func norm[T autodiff.Float](t *autodiff.Tape[T], n *LayerNorm[T], x *autodiff.Var[T]) *autodiff.Var[T] {
	if n == nil {
		return x
	}
	return n.Forward(t, x)
}
