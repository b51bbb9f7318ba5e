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
		Name: "gin", Task: data.GraphTask,
		Summary: "GIN-0 (Xu et al. 2019): sum aggregation, 2-layer MLPs with batch norm, sum readout of every layer",
		// Xu et al.'s Adam at lr 0.01 halved every 50 epochs, no weight
		// decay, 350 epochs, batch 32.
		Recipe:  Recipe{Epochs: 350, LR: 0.01, Optimizer: "adam", LRSchedule: "step", BatchSize: 32, StepEvery: DefaultStepEvery},
		Default: func() Config { c := DefaultGINConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewGIN(*cfg.(*GINConfig), shape, seed)
		},
	})
}

// GINConfig configures GIN. Start from DefaultGINConfig: a zero width or
// count is invalid, not a default; a zero Dropout is no dropout.
type GINConfig struct {
	Layers  int     `opt:"layers" min:"2" max:"64" help:"layers counting the input, so layers−1 GIN layers"`
	Hidden  int     `opt:"hidden" min:"1" max:"65536" help:"hidden width"`
	Dropout float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability on each layer's readout scores"`
}

// GINConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = GINConfig{}

// DefaultGINConfig is Xu et al.'s TU setting: 5 layers (the input and 4
// GIN layers), hidden 64, dropout 0.5 on the readout scores.
func DefaultGINConfig() GINConfig { return GINConfig{Layers: 5, Hidden: 64, Dropout: 0.5} }

