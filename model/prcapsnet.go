package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/optim"
)

func init() {
	Register(Spec{
		Name: "prcapsnet", Task: data.NodeTask,
		Summary: "PR-CapsNet node network and its ablation variants (Qin et al., WSDM 2026)",
		// The authors' code: AdamW at lr 0.005 with weight decay 5e-4,
		// gradient-norm clipping at 1, 200 epochs (DESIGN §5 "Optimiser").
		Recipe:  Recipe{Epochs: 200, LR: 0.005, WeightDecay: 5e-4, Optimizer: "adamw", Clip: 1, StepEvery: DefaultStepEvery},
		Default: func() Config { c := DefaultPRCapsConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewPRCapsNet(*cfg.(*PRCapsConfig), shape, seed)
		},
	})
}

// PRCapsNet is the PR-CapsNet node network (DESIGN §5) and, through its
// configuration, every ablation variant:
//
//	dropout → GCNConv(F→Hidden) → ReLU → dropout → Linear(Hidden→d) →
//	LayerNorm → exp̂_o → L routing layers over the graph (each node a
//	capsule whose children are its in-neighbours and itself) → classifier.
type PRCapsNet struct {
	cfg   PRCapsConfig
	shape Shape
	dims  manifold.Dims
	in    nodeInput

	stem *nn.GCNConv[float32]
	proj *nn.Linear[float32]
	norm *nn.LayerNorm[float32]
	rho  *autodiff.Var[float32] // the network's curvature β = −softplus(ρ) − 1e-4

	// layers are the L capsule layers, all of cfg.Routing's kind.
	layers []capsule.Layer[float32]

	prcc    *capsule.PRCC[float32]
	tangent *capsule.TangentLinear[float32] // the "Linear" classifier variant: Linear(loĝ_o(v))
	linear  *nn.Linear[float32]             // Caps only: a linear classifier on Euclidean capsules

	blocks blockInput // the operators of the sampled layers (BlockModel)
}

// PRCapsNet implements these, checked at compile time.
var (
	_ RowsForwarder     = (*PRCapsNet)(nil)
	_ NodeEmbedder      = (*PRCapsNet)(nil)
	_ CurvatureReporter = (*PRCapsNet)(nil)
)

// NewPRCapsNet builds the PR-CapsNet node network for shape with weights
// drawn from seed.
func NewPRCapsNet(cfg PRCapsConfig, shape Shape, seed uint64) (*PRCapsNet, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.RoutingInit == InitTorchGraph {
		return nil, fmt.Errorf("routing init torch-graph applies to the graph network only")
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	dims := cfg.Dims()
	d := dims.Tangent()
	m := &PRCapsNet{
		cfg:   cfg,
		shape: shape,
		dims:  dims,
		in:    nodeInput{normalize: cfg.NormalizeFeatures, links: true, operator: cfg.stemOperator},
		stem:  nn.NewGCNConv[float32]("stem", shape.Features, cfg.Hidden, rng),
		proj:  nn.NewLinear[float32]("proj", cfg.Hidden, d, true, rng),
		norm:  nn.NewLayerNorm[float32]("norm", d),
		rho:   manifold.NewCurvatureParam[float32]("beta", -1),
	}
	for l := 0; l < cfg.Layers; l++ {
		layer, err := capsule.NewLayer[float32](fmt.Sprintf("routing%d", l), cfg.routingConfig(false), rng)
		if err != nil {
			return nil, err
		}
		m.layers = append(m.layers, layer)
	}
	switch {
	case cfg.Classifier == ClassifierPRCC:
		m.prcc = capsule.NewPRCC[float32]("prcc", dims, shape.Classes, rng)
		if err := m.prcc.SetScale(cfg.ClassifierScale); err != nil {
			return nil, err
		}
	case !cfg.Routing.OnManifold():
		m.linear = nn.NewLinear[float32]("classifier", d, shape.Classes, true, rng)
	default:
		m.tangent = capsule.NewTangentLinear[float32]("classifier", dims, shape.Classes, rng)
	}
	return m, nil
}

// Forward records the logits of every node.
func (m *PRCapsNet) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	return m.ForwardRows(t, g, x, nil, training, rng)
}

