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
		{"gat", "GAT with a graph readout: two attention layers of 8 heads, mean over each graph's nodes, linear head", false},
		{"gatv2", "GATv2 with a graph readout: GAT's layout with dynamic attention", true},
	} {
		Register(Spec{
			Name: s.name, Task: data.GraphTask, Summary: s.summary,
			// GAT's optimiser (Adam at lr 0.005, weight decay 5e-4) for the
			// graph defaults' 100 epochs and batch of 16.
			Recipe:  Recipe{Epochs: 100, LR: 0.005, WeightDecay: 5e-4, Optimizer: "adam", BatchSize: DefaultBatchSize, StepEvery: DefaultStepEvery},
			Default: func() Config { c := DefaultGATGraphConfig(); c.V2 = s.v2; return &c },
			Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
				return NewGATGraph(*cfg.(*GATGraphConfig), shape, seed)
			},
		})
	}
}

// Readout is how a graph model pools its nodes into one row per graph.
type Readout uint8

const (
	ReadoutMean Readout = iota // mean of the graph's node rows
	ReadoutSum                 // sum of the graph's node rows
)

var readoutNames = []string{"mean", "sum"}

func (r Readout) String() string                { return enumName(readoutNames, r) }
func (r Readout) MarshalText() ([]byte, error)  { return enumText("readout", readoutNames, r) }
func (r *Readout) UnmarshalText(b []byte) error { return enumParse("readout", readoutNames, b, r) }

// GATGraphConfig configures GAT and GATv2 for graph classification, in
// the layout whose parameter counts match the paper's Table 2 exactly (for
// GAT: 64·features + 1,298 with two classes): an attention layer of Heads
// heads of Hidden features (concatenated) with ELU, dropout, an attention
// layer of Heads heads of one feature per class (concatenated) with ELU,
// the readout over each graph's nodes, and a linear map from Heads·classes
// to the classes. Dropout applies to the input features, the hidden layer
// and the attention coefficients, as in GAT. Start from
// DefaultGATGraphConfig: a zero size is invalid, not a default.
type GATGraphConfig struct {
	Hidden  int     `opt:"hidden" min:"1" max:"65536" help:"features per head of the attention layers"`
	Heads   int     `opt:"heads" min:"1" max:"64" help:"attention heads of each layer"`
	Dropout float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability of the layers' inputs and of the attention coefficients"`
	Readout Readout `opt:"readout" help:"pooling of each graph's nodes, mean or sum"`
	// V2 selects GATv2's attention (the gatv2 model).
	V2 bool
}

// GATGraphConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = GATGraphConfig{}

// DefaultGATGraphConfig is GAT's published layer setting (8 heads × 8
// hidden, dropout 0.6) with a mean readout.
func DefaultGATGraphConfig() GATGraphConfig {
	return GATGraphConfig{Hidden: 8, Heads: 8, Dropout: 0.6}
}

// Validate reports an invalid field.
func (c GATGraphConfig) Validate() error {
	switch {
	case c.Hidden < 1 || c.Hidden*c.Heads > MaxWidth:
		return fmt.Errorf("hidden width %d × %d heads must be in [1, %d]", c.Hidden, c.Heads, MaxWidth)
	case c.Heads < 1 || c.Heads > 64:
		return fmt.Errorf("%d heads: need 1 to 64", c.Heads)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	case c.Readout > ReadoutSum:
		return fmt.Errorf("unknown readout %d", c.Readout)
	}
	return nil
}

// GATGraph is GAT or GATv2 (cfg.V2) for graph classification.
type GATGraph struct {
	cfg          GATGraphConfig
	conv1, conv2 *nn.GATConv[float32]
	out          *nn.Linear[float32]

	batch *data.GraphBatch
	gen   uint64
	gg    nn.GATGraph[float32]
	x     nn.SparseInput[float32]
	mean  meanReadout
}

// GATGraph implements GraphEmbedder, checked at compile time.
var _ GraphEmbedder = (*GATGraph)(nil)

