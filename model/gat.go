package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/optim"
)

func init() {
	for _, s := range []struct {
		name, summary string
		v2            bool
	}{
		{"gat", "GAT: two graph attention layers, 8 heads × 8 then one head (Veličković et al. 2018)", false},
		{"gatv2", "GATv2: GAT with dynamic attention (Brody et al. 2022), the same layout", true},
	} {
		Register(Spec{
			Name: s.name, Task: data.NodeTask, Summary: s.summary,
			// Veličković et al.'s Adam at lr 0.005 with weight decay 5e-4,
			// stopping after 100 epochs without a better validation accuracy
			// (their patience), at most 1,000 epochs: at 200 the best
			// validation epoch was the last or nearly
			// (docs/notes/baselines.md).
			Recipe:  Recipe{Epochs: 1000, Patience: 100, LR: 0.005, WeightDecay: 5e-4, Optimizer: "adam", StepEvery: DefaultStepEvery},
			Default: func() Config { c := DefaultGATConfig(); c.V2 = s.v2; return &c },
			Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
				return NewGAT(*cfg.(*GATConfig), shape, seed)
			},
		})
	}
}

// GATConfig configures GAT and GATv2 as Veličković et al. and PyG's
// example lay them out: input dropout, an attention layer of Heads heads of
// Hidden features (concatenated) with ELU, dropout, and an output attention
// layer of OutHeads heads (averaged) over the classes; attention
// coefficients dropped out at Dropout too. Start from DefaultGATConfig:
// a zero size is invalid (Validate), not a default.
type GATConfig struct {
	Hidden   int     `opt:"hidden" min:"1" max:"65536" help:"features per head of the hidden attention layer"`
	Heads    int     `opt:"heads" min:"1" max:"64" help:"attention heads of the hidden layer"`
	OutHeads int     `opt:"out-heads" min:"1" max:"64" help:"attention heads of the output layer, averaged"`
	Dropout  float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability of the inputs of both layers and of the attention coefficients"`
	// V2 selects GATv2's attention (the gatv2 model).
	V2                bool
	NormalizeFeatures bool `opt:"normalize-features" help:"divide each node's input features by their sum"`
}

// GATConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = GATConfig{}

// DefaultGATConfig is the published setting: 8 heads × 8 hidden, one
// output head, dropout 0.6 on features and attention, row-normalised
// features.
func DefaultGATConfig() GATConfig {
	return GATConfig{Hidden: 8, Heads: 8, OutHeads: 1, Dropout: 0.6, NormalizeFeatures: true}
}

// Validate reports an invalid field.
func (c GATConfig) Validate() error {
	switch {
	case c.Hidden < 1 || c.Hidden*c.Heads > MaxWidth:
		return fmt.Errorf("hidden width %d × %d heads must be in [1, %d]", c.Hidden, c.Heads, MaxWidth)
	case c.Heads < 1 || c.Heads > 64 || c.OutHeads < 1 || c.OutHeads > 64:
		return fmt.Errorf("%d and %d heads: need 1 to 64", c.Heads, c.OutHeads)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// ParamBytes implements MemoryEstimator.
func (c GATConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

// paramValues counts both layers' weights (two matrices each for GATv2),
// attention vectors and biases.
func (c GATConfig) paramValues(shape Shape) float64 {
	w, cl := nonneg(c.Hidden)*nonneg(c.Heads), nonneg(shape.Classes)
	w2 := cl * nonneg(c.OutHeads)
	return gatConvValues(nonneg(shape.Features), w, c.V2) + gatConvValues(w, w2, c.V2)
}

// gatConvValues counts an nn.GATConv's values from in features to out
// (heads × per-head width): the weights (twice for GATv2), the two
// attention vectors and the bias.
func gatConvValues(in, out float64, v2 bool) float64 {
	weights := in * out
	if v2 {
		weights *= 2
	}
	return weights + 3*out
}

// EstimateBytes implements MemoryEstimator: per head the arcs' scores and
// coefficients, the nodes' projections, and the parameters.
func (c GATConfig) EstimateBytes(shape Shape, size Size) int64 {
	w, links, n := nonneg(c.Hidden)*nonneg(c.Heads), nonneg(size.Arcs)+nonneg(size.Nodes), nonneg(size.Nodes)
	acts := 12*n*w + links*(nonneg(c.Heads)+nonneg(c.OutHeads))*(8+2*nonneg(c.Hidden))
	return bytesOf(trainingValues(c.paramValues(shape)) + 2*acts)
}

// GAT is GAT or GATv2 (cfg.V2) for node classification.
type GAT struct {
	cfg          GATConfig
	shape        Shape
	conv1, conv2 *nn.GATConv[float32]
	in           nodeInput
	gg           nn.GATGraph[float32]
	ggGen        int
	blocks       blockInput // the attention graphs of the sampled layers (BlockModel)
}

// GAT implements NodeEmbedder, checked at compile time.
var _ NodeEmbedder = (*GAT)(nil)

// NewGAT builds GAT (or GATv2) for shape with weights drawn from seed.
func NewGAT(cfg GATConfig, shape Shape, seed uint64) (*GAT, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	return &GAT{
		cfg: cfg, shape: shape,
		conv1: nn.NewGATConv[float32]("conv1", shape.Features, cfg.Hidden, cfg.Heads, true, cfg.V2, rng),
		conv2: nn.NewGATConv[float32]("conv2", cfg.Hidden*cfg.Heads, shape.Classes, cfg.OutHeads, false, cfg.V2, rng),
		in:    nodeInput{normalize: cfg.NormalizeFeatures, operator: gcnOperator},
	}, nil
}

// hidden records the first layer's output, after its ELU.
func (m *GAT) hidden(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.in.prepare("gat", m.shape, g, x)
	if m.ggGen != m.in.gen {
		m.gg.Reset(g.N, g.Ptr, g.Src)
		m.ggGen = m.in.gen
	}
	xs := m.in.x.Apply(m.cfg.Dropout, rng, training)
	return autodiff.ELU(t, m.conv1.ForwardSparse(t, &m.gg, xs, m.cfg.Dropout, rng, training), 1)
}

// Forward records the logits of every node.
func (m *GAT) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	h := autodiff.Dropout(t, m.hidden(t, g, x, training, rng), m.cfg.Dropout, rng, training)
	return m.conv2.Forward(t, &m.gg, h, m.cfg.Dropout, rng, training)
}

// Embed records the hidden layer of every node (evaluation mode).
func (m *GAT) Embed(t *autodiff.Tape[float32], g *data.Graph, x data.Features) *autodiff.Var[float32] {
	return m.hidden(t, g, x, false, nil)
}

// Groups returns both layers' parameters, decayed, as PyG's example does.
func (m *GAT) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{{Name: "weights", Params: append(m.conv1.Params(), m.conv2.Params()...)}}
}