// Validate reports an invalid field.
func (c GINConfig) Validate() error {
	switch {
	case c.Layers < 2 || c.Layers > 64:
		return fmt.Errorf("layers %d must be in [2, 64] (the input counts as one)", c.Layers)
	case c.Hidden < 1 || c.Hidden > MaxWidth:
		return fmt.Errorf("hidden width %d must be in [1, %d]", c.Hidden, MaxWidth)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// GIN is GIN-0 as in the authors' code (Xu et al. 2019, "How powerful are
// graph neural networks?"): Layers−1 GIN layers (nn.GINConv with ε = 0),
// each followed by batch norm and ReLU, and a prediction from every layer,
// the input included: the sum of each graph's node vectors, a linear map
// to class scores and dropout, summed over the layers. Batch norm
// normalises over the nodes of a mini-batch, so GIN trains on whole
// mini-batches (WholeBatch).
type GIN struct {
	cfg   GINConfig
	convs []*nn.GINConv[float32]
	norms []*nn.BatchNorm[float32]
	heads []*nn.Linear[float32] // heads[0] reads the input features

	// Buffers of the current batch: the sum operator and the sparse node
	// features with their transposes.
	batch *data.GraphBatch
	gen   uint64
	a     tensor.CSR[float32]
	sum   tensor.Adjacency[float32]
	x     nn.SparseInput[float32]
}

// GIN implements these, checked at compile time.
var (
	_ GraphModel = (*GIN)(nil)
	_ WholeBatch = (*GIN)(nil)
)

// NewGIN builds GIN for shape with weights drawn from seed.
func NewGIN(cfg GINConfig, shape Shape, seed uint64) (*GIN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if shape.Features < 1 || shape.Classes < 2 {
		return nil, fmt.Errorf("model: gin needs at least 1 feature and 2 classes, got %d and %d", shape.Features, shape.Classes)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	m := &GIN{cfg: cfg}
	in := shape.Features
	for l := 1; l < cfg.Layers; l++ {
		name := fmt.Sprintf("convs.%d", l-1)
		m.convs = append(m.convs, nn.NewGINConv[float32](name, in, cfg.Hidden, cfg.Hidden, rng))
		m.norms = append(m.norms, nn.NewBatchNorm[float32](fmt.Sprintf("norms.%d", l-1), cfg.Hidden))
		in = cfg.Hidden
	}
	for l := 0; l < cfg.Layers; l++ {
		w := cfg.Hidden
		if l == 0 {
			w = shape.Features
		}
		m.heads = append(m.heads, nn.NewLinear[float32](fmt.Sprintf("heads.%d", l), w, shape.Classes, true, rng))
	}
	return m, nil
}

// WholeBatch implements WholeBatch: batch norm spans the mini-batch.
func (m *GIN) WholeBatch() bool { return true }

func (m *GIN) prepare(b *data.GraphBatch) {
	if m.batch == b && m.gen == b.Gen {
		return
	}
	m.batch, m.gen = b, b.Gen
	nn.SumOperatorInto(&m.a, b.N, b.Ptr, b.Src, 0)
	m.sum.Reset(&m.a)
	m.x.Reset(&b.X)
}

// Forward records the logits (graphs × classes) of the graphs of b.
func (m *GIN) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.prepare(b)
	x := m.x.Apply(0, rng, training)
	// The input's readout: Σ_v x_v·W + b as the sum of x_v·W.
	head := m.heads[0]
	score := autodiff.Dropout(t, head.AddBias(t, autodiff.ScatterAddRows(t, autodiff.SpMMTransposed(t, x, head.W), b.Seg)), m.cfg.Dropout, rng, training)
	var h *autodiff.Var[float32]
	for l, conv := range m.convs {
		var z *autodiff.Var[float32]
		if l == 0 {
			z = conv.ForwardSparse(t, &m.sum, x, training)
		} else {
			z = conv.Forward(t, &m.sum, h, training)
		}
		h = autodiff.ReLU(t, m.norms[l].Forward(t, z, training))
		s := m.heads[l+1].Forward(t, autodiff.ScatterAddRows(t, h, b.Seg))
		score = autodiff.Add(t, score, autodiff.Dropout(t, s, m.cfg.Dropout, rng, training))
	}
	return score
}

// Groups implements Model: the weights, then the batch norms' running
// statistics as a buffer group. No parameter is exempt from weight decay,
// as in the authors' optimiser (which uses none).
func (m *GIN) Groups() []optim.Group[float32] {
	var ws, bufs []*autodiff.Var[float32]
	for l, c := range m.convs {
		ws = append(append(ws, c.Params()...), m.norms[l].Params()...)
		bufs = append(append(bufs, c.Buffers()...), m.norms[l].Buffers()...)
	}
	for _, h := range m.heads {
		ws = append(ws, h.Params()...)
	}
	return []optim.Group[float32]{{Name: "weights", Params: ws}, {Name: "batch statistics", Params: bufs, Buffer: true}}
}

// ParamBytes implements MemoryEstimator.
func (c GINConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

// paramValues counts the GIN layers (two linear maps and a batch norm in
// the MLP, the batch norm after it, with their running statistics) and
// the per-layer heads.
func (c GINConfig) paramValues(shape Shape) float64 {
	h, f, cl := nonneg(c.Hidden), nonneg(shape.Features), nonneg(shape.Classes)
	convs := max(nonneg(c.Layers)-1, 0)
	if convs == 0 {
		return (f + 1) * cl
	}
	return (f+1)*h + (convs-1)*(h+1)*h + convs*((h+1)*h+8*h) + (f+1)*cl + convs*(h+1)*cl
}

// EstimateBytes implements MemoryEstimator: per GIN layer about ten nodes
// × hidden tensors (the aggregation and the MLP's products, batch norms
// and ReLUs) and the graphs' sums, the input's readout, on the training
// and the evaluation tape and with their gradients; the sum operator and
// the parameters.
func (c GINConfig) EstimateBytes(shape Shape, size Size) int64 {
	h, n, g, cl := nonneg(c.Hidden), nonneg(size.Nodes), graphsOf(size), nonneg(shape.Classes)
	convs := max(nonneg(c.Layers)-1, 0)
	acts := convs*(10*n*h+g*h+4*g*cl) + n*cl + 4*g*cl
	return bytesOf(trainingValues(c.paramValues(shape)) + 3*acts + operatorValues(size))
}