// ForwardRows is Forward for a pass that reads only the logits of the nodes
// rows (model.RowsForwarder; nil: every node). The last routing layer then
// has only those parents, and the classifier scores only them; their
// logits go back to their nodes' rows (zeros elsewhere). A training step
// on a random 60/20/20 split then does 60% of the last layer's work, an
// evaluation pass 40%.
func (m *PRCapsNet) ForwardRows(t *autodiff.Tape[float32], g *data.Graph, x data.Features, rows []int32, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	h, z, beta, place := m.capsules(t, g, x, rows, training, rng)
	var logits *autodiff.Var[float32]
	switch {
	case m.linear != nil:
		logits = m.linear.Forward(t, h)
	case m.prcc != nil:
		logits = m.prcc.ForwardTangent(t, z, beta)
	default:
		logits = m.tangent.ForwardTangent(t, z)
	}
	if place != nil {
		logits = autodiff.GatherRowsOrZero(t, logits, place)
	}
	return logits
}

// Embed records the capsule of every node that the classifier reads, as
// its tangent coordinates loĝ_o(u) (the Euclidean capsule in the Caps-only
// variant), in evaluation mode.
func (m *PRCapsNet) Embed(t *autodiff.Tape[float32], g *data.Graph, x data.Features) *autodiff.Var[float32] {
	h, z, _, _ := m.capsules(t, g, x, nil, false, nil)
	if z == nil {
		return h
	}
	return z
}

// capsules records the network up to its classifier: the Euclidean
// capsules h when the Caps-only variant has no manifold (z nil), else the
// capsules u on Q_{s,t} as their tangent coordinates z = loĝ_o(u), and the
// curvature β. With rows, the last layer may route to the rows' parents
// only: z then has one row per node of rows (in increasing node order) and
// place maps each node to its row of z, or to −1 (nil: z has every node's
// row).
//
// As in the graph network, the capsules go from layer to layer as their
// tangent coordinates: loĝ_o(exp̂_o(h)) is the exact wrap of h
// (manifold.LogExpO), and the layers' ForwardTangent return loĝ_o of their
// output points likewise, so no point of Q is formed on the way, and the
// classifier reads z = loĝ_o(u) as it is.
func (m *PRCapsNet) capsules(t *autodiff.Tape[float32], g *data.Graph, x data.Features, rows []int32, training bool, rng *rand.Rand) (h, z, beta *autodiff.Var[float32], place []int32) {
	m.in.prepare("prcapsnet", m.shape, g, x)
	xs := m.in.x.Apply(m.cfg.InputDropout, rng, training)
	h = autodiff.ReLUDropout(t, m.stem.ForwardSparse(t, &m.in.adj, xs), m.cfg.Dropout, rng, training)
	h = m.norm.Forward(t, m.proj.Forward(t, h)) // primary capsules, in the tangent space at o

	graph := capsule.Graph[float32]{Links: &m.in.lk, Adj: &m.in.adj}
	if !m.cfg.Routing.OnManifold() { // Caps only: classic routing in R^d, no manifold
		for _, r := range m.layers {
			h = r.ForwardLayer(t, h, nil, graph)
		}
		if m.linear != nil {
			return h, nil, nil, nil
		}
	}
	beta = manifold.Beta(t, m.rho)
	z = manifold.LogExpO(t, h, beta, m.dims)
	if !m.cfg.Routing.OnManifold() {
		return h, z, beta, nil
	}
	for i, r := range m.layers {
		g := graph
		// The last routing layer routes to the rows' parents only. Coupling
		// over each child's parents would normalise over fewer parents
		// without the others' links: only the default coupling over
		// children leaves the rows' values as they are.
		if i == len(m.layers)-1 && m.cfg.Routing.OverLinks() && m.cfg.Coupling == capsule.CouplingOverChildren {
			g.Links, place = m.in.rowLinks(rows)
		}
		z = r.ForwardLayer(t, z, beta, g)
	}
	return h, z, beta, place
}

// Groups returns the weights (decayed) and the curvatures (not decayed;
// frozen with FixedCurvature).
func (m *PRCapsNet) Groups() []optim.Group[float32] {
	weights := append(m.stem.Params(), m.proj.Params()...)
	weights = append(weights, m.norm.Params()...)
	curv := []*autodiff.Var[float32]{m.rho}
	for _, r := range m.layers {
		weights = append(weights, r.Params()...)
		curv = append(curv, r.CurvatureParams()...)
	}
	switch {
	case m.prcc != nil:
		weights = append(weights, m.prcc.Params()...)
	case m.tangent != nil:
		weights = append(weights, m.tangent.Params()...)
	default:
		weights = append(weights, m.linear.Params()...)
	}
	return []optim.Group[float32]{
		{Name: "weights", Params: weights},
		{Name: "curvature", Params: curv, NoWeightDecay: true, Frozen: m.cfg.FixedCurvature},
	}
}