// NewGATGraph builds the model for shape with weights drawn from seed.
func NewGATGraph(cfg GATGraphConfig, shape Shape, seed uint64) (*GATGraph, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if shape.Features < 1 || shape.Classes < 2 {
		return nil, fmt.Errorf("model: gat needs at least 1 feature and 2 classes, got %d and %d", shape.Features, shape.Classes)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	return &GATGraph{
		cfg:   cfg,
		conv1: nn.NewGATConv[float32]("conv1", shape.Features, cfg.Hidden, cfg.Heads, true, cfg.V2, rng),
		conv2: nn.NewGATConv[float32]("conv2", cfg.Hidden*cfg.Heads, shape.Classes, cfg.Heads, true, cfg.V2, rng),
		out:   nn.NewLinear[float32]("out", cfg.Heads*shape.Classes, shape.Classes, true, rng),
	}, nil
}

func (m *GATGraph) prepare(b *data.GraphBatch) {
	if m.batch == b && m.gen == b.Gen {
		return
	}
	m.batch, m.gen = b, b.Gen
	m.gg.Reset(b.N, b.Ptr, b.Src)
	m.x.Reset(&b.X)
	m.mean.reset(b)
}

// Embed records each graph's pooled representation (evaluation mode).
func (m *GATGraph) Embed(t *autodiff.Tape[float32], b *data.GraphBatch) *autodiff.Var[float32] {
	return m.pooled(t, b, false, nil)
}

func (m *GATGraph) pooled(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.prepare(b)
	d := m.cfg.Dropout
	h := autodiff.ELU(t, m.conv1.ForwardSparse(t, &m.gg, m.x.Apply(d, rng, training), d, rng, training), 1)
	h = autodiff.Dropout(t, h, d, rng, training)
	h = autodiff.ELU(t, m.conv2.Forward(t, &m.gg, h, d, rng, training), 1)
	if m.cfg.Readout == ReadoutMean {
		return m.mean.forward(t, h, b)
	}
	return autodiff.ScatterAddRows(t, h, b.Seg)
}

// Forward records the logits (graphs × classes) of the graphs of b.
func (m *GATGraph) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	return m.out.Forward(t, m.pooled(t, b, training, rng))
}

// Groups returns every parameter, decayed, as GAT's optimiser does.
func (m *GATGraph) Groups() []optim.Group[float32] {
	ps := append(m.conv1.Params(), m.conv2.Params()...)
	return []optim.Group[float32]{{Name: "weights", Params: append(ps, m.out.Params()...)}}
}

// ParamBytes implements MemoryEstimator.
func (c GATGraphConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

// paramValues counts the two attention layers (the second of Heads heads
// of one value per class) and the linear head.
func (c GATGraphConfig) paramValues(shape Shape) float64 {
	w, cl := nonneg(c.Hidden)*nonneg(c.Heads), nonneg(shape.Classes)
	w2 := nonneg(c.Heads) * cl
	return gatConvValues(nonneg(shape.Features), w, c.V2) + gatConvValues(w, w2, c.V2) + (w2+1)*cl
}

// EstimateBytes implements MemoryEstimator: as the node network's, per
// head the arcs' scores and coefficients and the nodes' projections of
// both layers, the readout, each with its gradient, and the parameters.
func (c GATGraphConfig) EstimateBytes(shape Shape, size Size) int64 {
	heads, cl := nonneg(c.Heads), nonneg(shape.Classes)
	w, w2 := nonneg(c.Hidden)*heads, heads*cl
	links, n, g := nonneg(size.Arcs)+nonneg(size.Nodes), nonneg(size.Nodes), graphsOf(size)
	acts := 12*n*(w+w2) + links*heads*(16+2*nonneg(c.Hidden)+2*cl) + 2*g*w2 + 2*g*cl
	return bytesOf(trainingValues(c.paramValues(shape)) + 2*acts + operatorValues(size))
}
