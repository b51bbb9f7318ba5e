package capsule

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
)

// EuclideanRoutingConfig configures classic dynamic routing.
type EuclideanRoutingConfig struct {
	// Iters is the number of routing iterations T (≥ 1).
	Iters int
	// Coupling selects the normalisation set of the couplings (the type of
	// routing.go, shared with the ACR/PCR layers): CouplingOverChildren
	// (the zero value, DESIGN §5 step 3) is the softmax over the
	// children of each parent, CouplingOverParents classic CapsNet's softmax
	// over the parents of each child (paper Eq. caps_coupling_coeffs).
	Coupling Coupling
	// DetachB stops the gradient through the routing logits b (as CapsGNN
	// does): the couplings are then constants of the backward pass.
	DetachB bool
}

// DefaultEuclideanRoutingConfig takes DefaultRoutingConfig's iterations,
// coupling and logit detaching, the defaults of every routing layer.
func DefaultEuclideanRoutingConfig() EuclideanRoutingConfig {
	d := DefaultRoutingConfig()
	return EuclideanRoutingConfig{Iters: d.Iters, Coupling: d.Coupling, DetachB: d.DetachB}
}

// EuclideanRouting is classic dynamic routing (Sabour et al.; paper
// §"Capsule Networks and Dynamic Routing", Eqs. caps_prediction_euclidean to
// caps_agreement_update_euclidean) in R^d over a set of child→parent Links:
// the "Caps only" / "Euclidean" routing ablation (DESIGN §5). Node-level
// routing shares one prediction map over all links:
//
//	û_i = W u_i + b                 (caps_prediction_euclidean, row form u·W + b)
//	c_ij = softmax(b_ij)            (caps_coupling_coeffs; over the children of
//	                                 each parent, or over the parents of each child)
//	s_j = Σ_i c_ij û_i              (caps_weighted_sum_euclidean)
//	v_j = squash(s_j)               (caps_squashing_euclidean)
//	b_ij ← b_ij + ⟨v_j, û_i⟩        (caps_agreement_update_euclidean)
//
// for Iters iterations, b starting at 0. Gradients flow through all
// iterations unless DetachB.
type EuclideanRouting[T autodiff.Float] struct {
	W   *autodiff.Var[T] // d×d, nn.Glorot
	B   *autodiff.Var[T] // 1×d, zero
	Cfg EuclideanRoutingConfig

	// ix is derived from the last Links seen: kept while the same *Links
	// comes again unchanged, rebuilt in place when it was rebuilt
	// (Links.Changed), replaced for a new one (so that a tape still holding
	// the old index stays valid). mu guards it: passes on two tapes may run
	// at once (a training and an evaluation pass).
	mu sync.Mutex
	ix *eucIndex
}

// NewEuclideanRouting returns a routing layer on d-dimensional capsules. It
// panics unless cfg.Iters ≥ 1 and cfg.Coupling is known.
func NewEuclideanRouting[T autodiff.Float](name string, d int, cfg EuclideanRoutingConfig, rng *rand.Rand) *EuclideanRouting[T] {
	if cfg.Iters < 1 || d < 1 || (cfg.Coupling != CouplingOverChildren && cfg.Coupling != CouplingOverParents) {
		panic(fmt.Sprintf("capsule: NewEuclideanRouting: d = %d, %d iterations, %v", d, cfg.Iters, cfg.Coupling))
	}
	r := &EuclideanRouting[T]{
		W:   autodiff.NewParam[T](name+".weight", d, d),
		B:   autodiff.NewParam[T](name+".bias", 1, d),
		Cfg: cfg,
	}
	nn.Glorot(r.W, rng)
	return r
}

// Forward records the routing of the children u (Children×d) to the parents
// of links and returns the parent capsules v (Parents×d). links must not
// change until Backward has run.
func (r *EuclideanRouting[T]) Forward(t *autodiff.Tape[T], u *autodiff.Var[T], links *Links) *autodiff.Var[T] {
	v, _ := r.ForwardCouplings(t, u, links)
	return v
}

// ForwardCouplings is Forward that also returns the coupling coefficients
// c_ij of the last iteration (E×1, in link order), e.g. for inspection.
func (r *EuclideanRouting[T]) ForwardCouplings(t *autodiff.Tape[T], u *autodiff.Var[T], links *Links) (v, c *autodiff.Var[T]) {
	d := r.W.Value.Rows
	if u.Value.Cols != d || u.Value.Rows != links.Children {
		panic(fmt.Sprintf("capsule: EuclideanRouting: u is %d×%d, want %d×%d", u.Value.Rows, u.Value.Cols, links.Children, d))
	}
	ix := r.index(links)
	uh := autodiff.Add(t, autodiff.MatMul(t, u, r.W), r.B) // û_i
	var b *autodiff.Var[T]
	for it := 0; it < r.Cfg.Iters; it++ {
		if b == nil {
			b = t.Node(links.NumLinks(), 1)
			b.Value.Zero()
		}
		c = r.coupling(t, b, ix)
		v = manifold.TangentActivation(t, eucLinkSum(t, ix, c, uh), manifold.ActSquash)
		if it == r.Cfg.Iters-1 {
			break
		}
		agree := eucLinkDot(t, ix, v, uh)
		if r.Cfg.DetachB {
			agree = detach(t, agree)
		}
		b = autodiff.Add(t, b, agree)
	}
	return v, c
}

// coupling records the softmax of the E×1 logits b over the children of each
// parent, or over the parents of each child.
func (r *EuclideanRouting[T]) coupling(t *autodiff.Tape[T], b *autodiff.Var[T], ix *eucIndex) *autodiff.Var[T] {
	if r.Cfg.Coupling == CouplingOverChildren {
		return autodiff.SegmentSoftmax(t, b, ix.links.Ptr)
	}
	cc := autodiff.SegmentSoftmax(t, autodiff.GatherRows(t, b, ix.childLink), ix.childPtr)
	return autodiff.GatherRows(t, cc, ix.inv)
}

// index returns the derived index of l, built when l is new or was rebuilt
// since (Links.Changed). A Links not seen last time is validated first (it
// panics on malformed links).
func (r *EuclideanRouting[T]) index(l *Links) *eucIndex {
	r.mu.Lock()
	defer r.mu.Unlock()
	E := l.NumLinks()
	if x := r.ix; x != nil && x.links == l && x.gen == l.gen && len(x.parent) == E && len(x.childPtr) == l.Children+1 {
		return x
	}
	if x := r.ix; x == nil || x.links != l || len(x.parent) != E || len(x.childPtr) != l.Children+1 {
		if err := l.Validate(); err != nil {
			panic(fmt.Sprintf("capsule: EuclideanRouting: %v", err))
		}
		r.ix = &eucIndex{
			parent:    make([]int32, E),
			childLink: make([]int32, E),
			inv:       make([]int32, E),
			childPtr:  make([]int32, l.Children+1),
		}
	}
	r.ix.build(l)
	return r.ix
}

// Params lists the layer's parameters.
func (r *EuclideanRouting[T]) Params() []*autodiff.Var[T] { return []*autodiff.Var[T]{r.W, r.B} }
