package capsule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Kind is what a node-level capsule layer does: one of PR-CapsNet's
// routing algorithms or one of the ablations that replace it (Table 4).
// It prints and parses as its command-line name.
type Kind uint8

const (
	// ACR is adaptive curvature routing (paper §"Adaptive Curvature
	// Routing", Algorithm 1): K perspectives with their own curvatures β_k,
	// fused by the curvature-aware gates of Eq. (gating_weights_new).
	ACR Kind = iota
	// PCR is pseudo-Riemannian capsule routing (paper §"Pseudo-Riemannian
	// Capsule Routing"): one perspective (K = 1), no gates (γ ≡ 1), and the
	// network's shared curvature β for the wrap of the predictions.
	PCR
	// Euclidean is classic dynamic routing in R^d, no manifold (the "Caps
	// only" ablation): EuclideanRouting.
	Euclidean
	// NoRouting replaces routing by a tangent-space GCN layer (the "PR
	// only" ablation): TangentGCN.
	NoRouting
)

var kindNames = []string{"acr", "pcr", "euclidean", "none"}

// String returns the kind's command-line name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText returns the kind's command-line name.
func (k Kind) MarshalText() ([]byte, error) {
	if int(k) >= len(kindNames) {
		return nil, fmt.Errorf("capsule: invalid routing %d", k)
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText parses a command-line name.
func (k *Kind) UnmarshalText(b []byte) error {
	i := slices.Index(kindNames, string(b))
	if i < 0 {
		return fmt.Errorf("unknown routing %q (want %s or %s)", b, strings.Join(kindNames[:len(kindNames)-1], ", "), kindNames[len(kindNames)-1])
	}
	*k = Kind(i)
	return nil
}

// Kinds lists every kind, in order.
func Kinds() []Kind {
	ks := make([]Kind, len(kindNames))
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// OnManifold reports whether layers of the kind take and return tangent
// coordinates at o of the capsule manifold Q_β; a Euclidean layer works in
// R^d, before any map to the manifold.
func (k Kind) OnManifold() bool { return k != Euclidean }

// OverLinks reports whether layers of the kind route on the manifold over
// Graph.Links alone, parent by parent (ACR, PCR): a pass may then give a
// layer the links of some parents only (those whose rows it reads, or a
// sampled block's), and each of those parents gets the value of the pass
// over every link.
func (k Kind) OverLinks() bool { return k == ACR || k == PCR }

// Ignores lists the RoutingConfig fields, by name, that layers of the kind
// do not read, so that a model can refuse a setting of them rather than
// let it change nothing: PCR has one perspective and no gates (γ ≡ 1); the
// Euclidean routing has neither, and squashes in R^d with its own
// initialisation; the tangent GCN does not route at all.
func (k Kind) Ignores() []string {
	gates := []string{"NoC", "NoA", "NoR"}
	switch k {
	case PCR:
		return append([]string{"K"}, gates...)
	case Euclidean:
		return append([]string{"K", "Activation", "Init"}, gates...)
	case NoRouting:
		return append([]string{"K", "Iters", "Activation", "Coupling", "DetachB", "Init"}, gates...)
	}
	return nil
}

// Graph is what a layer reads of the graph: the links (children →
// parents) that routing layers aggregate over, and the normalised
// adjacency of the tangent GCN.
type Graph[T autodiff.Float] struct {
	Links *Links
	Adj   *tensor.Adjacency[T]
}

// Layer is a node-level capsule layer of any Kind. A network holds its
// layers as one []Layer built by NewLayer, and reads their parameters
// through it, whatever their kind.
type Layer[T autodiff.Float] interface {
	// Kind is the layer's kind.
	Kind() Kind
	// ForwardLayer records the next layer's capsules from x, one row per
	// node: tangent coordinates at o of Q_β for the kinds on the manifold
	// (beta the network's curvature), points of R^d for Euclidean (which
	// ignores beta).
	ForwardLayer(t *autodiff.Tape[T], x, beta *autodiff.Var[T], g Graph[T]) *autodiff.Var[T]
	// Params are the layer's weights, CurvatureParams its curvatures (none
	// but for ACR).
	Params() []*autodiff.Var[T]
	CurvatureParams() []*autodiff.Var[T]
}

var (
	_ Layer[float32] = (*Routing[float32])(nil)
	_ Layer[float32] = (*EuclideanRouting[float32])(nil)
	_ Layer[float32] = (*TangentGCN[float32])(nil)
	_ Layer[float32] = (*GraphRouting[float32])(nil)
)

// NewLayer builds a layer of cfg.Kind from cfg: a Routing for ACR and PCR,
// a EuclideanRouting in the tangent dimension with cfg's iterations,
// logit detaching and coupling, or a TangentGCN on cfg.Dims, drawing its
// initial weights from rng. cfg must pass RoutingConfig.Validate for its
// kind.
func NewLayer[T autodiff.Float](name string, cfg RoutingConfig, rng *rand.Rand) (Layer[T], error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("capsule: layer %s: %w", name, err)
	}
	switch cfg.Kind {
	case ACR, PCR:
		r, err := NewRouting[T](name, cfg, rng)
		if err != nil {
			return nil, err // not a nil *Routing in a non-nil Layer
		}
		return r, nil
	case Euclidean:
		ec := EuclideanRoutingConfig{Iters: cfg.Iters, Coupling: cfg.Coupling, DetachB: cfg.DetachB}
		return NewEuclideanRouting[T](name, cfg.Dims.Tangent(), ec, rng), nil
	case NoRouting:
		return NewTangentGCN[T](name, cfg.Dims, rng), nil
	}
	return nil, fmt.Errorf("capsule: layer %s: %v", name, cfg.Kind)
}

// Kind implements Layer.
func (r *Routing[T]) Kind() Kind { return r.Cfg.Kind }

// ForwardLayer implements Layer: ForwardTangent over g.Links.
func (r *Routing[T]) ForwardLayer(t *autodiff.Tape[T], z, beta *autodiff.Var[T], g Graph[T]) *autodiff.Var[T] {
	return r.ForwardTangent(t, z, beta, g.Links)
}

// Kind implements Layer.
func (r *EuclideanRouting[T]) Kind() Kind { return Euclidean }

// ForwardLayer implements Layer: Forward over g.Links, in R^d.
func (r *EuclideanRouting[T]) ForwardLayer(t *autodiff.Tape[T], u, _ *autodiff.Var[T], g Graph[T]) *autodiff.Var[T] {
	return r.Forward(t, u, g.Links)
}

// CurvatureParams implements Layer: a Euclidean layer has none.
func (r *EuclideanRouting[T]) CurvatureParams() []*autodiff.Var[T] { return nil }

// Kind implements Layer.
func (g *TangentGCN[T]) Kind() Kind { return NoRouting }

// ForwardLayer implements Layer: ForwardTangent over g.Adj.
func (g *TangentGCN[T]) ForwardLayer(t *autodiff.Tape[T], z, beta *autodiff.Var[T], gr Graph[T]) *autodiff.Var[T] {
	return g.ForwardTangent(t, z, beta, gr.Adj)
}

// CurvatureParams implements Layer: the tangent GCN has none.
func (g *TangentGCN[T]) CurvatureParams() []*autodiff.Var[T] { return nil }
