package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/optim"
	"github.com/prcaps/prcaps/tensor"
)

// GCNConfig configures the two-layer GCN of Kipf & Welling (2017).
// Start from DefaultGCNConfig.
type GCNConfig struct {
	Hidden  int     // hidden width (default 64)
	Dropout float64 // dropout on the input features and the hidden layer (default 0.5)
	// DecayAll applies weight decay to both layers; by default only the
	// first layer is decayed, as in Kipf & Welling and PyG's example.
	DecayAll bool
	// NormalizeFeatures divides each node's features by their sum (default
	// on, as Kipf & Welling's preprocessing and PyG's NormalizeFeatures).
	NormalizeFeatures bool
}

// DefaultGCNConfig is hidden 64, dropout 0.5, weight decay on the first
// layer, row-normalised features.
func DefaultGCNConfig() GCNConfig {
	return GCNConfig{Hidden: 64, Dropout: 0.5, NormalizeFeatures: true}
}

func (c GCNConfig) validate() error {
	if c.Hidden < 1 {
		return fmt.Errorf("hidden width %d must be positive", c.Hidden)
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// GCN is dropout → GCNConv → ReLU → dropout → GCNConv over one graph.
type GCN struct {
	cfg          GCNConfig
	x            *nn.SparseInput[float32]
	adj          *tensor.Adjacency[float32]
	conv1, conv2 *nn.GCNConv[float32]
}

// NewGCN builds a GCN for ds with weights drawn from seed.
func NewGCN(ds *data.NodeDataset, cfg GCNConfig, seed uint64) (*GCN, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("model: gcn: %w", err)
	}
	feats := ds.X
	if cfg.NormalizeFeatures {
		feats = data.RowNormalize(feats)
	}
	x, err := sparseFeatures(feats)
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", ds.Name, err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	return &GCN{
		cfg:   cfg,
		x:     nn.NewSparseInput(x),
		adj:   nn.GCNNorm[float32](ds.Graph.N, ds.Graph.Ptr, ds.Graph.Src),
		conv1: nn.NewGCNConv[float32]("conv1", x.Cols, cfg.Hidden, rng),
		conv2: nn.NewGCNConv[float32]("conv2", cfg.Hidden, ds.NumClasses, rng),
	}, nil
}

// sparseFeatures returns the features as CSR (dense features are converted once).
func sparseFeatures(f data.Features) (*tensor.CSR[float32], error) {
	switch {
	case f.Sparse != nil:
		return f.Sparse, nil
	case f.Dense != nil:
		return tensor.CSRFromDense(f.Dense), nil
	}
	return nil, fmt.Errorf("dataset has no node features")
}

// Forward records the logits of every node.
func (m *GCN) Forward(t *autodiff.Tape[float32], training bool, rng *rand.Rand) *autodiff.Var[float32] {
	x := m.x.Apply(m.cfg.Dropout, rng, training)
	h := autodiff.ReLU(t, m.conv1.ForwardSparse(t, m.adj, x))
	h = autodiff.Dropout(t, h, m.cfg.Dropout, rng, training)
	return m.conv2.Forward(t, m.adj, h)
}

// Groups returns conv1 (decayed) and conv2 (decayed only with DecayAll).
func (m *GCN) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{
		{Name: "conv1", Params: m.conv1.Params()},
		{Name: "conv2", Params: m.conv2.Params(), NoWeightDecay: !m.cfg.DecayAll},
	}
}
