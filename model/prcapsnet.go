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
	"github.com/prcaps/prcaps/tensor"
	"github.com/prcaps/prcaps/train"
)

// PRCapsNet is the PR-CapsNet node network (DESIGN §5) and, through its
// configuration, every ablation variant:
//
//	dropout → GCNConv(F→Hidden) → ReLU → dropout → Linear(Hidden→d) →
//	LayerNorm → exp̂_o → L routing layers over the graph (each node a
//	capsule whose children are its in-neighbours and itself) → classifier.
type PRCapsNet struct {
	cfg   PRCapsConfig
	dims  manifold.Dims
	x     *nn.SparseInput[float32]
	adj   *tensor.Adjacency[float32]
	links *capsule.Links

	stem *nn.GCNConv[float32]
	proj *nn.Linear[float32]
	norm *nn.LayerNorm[float32]
	rho  *autodiff.Var[float32] // the network's curvature β = −softplus(ρ) − 1e-4

	acr  []*capsule.Routing[float32]
	eucl []*capsule.EuclideanRouting[float32]
	tgcn []*capsule.TangentGCN[float32]

	prcc    *capsule.PRCC[float32]
	tangent *capsule.TangentLinear[float32] // the "Linear" classifier variant: Linear(loĝ_o(v))
	linear  *nn.Linear[float32]             // Caps only: a linear classifier on Euclidean capsules
}

// NewPRCapsNet builds the PR-CapsNet node network for ds with weights drawn from seed.
func NewPRCapsNet(ds *data.NodeDataset, cfg PRCapsConfig, seed uint64) (train.NodeModel, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("model: prcapsnet: %w", err)
	}
	if cfg.RoutingInit == "torch-graph" {
		return nil, fmt.Errorf("model: prcapsnet: routing init torch-graph applies to the graph network only")
	}
	feats := ds.X
	if cfg.NormalizeFeatures {
		feats = data.RowNormalize(feats)
	}
	x, err := sparseFeatures(feats)
	if err != nil {
		return nil, fmt.Errorf("model: prcapsnet: %s: %w", ds.Name, err)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	dims := cfg.Dims()
	d := dims.Tangent()
	var a tensor.CSR[float32]
	var deg []float64
	cfg.stemOperatorInto(&a, ds.Graph.N, ds.Graph.Ptr, ds.Graph.Src, &deg)
	m := &PRCapsNet{
		cfg:   cfg,
		dims:  dims,
		x:     nn.NewSparseInput(x),
		adj:   tensor.NewAdjacency(&a),
		links: capsule.NodeLinks(ds.Graph.N, ds.Graph.Ptr, ds.Graph.Src),
		stem:  nn.NewGCNConv[float32]("stem", x.Cols, cfg.Hidden, rng),
		proj:  nn.NewLinear[float32]("proj", cfg.Hidden, d, true, rng),
		norm:  nn.NewLayerNorm[float32]("norm", d),
		rho:   manifold.NewCurvatureParam[float32]("beta", -1),
	}
	act, err := manifold.ParseActivation(cfg.Activation)
	if err != nil {
		return nil, err
	}
	for l := 0; l < cfg.Layers; l++ {
		name := fmt.Sprintf("routing%d", l)
		switch cfg.Routing {
		case "acr", "pcr":
			rc := capsule.DefaultRoutingConfig()
			rc.Dims, rc.K, rc.Iters, rc.Activation, rc.DetachB = dims, cfg.K, cfg.Iters, act, cfg.DetachB
			rc.NoC, rc.NoA, rc.NoR = cfg.NoC, cfg.NoA, cfg.NoR
			rc.Init = cfg.predictionInit(false)
			if cfg.Routing == "pcr" {
				rc.Kind, rc.K = capsule.PCR, 1
			}
			if cfg.Coupling == "parents" {
				rc.Coupling = capsule.CouplingOverParents
			}
			r, err := capsule.NewRouting[float32](name, rc, rng)
			if err != nil {
				return nil, fmt.Errorf("model: prcapsnet: %w", err)
			}
			m.acr = append(m.acr, r)
		case "euclidean":
			ec := capsule.DefaultEuclideanRoutingConfig()
			ec.Iters, ec.DetachB = cfg.Iters, cfg.DetachB
			if cfg.Coupling == "parents" {
				ec.Coupling = capsule.CouplingOverParents
			}
			m.eucl = append(m.eucl, capsule.NewEuclideanRouting[float32](name, d, ec, rng))
		case "none":
			m.tgcn = append(m.tgcn, capsule.NewTangentGCN[float32](name, dims, rng))
		}
	}
	switch {
	case cfg.Classifier == "prcc":
		m.prcc = capsule.NewPRCC[float32]("prcc", dims, ds.NumClasses, rng)
		if err := m.prcc.SetScale(cfg.ClassifierScale); err != nil {
			return nil, err
		}
	case cfg.Routing == "euclidean":
		m.linear = nn.NewLinear[float32]("classifier", d, ds.NumClasses, true, rng)
	default:
		m.tangent = capsule.NewTangentLinear[float32]("classifier", dims, ds.NumClasses, rng)
	}
	return m, nil
}

// Forward records the logits of every node.
func (m *PRCapsNet) Forward(t *autodiff.Tape[float32], training bool, rng *rand.Rand) *autodiff.Var[float32] {
	x := m.x.Apply(m.cfg.InputDropout, rng, training)
	h := autodiff.ReLU(t, m.stem.ForwardSparse(t, m.adj, x))
	h = autodiff.Dropout(t, h, m.cfg.Dropout, rng, training)
	h = m.norm.Forward(t, m.proj.Forward(t, h)) // primary capsules, in the tangent space at o

	if m.eucl != nil { // Caps only: classic routing in R^d, no manifold
		for _, r := range m.eucl {
			h = r.Forward(t, h, m.links)
		}
		if m.linear != nil {
			return m.linear.Forward(t, h)
		}
	}
	beta := manifold.Beta(t, m.rho)
	u := manifold.ExpO(t, h, beta, m.dims)
	for _, r := range m.acr {
		u = r.Forward(t, u, beta, m.links)
	}
	for _, g := range m.tgcn {
		u = g.Forward(t, u, beta, m.adj)
	}
	if m.prcc != nil {
		return m.prcc.Forward(t, u, beta)
	}
	return m.tangent.Forward(t, u, beta)
}

// Groups returns the weights (decayed) and the curvatures (not decayed;
// frozen with FixedCurvature).
func (m *PRCapsNet) Groups() []optim.Group[float32] {
	weights := append(m.stem.Params(), m.proj.Params()...)
	weights = append(weights, m.norm.Params()...)
	curv := []*autodiff.Var[float32]{m.rho}
	for _, r := range m.acr {
		weights = append(weights, r.Params()...)
		curv = append(curv, r.CurvatureParams()...)
	}
	for _, r := range m.eucl {
		weights = append(weights, r.Params()...)
	}
	for _, g := range m.tgcn {
		weights = append(weights, g.Params()...)
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
