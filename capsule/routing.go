package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
)

// Coupling selects the set over which the coupling coefficients c_ij are
// normalised (DESIGN §5 step 3).
type Coupling int

const (
	// CouplingOverChildren is the softmax of b_ij over the children of each
	// parent (default), so that Σ_{i,k} c_ij γ_ijk = 1 for every parent, as
	// the paper states after Eq. (adaptive_aggregation).
	CouplingOverChildren Coupling = iota
	// CouplingOverParents is classic CapsNet's softmax over the parents of
	// each child (Algorithm 1, line "c_ij ← exp b_ij / Σ_j' exp b_ij'").
	CouplingOverParents
)

// String returns "children" or "parents".
func (c Coupling) String() string {
	switch c {
	case CouplingOverChildren:
		return "children"
	case CouplingOverParents:
		return "parents"
	}
	return fmt.Sprintf("Coupling(%d)", int(c))
}

// MarshalText writes "children" or "parents" (for JSON configurations).
func (c Coupling) MarshalText() ([]byte, error) {
	if c != CouplingOverChildren && c != CouplingOverParents {
		return nil, fmt.Errorf("capsule: invalid coupling %d", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText parses "children" or "parents".
func (c *Coupling) UnmarshalText(b []byte) error {
	switch string(b) {
	case "children":
		*c = CouplingOverChildren
	case "parents":
		*c = CouplingOverParents
	default:
		return fmt.Errorf("capsule: unknown coupling %q (want children or parents)", b)
	}
	return nil
}

// PredictionInit selects how a routing layer initialises its prediction
// weights W^sph_k and W^euc_k.
type PredictionInit int

const (
	// InitNearIdentity is I + U(±0.05) (default): routing starts as a
	// near-identity map of each child, and the noise breaks the symmetry
	// between perspectives.
	InitNearIdentity PredictionInit = iota
	// InitTorch is U(±1/√fan_in), PyTorch's default for nn.Linear, which
	// the authors' node code's prediction layer (one nn.Linear for all
	// perspectives) gets.
	InitTorch
)

// String returns "identity" or "torch".
func (p PredictionInit) String() string {
	switch p {
	case InitNearIdentity:
		return "identity"
	case InitTorch:
		return "torch"
	}
	return fmt.Sprintf("PredictionInit(%d)", int(p))
}

// RoutingConfig configures a routing layer (DESIGN §5, Algorithm 1), or
// any node-level layer of NewLayer. Start from DefaultRoutingConfig, which
// writes the defaults: Validate takes a configuration as it is, so a zero
// size or count is an error, never a default.
type RoutingConfig struct {
	// Dims is the capsule manifold Q_{s,t} of children and parents.
	Dims manifold.Dims
	// Kind is ACR or PCR for a Routing layer; NewLayer also builds the
	// other kinds from this configuration.
	Kind Kind
	// K is the number of perspectives (ACR, 1 … 64; PCR has one and
	// ignores K).
	K int
	// Iters is the number of routing iterations T.
	Iters int
	// Activation is the tangent nonlinearity σ of Eq. (activation_projection).
	Activation manifold.Activation
	// Coupling selects the normalisation set of c_ij.
	Coupling Coupling
	// DetachB stops gradients through the logit updates b_ij (CapsGNN).
	DetachB bool
	// NoC, NoA, NoR drop the curvature-compatibility, feature-alignment and
	// routing-consistency terms of Eq. (gating_weights_new) (ablation).
	NoC, NoA, NoR bool
	// PerspectiveBetas are the initial curvatures β_k of the perspectives
	// (ACR; at least one). A list shorter than K is extended
	// geometrically (each further β is twice the previous one: −8, −16, …);
	// a longer one is truncated to its first K values.
	PerspectiveBetas []float64
	// AlignDim is d_align of Eq. (feature_alignment).
	AlignDim int
	// Init is the prediction weights' initialisation (biases start at 0).
	Init PredictionInit
}

// DefaultRoutingConfig is ACR with s = t = 9, K = 4, T = 3, squash, coupling
// over children, all gate terms, β_k = −0.5, −1, −2, −4 and d_align = 16.
func DefaultRoutingConfig() RoutingConfig {
	return RoutingConfig{
		Dims:             manifold.Dims{S: 9, T: 9},
		Kind:             ACR,
		K:                4,
		Iters:            3,
		Activation:       manifold.ActSquash,
		Coupling:         CouplingOverChildren,
		PerspectiveBetas: []float64{-0.5, -1, -2, -4},
		AlignDim:         16,
	}
}

// Validate reports a field of c that a layer of c.Kind reads and cannot
// take. It takes c as it is: a zero size, count or list is an error, never
// a default (start from DefaultRoutingConfig, the one place the defaults
// are written).
func (c RoutingConfig) Validate() error {
	if _, err := c.Kind.MarshalText(); err != nil {
		return err
	}
	routes := c.Kind != NoRouting // iterates over links (ACR, PCR, Euclidean)
	onLinks := c.Kind == ACR || c.Kind == PCR
	switch {
	case c.Dims.S < 0 || c.Dims.T < 1 || (onLinks && c.Dims.T > maxPredictT):
		return fmt.Errorf("invalid manifold dims s=%d t=%d (need s ≥ 0, 1 ≤ t ≤ %d)", c.Dims.S, c.Dims.T, maxPredictT)
	case routes && c.Iters < 1:
		return fmt.Errorf("%d iterations, need ≥ 1", c.Iters)
	case routes && c.Coupling != CouplingOverChildren && c.Coupling != CouplingOverParents:
		return fmt.Errorf("unknown %v", c.Coupling)
	case onLinks && c.Activation > manifold.ActIdentity:
		return fmt.Errorf("unknown %v", c.Activation)
	case onLinks && c.Init != InitNearIdentity && c.Init != InitTorch:
		return fmt.Errorf("unknown %v", c.Init)
	case c.Kind != ACR:
		return nil
	case c.K < 1 || c.K > maxGateK:
		return fmt.Errorf("%d perspectives K, need 1 … %d", c.K, maxGateK)
	case c.AlignDim < 1:
		return fmt.Errorf("d_align = %d, need ≥ 1", c.AlignDim)
	case len(c.PerspectiveBetas) == 0:
		return fmt.Errorf("no perspective curvatures β_k, need at least one")
	}
	for k, b := range perspectiveBetas(c, c.K) {
		if !(b < -manifold.BetaOffset) || math.IsInf(b, 0) {
			return fmt.Errorf("perspective curvature β_%d = %v must be finite and < −%v", k, b, manifold.BetaOffset)
		}
	}
	return nil
}

// perspectiveBetas returns the k initial curvatures of cfg (see
// RoutingConfig.PerspectiveBetas, which must not be empty).
func perspectiveBetas(cfg RoutingConfig, k int) []float64 {
	base := cfg.PerspectiveBetas
	out := make([]float64, k)
	for i := range out {
		if i < len(base) {
			out[i] = base[i]
		} else {
			out[i] = 2 * out[i-1]
		}
	}
	return out
}

// Routing is a node-level capsule routing layer (DESIGN §5, Algorithm 1):
// every parent capsule j aggregates the predictions ξ_{j|i,k} of its children
// i through T iterations of dynamic routing in the tangent space at the pole
// of Q. The prediction weights are shared over all links (node-level
// routing), so ξ depends only on the child and is computed once per node.
//
// Parameters (row convention: a tangent row vector times a weight matrix):
//   - Wsph[k] (t×t), Weuc[k] (s×s), B[k] (1×d): ξ_{i,k} =
//     (wrap_{r_k}(a_{i,T}·Wsph[k]), a_{i,S}·Weuc[k]) + B[k], so Wsph[k] is
//     the transpose of the paper's W^sph_k. Initialised per cfg.Init, by
//     default to I + U(±0.05) (routing starts as a near-identity map; the
//     noise breaks the symmetry between perspectives), and B[k] = 0.
//   - Rho[k] (ACR): β_k = −softplus(ρ_k) − 1e-4, initial β_k from
//     PerspectiveBetas.
//   - AlignA, AlignZ (d×(K·d_align)): the two halves of W^align_k for all k
//     side by side, W^align_k [a ‖ z] = a·AlignA[:,k] + z·AlignZ[:,k], PyTorch
//     Linear initialisation U(±1/√(2d)) (fan-in 2d); AlignW (K×d_align): the
//     w_k, U(±1/√d_align).
//   - WC (K×K): W^C of Eq. (routing_consistency), stored transposed
//     ((W^C h)_k = (h·WC)_k), U(±0.1); d_CTX = K with h_ij = (g(z_j,
//     ξ_{i,k'}))_{k'}.
//   - AlphaC, AlphaA, AlphaR (1×1): α_curv, α_align, α_route, initialised
//     to 1.
//
// PCR has only Wsph[0], Weuc[0] and B[0]. The layer is composed of
// gradient-checked ops: the manifold package's maps, autodiff's dense ops,
// and the per-link ops, each in the file named for it (linkCos in
// routing_cos.go, linkAlign, linkInner, linkSum or linkSumGated in
// routing_sum.go, linkAgree, linkGate, predict in routing_predict.go), which
// never form E×K×d temporaries (in float32 not even the alignment
// term's E×K×d_align tanh values, which its backward pass recomputes).
type Routing[T autodiff.Float] struct {
	Cfg    RoutingConfig
	K      int
	Wsph   []*autodiff.Var[T]
	Weuc   []*autodiff.Var[T]
	B      []*autodiff.Var[T]
	Rho    []*autodiff.Var[T]
	AlignA *autodiff.Var[T]
	AlignZ *autodiff.Var[T]
	AlignW *autodiff.Var[T]
	WC     *autodiff.Var[T]
	AlphaC *autodiff.Var[T]
	AlphaA *autodiff.Var[T]
	AlphaR *autodiff.Var[T]

	cache    linkCache
	composed bool // tests: build predictions, gates and the gated sums from elementary ops
}

// NewRouting returns an ACR or PCR routing layer on cfg (which must pass
// RoutingConfig.Validate: zero sizes and counts are errors) with freshly
// initialised parameters (see Routing).
func NewRouting[T autodiff.Float](name string, cfg RoutingConfig, rng *rand.Rand) (*Routing[T], error) {
	if cfg.Kind != ACR && cfg.Kind != PCR {
		return nil, fmt.Errorf("capsule: routing %s: %v is not a routing on the manifold (NewLayer builds every kind)", name, cfg.Kind)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("capsule: routing %s: %w", name, err)
	}
	K := cfg.K
	if cfg.Kind == PCR {
		K = 1
	}
	r := &Routing[T]{Cfg: cfg, K: K}
	s, t, d := cfg.Dims.S, cfg.Dims.T, cfg.Dims.Tangent()
	for k := 0; k < K; k++ {
		ws := autodiff.NewParam[T](fmt.Sprintf("%s.wsph%d", name, k), t, t)
		initPrediction(ws, cfg.Init, rng)
		we := autodiff.NewParam[T](fmt.Sprintf("%s.weuc%d", name, k), s, s)
		initPrediction(we, cfg.Init, rng)
		r.Wsph = append(r.Wsph, ws)
		r.Weuc = append(r.Weuc, we)
		r.B = append(r.B, autodiff.NewParam[T](fmt.Sprintf("%s.bias%d", name, k), 1, d))
	}
	if cfg.Kind == PCR {
		return r, nil
	}
	for k, b := range perspectiveBetas(cfg, K) {
		r.Rho = append(r.Rho, manifold.NewCurvatureParam[T](fmt.Sprintf("%s.rho%d", name, k), b))
	}
	m := cfg.AlignDim
	r.AlignA = autodiff.NewParam[T](name+".align_a", d, K*m)
	r.AlignZ = autodiff.NewParam[T](name+".align_z", d, K*m)
	nn.TorchLinear(r.AlignA, 2*d, rng)
	nn.TorchLinear(r.AlignZ, 2*d, rng)
	r.AlignW = autodiff.NewParam[T](name+".align_w", K, m)
	nn.TorchLinear(r.AlignW, m, rng)
	r.WC = autodiff.NewParam[T](name+".wc", K, K)
	nn.Uniform(r.WC, -0.1, 0.1, rng)
	r.AlphaC = autodiff.NewParam[T](name+".alpha_curv", 1, 1)
	r.AlphaA = autodiff.NewParam[T](name+".alpha_align", 1, 1)
	r.AlphaR = autodiff.NewParam[T](name+".alpha_route", 1, 1)
	for _, a := range []*autodiff.Var[T]{r.AlphaC, r.AlphaA, r.AlphaR} {
		nn.Fill(a, 1)
	}
	return r, nil
}

// Params lists the weight-decayed parameters: prediction weights and
// biases, the gate's α's, alignment weights and W^C.
func (r *Routing[T]) Params() []*autodiff.Var[T] {
	var ps []*autodiff.Var[T]
	for k := 0; k < r.K; k++ {
		ps = append(ps, r.Wsph[k], r.Weuc[k], r.B[k])
	}
	if r.Cfg.Kind == ACR {
		ps = append(ps, r.AlignA, r.AlignZ, r.AlignW, r.WC, r.AlphaC, r.AlphaA, r.AlphaR)
	}
	return ps
}

// CurvatureParams lists the ρ_k of the perspectives (ACR; none for PCR).
func (r *Routing[T]) CurvatureParams() []*autodiff.Var[T] {
	return append([]*autodiff.Var[T](nil), r.Rho...)
}

// Forward routes the child capsules u (Children × D points on Q with the
// network's curvature beta, a 1×1 Var) to the parent capsules over links
// and returns their states v (Parents × D, on Q). See DESIGN §5 and
// Algorithm 1; the steps are:
//
//  1. a_i = loĝ_o(u_i); ξ_{i,k} = (wrap_{r_k}(a_{i,T}·Wsph_k), a_{i,S}·Weuc_k)
//     + b_k (Eq. perspective_prediction_vector, with wrap_r = log_p∘exp_p on
//     S(r_k), r_k = √|β_k|; PCR uses β).
//  2. γ_ijk = σ(α_c C + α_a A + α_r R) normalised over k (Eq.
//     gating_weights_new), with C = −½(κ̂_ij − β_k)² (Eqs.
//     curvature_compatibility, local_curvature), A = w_kᵀ tanh(W^align_k
//     [a_i ‖ z_j]) (Eq. feature_alignment), R = log(c_ij + 1e-9)·(W^C h_ij)_k
//     (Eq. routing_consistency), z_j = loĝ_o(v_j^prev) (0 in the first
//     iteration). PCR: γ ≡ 1.
//  3. c = softmax(b) over the children of each parent (or over the parents
//     of each child).
//  4. S_j = Σ_i Σ_k c_ij γ_ijk ξ_{i,k} (Eq. adaptive_aggregation),
//     s_j = exp̂_o(S_j), v_j = Proj_Q(exp̂_o(σ(loĝ_o(s_j)))) (Eq.
//     activation_projection).
//  5. b_ij += Σ_k γ_ijk g(loĝ_o(v_j), ξ_{i,k}) (Algorithm 1), skipped after
//     the last iteration, where it would be unused.
//
// In the first iteration z = 0, so κ̂ = 0 (the cosine's norms are guarded,
// √(‖·‖²+CosEps)), h = 0 and R = 0 exactly, and the gates are computed per
// child. Gradients flow through every iteration (into u, β, the parameters
// and the ρ_k) unless DetachB.
//
// links may be any child→parent Links (node-level routing passes
// NodeLinks(graph); children and parents may differ in number). Its derived
// index (parent of each link, child-major grouping) is built on first use
// and cached by pointer, so Links must not be modified afterwards. Forward
// panics if links is malformed or u has the wrong shape. It keeps no
// per-pass state in the layer: passes on different tapes may run
// concurrently (their backward passes accumulate into the shared parameter
// gradients and must not).
func (r *Routing[T]) Forward(t *autodiff.Tape[T], u, beta *autodiff.Var[T], links *Links) *autodiff.Var[T] {
	dims := r.Cfg.Dims
	if u.Value.Rows != links.Children || u.Value.Cols != dims.Ambient() {
		panic(fmt.Sprintf("capsule: routing: u is %d×%d, want %d×%d (children × ambient)", u.Value.Rows, u.Value.Cols, links.Children, dims.Ambient()))
	}
	act := r.forward(t, manifold.LogO(t, u, beta, dims), beta, links)
	return manifold.ProjQ(t, manifold.ExpO(t, act, beta, dims), beta, dims)
}

// ForwardTangent is Forward with the capsules given by their tangent
// coordinates at the pole: a = loĝ_o(u) (children × d) in, loĝ_o(v)
// (parents × d) out. Stacked layers (and GraphRouting.ForwardTangent) pass
// these on directly, so the points on Q are never formed: loĝ_o(v) is the
// exact wrap of σ(loĝ_o(s_j)) (manifold.LogExpO), which the next layer's
// loĝ_o would compute from v with rounding.
func (r *Routing[T]) ForwardTangent(t *autodiff.Tape[T], a, beta *autodiff.Var[T], links *Links) *autodiff.Var[T] {
	dims := r.Cfg.Dims
	if a.Value.Rows != links.Children || a.Value.Cols != dims.Tangent() {
		panic(fmt.Sprintf("capsule: routing: a is %d×%d, want %d×%d (children × tangent)", a.Value.Rows, a.Value.Cols, links.Children, dims.Tangent()))
	}
	return manifold.LogExpO(t, r.forward(t, a, beta, links), beta, dims)
}

// forward runs Forward from the children's tangent coordinates a and
// returns σ(loĝ_o(s_j)) of the last iteration (see route).
func (r *Routing[T]) forward(t *autodiff.Tape[T], a, beta *autodiff.Var[T], links *Links) *autodiff.Var[T] {
	dims := r.Cfg.Dims
	ix := r.cache.get(links)
	// Step 1: the K predictions from the tangent coordinates.
	var betaBuf [maxGateK]*autodiff.Var[T]
	betas := r.perspectiveBetas(t, beta, &betaBuf)
	var xi *autodiff.Var[T] // C × (K·d)
	if r.composed {
		xi = r.predictComposed(t, a, betas)
	} else {
		xi = predict(t, a, r.Wsph, r.Weuc, r.B, betas, dims.S, dims.T)
	}
	return r.route(t, ix, a, nil, xi, betas, beta)
}

// perspectiveBetas records the K perspectives' curvatures β_k (ACR; β
// itself for every perspective otherwise) into buf, scratch on the
// caller's stack (K ≤ maxGateK) so that Forward keeps no per-pass state in
// the layer.
func (r *Routing[T]) perspectiveBetas(t *autodiff.Tape[T], beta *autodiff.Var[T], buf *[maxGateK]*autodiff.Var[T]) []*autodiff.Var[T] {
	betas := buf[:r.K]
	for k := range betas {
		betas[k] = beta
		if r.Cfg.Kind == ACR {
			betas[k] = manifold.Beta(t, r.Rho[k])
		}
	}
	return betas
}

// alignChildren returns P1 = a·W1 of the feature-alignment term, the
// children's half of W^align_k [a_i ‖ z_j] (nil without the A term).
func (r *Routing[T]) alignChildren(t *autodiff.Tape[T], a *autodiff.Var[T]) *autodiff.Var[T] {
	if r.Cfg.Kind != ACR || r.Cfg.NoA {
		return nil
	}
	return autodiff.MatMul(t, a, r.AlignA)
}

// route runs steps 2-5 of Forward (gates, coupling, aggregation,
// activation, agreement) for the children's tangent coordinates a (C×d),
// their predictions xi (C×(K·d)) and the curvatures β_k (betas) and β, and
// returns the last iteration's σ(loĝ_o(s_j)) (P×d), whose exp̂_o, projected
// on Q, is v_j. It is shared by node-level routing (Forward) and
// graph-level routing (GraphRouting.Forward, whose children are per-class
// copies of the nodes).
//
// p1 is alignChildren(a), or nil to have route compute it: graph-level
// routing passes the per-class copies of the nodes' P1, a product over N
// rows rather than C·N.
func (r *Routing[T]) route(t *autodiff.Tape[T], ix *linkIndex, a, p1, xi *autodiff.Var[T], betas []*autodiff.Var[T], beta *autodiff.Var[T]) *autodiff.Var[T] {
	cfg := r.Cfg
	dims := cfg.Dims
	d, tt, K := dims.Tangent(), dims.T, r.K
	E := ix.links.NumLinks()
	acr := cfg.Kind == ACR

	var betaRow *autodiff.Var[T]
	if acr {
		betaRow = betas[0]
		if K > 1 {
			betaRow = autodiff.ConcatCols(t, betas...) // 1×K
		}
		if p1 == nil {
			p1 = r.alignChildren(t, a) // C × (K·d_align)
		}
	}

	// Iteration state: b (E×1), z = loĝ_o(v^prev) (P×d) and the routing
	// context h = (g(z_j, ξ_{i,k}))_k (E×K), which is also the agreement of
	// the previous iteration. In the first iteration z = 0 (v^prev = o), so
	// κ̂ = 0, h = 0 and R = 0 exactly, and the gates depend on the child
	// only: firstGates computes them per child.
	// The first iteration's b = 0 is a vector of zeros only where an op
	// reads it as one; the fused ACR ops with coupling over children take
	// nil for it (uniformCoupling, linkAgree).
	var b *autodiff.Var[T]
	if !acr || r.composed || cfg.Coupling != CouplingOverChildren {
		b = constant[T](t, E, 1, 0)
	}
	var z, h, act *autodiff.Var[T]
	for it := 0; it < cfg.Iters; it++ {
		c := r.coupling(t, ix, b)
		var gamma, S *autodiff.Var[T]
		if acr {
			if it == 0 {
				gamma = r.firstGates(t, ix, p1, betaRow)
			} else {
				gamma = r.gates(t, ix, a, p1, z, h, c, betaRow)
			}
		}
		// Eq. (adaptive_aggregation) with w = c_ij γ_ijk (E×K), or w = c.
		switch {
		case !acr:
			S = linkSum(t, ix, c, xi, d)
		case r.composed:
			S = linkSum(t, ix, autodiff.Mul(t, gamma, c), xi, d)
		default:
			S = linkSumGated(t, ix, gamma, c, xi, d)
		}
		// Eqs. (11)-(12): s_j = exp̂_o(S_j), v_j = Proj_Q(exp̂_o(σ(loĝ_o(s_j)))).
		// loĝ_o(s_j) is the exact wrap of S_j's time block
		// (manifold.LogExpO), and so is the next iteration's z = loĝ_o(v_j)
		// of σ(·): v_j itself, on Q, is formed only by Forward, from the
		// last iteration's σ(·).
		act = manifold.TangentActivation(t, manifold.LogExpO(t, S, beta, dims), cfg.Activation)
		if it == cfg.Iters-1 {
			break
		}
		z = manifold.LogExpO(t, act, beta, dims)
		h = linkInner(t, ix, xi, z, K, tt) // E×K: g(z_j, ξ_{i,k})
		switch {
		case !acr:
			b = autodiff.Add(t, b, h)
		case r.composed:
			b = autodiff.Add(t, b, autodiff.RowSum(t, autodiff.Mul(t, gamma, h)))
		default:
			b = linkAgree(t, b, gamma, h) // b + Σ_k γ_ijk h_ijk
		}
		if cfg.DetachB {
			b = detach(t, b)
		}
	}
	return act
}

// coupling returns c = softmax(b) over each parent's children, or over each
// child's parents (through the child-major permutation of the links). b
// nil stands for b = 0 (coupling over children only).
func (r *Routing[T]) coupling(t *autodiff.Tape[T], ix *linkIndex, b *autodiff.Var[T]) *autodiff.Var[T] {
	if b == nil {
		return uniformCoupling(t, ix)
	}
	if r.Cfg.Coupling == CouplingOverChildren {
		return autodiff.SegmentSoftmax(t, b, ix.links.Ptr)
	}
	ptr, link, inv := ix.capsules()
	bc := autodiff.GatherRows(t, b, link) // capsule-major order
	cc := autodiff.SegmentSoftmax(t, bc, ptr)
	return autodiff.GatherRows(t, cc, inv) // back to parent-major order
}

// firstGates returns the gates γ (E×K) of the first iteration, where
// z = 0: C = −½β_k², A_ik = w_kᵀ tanh(W1_k a_i), R = 0. They are computed per
// child (C×K) and gathered to the links.
func (r *Routing[T]) firstGates(t *autodiff.Tape[T], ix *linkIndex, p1, betaRow *autodiff.Var[T]) *autodiff.Var[T] {
	if r.composed {
		return r.firstGatesComposed(t, ix, p1, betaRow)
	}
	cfg := r.Cfg
	if cfg.NoC && cfg.NoA {
		return constant[T](t, ix.links.NumLinks(), r.K, T(1/float64(r.K)))
	}
	var in gateInputs[T]
	if !cfg.NoC {
		in.betaRow, in.alphaC = betaRow, r.AlphaC // κ̂ = 0
	}
	if !cfg.NoA {
		in.a, in.alphaA = linkAlign(t, ix.self, p1, nil, r.AlignW), r.AlphaA
	}
	g := linkGate(t, in, ix.links.Children, r.K)
	return autodiff.GatherRows(t, g, ix.links.Child)
}

// gates returns the normalised gates γ (E×K) of Eq. (gating_weights_new)
// given z = loĝ_o(v^prev) and h = (g(z_j, ξ_{i,k}))_k: the per-link terms
// κ̂ (linkCos) and A (linkAlign), combined with R by the fused linkGate.
func (r *Routing[T]) gates(t *autodiff.Tape[T], ix *linkIndex, a, p1, z, h, c, betaRow *autodiff.Var[T]) *autodiff.Var[T] {
	if r.composed {
		return r.gatesComposed(t, ix, a, p1, z, h, c, betaRow)
	}
	cfg := r.Cfg
	E := ix.links.NumLinks()
	if cfg.NoC && cfg.NoA && cfg.NoR {
		return constant[T](t, E, r.K, T(1/float64(r.K)))
	}
	var in gateInputs[T]
	if !cfg.NoC {
		in.kappa, in.betaRow, in.alphaC = linkCos(t, ix, a, z), betaRow, r.AlphaC
	}
	if !cfg.NoA {
		p2 := autodiff.MatMul(t, z, r.AlignZ)
		in.a, in.alphaA = linkAlign(t, ix, p1, p2, r.AlignW), r.AlphaA
	}
	if !cfg.NoR {
		in.c, in.h, in.wc, in.alphaR = c, h, r.WC, r.AlphaR
	}
	return linkGate(t, in, E, r.K)
}
