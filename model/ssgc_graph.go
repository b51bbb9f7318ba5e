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
		Name: "ssgc", Task: data.GraphTask,
		Summary: "SSGClassifier: SSGC's averaged propagation within each graph, a node MLP layer, mean readout, linear head",
		// No published optimiser for this classifier: GIN's TU setting.
		Recipe:  GraphRecipe,
		Default: func() Config { c := DefaultSSGCGraphConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewSSGCGraph(*cfg.(*SSGCGraphConfig), shape, seed)
		},
	})
}

// SSGCGraphConfig configures the SSGC graph classifier. SSGC (Zhu &
// Koniusz 2021) is a node method; the paper's "SSGClassifier" does not
// say how it reads graphs, so this is the plainest reading: SSGC's
// propagation of the node features inside each graph (no parameters),
// one ReLU layer on every node, the mean over the graph's nodes, a linear
// head. Start from DefaultSSGCGraphConfig: zero Hops and Hidden are
// invalid, not defaults.
type SSGCGraphConfig struct {
	Hops    int     `opt:"hops" min:"1" max:"64" help:"propagation steps K within each graph"`
	Alpha   float64 `opt:"alpha" min:"0" max:"1" help:"weight α of the input features in the averaged propagation"`
	Hidden  int     `opt:"hidden" min:"1" max:"65536" help:"width of the node MLP layer"`
	Dropout float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability after the node MLP layer"`
}

// SSGCGraphConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = SSGCGraphConfig{}

// DefaultSSGCGraphConfig is SSGC's published K = 16, α = 0.05, with a
// hidden layer of 64 and dropout 0.5.
func DefaultSSGCGraphConfig() SSGCGraphConfig {
	return SSGCGraphConfig{Hops: 16, Alpha: 0.05, Hidden: 64, Dropout: 0.5}
}

// Validate reports an invalid field.
func (c SSGCGraphConfig) Validate() error {
	switch {
	case c.Hops < 1 || c.Hops > 64:
		return fmt.Errorf("hops %d must be in [1, 64]", c.Hops)
	case !(c.Alpha >= 0 && c.Alpha <= 1):
		return fmt.Errorf("alpha %v must be in [0, 1]", c.Alpha)
	case c.Hidden < 1 || c.Hidden > MaxWidth:
		return fmt.Errorf("hidden width %d must be in [1, %d]", c.Hidden, MaxWidth)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// SSGCGraph is the SSGC graph classifier (see SSGCGraphConfig).
type SSGCGraph struct {
	cfg    SSGCGraphConfig
	hidden *nn.Linear[float32]
	out    *nn.Linear[float32]
	batch  *data.GraphBatch
	gen    uint64
	x      *autodiff.Var[float32] // the batch's propagated features
	dense  tensor.Dense[float32]  // the batch's features, dense
	prop   nn.Propagator[float32] // x's working memory
	mean   meanReadout
	a      tensor.CSR[float32]
	deg    []float64
}

// SSGCGraph implements GraphEmbedder, checked at compile time.
var _ GraphEmbedder = (*SSGCGraph)(nil)

// NewSSGCGraph builds the classifier for shape with weights drawn from seed.
func NewSSGCGraph(cfg SSGCGraphConfig, shape Shape, seed uint64) (*SSGCGraph, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if shape.Features < 1 || shape.Classes < 2 {
		return nil, fmt.Errorf("model: ssgc needs at least 1 feature and 2 classes, got %d and %d", shape.Features, shape.Classes)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	return &SSGCGraph{
		cfg:    cfg,
		hidden: nn.NewLinear[float32]("hidden", shape.Features, cfg.Hidden, true, rng),
		out:    nn.NewLinear[float32]("out", cfg.Hidden, shape.Classes, true, rng),
	}, nil
}

// prepare propagates the batch's features with GCN's operator of the
// block-diagonal batch graph, which never mixes two graphs.
func (m *SSGCGraph) prepare(b *data.GraphBatch) {
	if m.batch == b && m.gen == b.Gen {
		return
	}
	m.batch, m.gen = b, b.Gen
	nn.GCNNormInto(&m.a, b.N, b.Ptr, b.Src, &m.deg)
	b.X.DenseInto(&m.dense)
	if m.x == nil {
		m.x = autodiff.NewVar(tensor.NewDense[float32](0, 0), false)
	}
	m.prop.Into(&m.x.Value, &m.a, &m.dense, m.cfg.Hops, m.cfg.Alpha, true)
	m.mean.reset(b)
}

// Embed records each graph's pooled hidden representation.
func (m *SSGCGraph) Embed(t *autodiff.Tape[float32], b *data.GraphBatch) *autodiff.Var[float32] {
	return m.pooled(t, b, false, nil)
}

func (m *SSGCGraph) pooled(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.prepare(b)
	h := autodiff.ReLUDropout(t, m.hidden.Forward(t, m.x), m.cfg.Dropout, rng, training)
	return m.mean.forward(t, h, b)
}

// Forward records the logits (graphs × classes) of the graphs of b.
func (m *SSGCGraph) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	return m.out.Forward(t, m.pooled(t, b, training, rng))
}

// Groups returns every parameter in one group.
func (m *SSGCGraph) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{{Name: "weights", Params: append(m.hidden.Params(), m.out.Params()...)}}
}

// ParamBytes implements MemoryEstimator.
func (c SSGCGraphConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

func (c SSGCGraphConfig) paramValues(shape Shape) float64 {
	h := nonneg(c.Hidden)
	return (nonneg(shape.Features)+1)*h + (h+1)*nonneg(shape.Classes)
}

// EstimateBytes implements MemoryEstimator: the batch's features, dense,
// and their propagation with its two working matrices (nodes × features,
// no gradient); the hidden layer's nodes × hidden tensors and the graphs'
// means on the training and the evaluation tape, with their gradients;
// the operator and the parameters.
func (c SSGCGraphConfig) EstimateBytes(shape Shape, size Size) int64 {
	h, n, g, f := nonneg(c.Hidden), nonneg(size.Nodes), graphsOf(size), nonneg(shape.Features)
	acts := 3*n*h + 3*g*h + 2*g*nonneg(shape.Classes)
	return bytesOf(trainingValues(c.paramValues(shape)) + 4*n*f + 3*acts + operatorValues(size))
}
