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

func init() {
	Register(Spec{
		Name: "gcn", Task: data.NodeTask,
		Summary: "two-layer GCN (Kipf & Welling 2017)",
		// Kipf & Welling's Adam at lr 0.01, weight decay 5e-4, 200 epochs.
		Recipe:  NodeRecipe,
		Default: func() Config { c := DefaultGCNConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewGCN(*cfg.(*GCNConfig), shape, seed)
		},
	})
}

// GCNConfig configures the two-layer GCN of Kipf & Welling (2017). Start
// from DefaultGCNConfig, the paper's setting: a zero Hidden is invalid, and
// the other zero fields mean no dropout, decay of the first layer only and
// raw features.
type GCNConfig struct {
	Hidden  int     `opt:"hidden" min:"1" max:"65536" help:"hidden width"`
	Dropout float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability on the input features and the hidden layer"`
	// DecayAll applies weight decay to both layers; by default only the
	// first layer is decayed, as in Kipf & Welling and PyG's example.
	DecayAll bool `opt:"decay-all" help:"weight decay on both layers, not only the first"`
	// NormalizeFeatures divides each node's features by their sum (default
	// on, as Kipf & Welling's preprocessing and PyG's NormalizeFeatures).
	NormalizeFeatures bool `opt:"normalize-features" help:"divide each node's input features by their sum"`
}

// GCNConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = GCNConfig{}

// DefaultGCNConfig is hidden 64, dropout 0.5, weight decay on the first
// layer, row-normalised features.
func DefaultGCNConfig() GCNConfig {
	return GCNConfig{Hidden: 64, Dropout: 0.5, NormalizeFeatures: true}
}

// Validate reports an invalid field.
func (c GCNConfig) Validate() error {
	if c.Hidden < 1 || c.Hidden > MaxWidth {
		return fmt.Errorf("hidden width %d must be in [1, %d]", c.Hidden, MaxWidth)
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// GCN is dropout → GCNConv → ReLU → dropout → GCNConv.
type GCN struct {
	cfg          GCNConfig
	shape        Shape
	conv1, conv2 *nn.GCNConv[float32]
	in           nodeInput
	blocks       blockInput // the operators of the sampled layers (BlockModel)
}

// GCN implements NodeEmbedder, checked at compile time.
var _ NodeEmbedder = (*GCN)(nil)

// NewGCN builds a GCN for shape with weights drawn from seed.
func NewGCN(cfg GCNConfig, shape Shape, seed uint64) (*GCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	return &GCN{
		cfg:   cfg,
		shape: shape,
		conv1: nn.NewGCNConv[float32]("conv1", shape.Features, cfg.Hidden, rng),
		conv2: nn.NewGCNConv[float32]("conv2", cfg.Hidden, shape.Classes, rng),
		in:    nodeInput{normalize: cfg.NormalizeFeatures, operator: gcnOperator},
	}, nil
}

// gcnOperator is GCN's D^−½(A+I)D^−½.
func gcnOperator(a *tensor.CSR[float32], g *data.Graph, deg *[]float64) {
	nn.GCNNormInto(a, g.N, g.Ptr, g.Src, deg)
}

// hidden records the hidden layer, after its ReLU and, in training, the
// dropout before the second layer (one op, autodiff.ReLUDropout).
func (m *GCN) hidden(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.in.prepare("gcn", m.shape, g, x)
	xs := m.in.x.Apply(m.cfg.Dropout, rng, training)
	return autodiff.ReLUDropout(t, m.conv1.ForwardSparse(t, &m.in.adj, xs), m.cfg.Dropout, rng, training)
}

// Forward records the logits of every node.
func (m *GCN) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	return m.conv2.Forward(t, &m.in.adj, m.hidden(t, g, x, training, rng))
}

// Embed records the hidden layer of every node (evaluation mode).
func (m *GCN) Embed(t *autodiff.Tape[float32], g *data.Graph, x data.Features) *autodiff.Var[float32] {
	return m.hidden(t, g, x, false, nil)
}

// Groups returns conv1 (decayed) and conv2 (decayed only with DecayAll).
func (m *GCN) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{
		{Name: "conv1", Params: m.conv1.Params()},
		{Name: "conv2", Params: m.conv2.Params(), NoWeightDecay: !m.cfg.DecayAll},
	}
}
