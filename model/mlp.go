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
	Register(Spec{
		Name: "mlp", Task: data.GraphTask,
		Summary: "structure-agnostic baseline (Errica et al. 2020): the sum of a graph's node features through an MLP, no edges",
		// The middle of Errica et al.'s grid for their structure-agnostic
		// baseline: Adam at lr 0.001 with weight decay 0.001, at most 5,000
		// epochs with patience 500 (their early stopping), batch 32 (their
		// smaller batch).
		Recipe:  Recipe{Epochs: 5000, Patience: 500, LR: 0.001, WeightDecay: 0.001, Optimizer: "adam", BatchSize: 32, StepEvery: DefaultStepEvery},
		Default: func() Config { c := DefaultMLPConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewMLP(*cfg.(*MLPConfig), shape, seed)
		},
	})
}

// MLPConfig configures the structure-agnostic baseline. A zero Hidden
// means 128.
type MLPConfig struct {
	Hidden int `opt:"hidden" min:"1" max:"65536" help:"hidden width"`
	// OutputReLU applies a ReLU to the class scores, as Errica et al.'s
	// code does. Off by default: with one fixed configuration instead of
	// their grid, it kills every logit of some folds (on MUTAG 5 of 10
	// folds predicted one class throughout).
	OutputReLU bool `opt:"output-relu" help:"a ReLU on the class scores, as Errica et al.'s code has (off: it kills every logit of some folds)"`
}

// MLPConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = MLPConfig{}

// DefaultMLPConfig is hidden 128 (the middle of Errica et al.'s grid
// 32/128/256), no output ReLU.
func DefaultMLPConfig() MLPConfig { return MLPConfig{Hidden: 128} }

// Validate reports an invalid field.
func (c MLPConfig) Validate() error {
	if c.Hidden < 1 || c.Hidden > MaxWidth {
		return fmt.Errorf("hidden width %d must be in [1, %d]", c.Hidden, MaxWidth)
	}
	return nil
}

// MLP is the structure-agnostic baseline of Errica et al. (ICLR 2020, "A
// fair comparison of graph neural networks for graph classification"), in
// the form of their code for chemical data sets (MolecularFingerprint):
// the sum of each graph's node features, Linear → ReLU → Linear (their
// code adds a ReLU on the class scores: OutputReLU). It
// never reads an edge, so a graph model that does not beat it does not
// use the structure.
type MLP struct {
	cfg      MLPConfig
	hid, out *nn.Linear[float32]

	batch *data.GraphBatch
	gen   uint64
	x     nn.SparseInput[float32]
}

// MLP implements GraphModel, checked at compile time.
var _ GraphModel = (*MLP)(nil)

// NewMLP builds the baseline for shape with weights drawn from seed.
func NewMLP(cfg MLPConfig, shape Shape, seed uint64) (*MLP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if shape.Features < 1 || shape.Classes < 2 {
		return nil, fmt.Errorf("model: mlp needs at least 1 feature and 2 classes, got %d and %d", shape.Features, shape.Classes)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	return &MLP{
		cfg: cfg,
		hid: nn.NewLinear[float32]("mlp.0", shape.Features, cfg.Hidden, true, rng),
		out: nn.NewLinear[float32]("mlp.2", cfg.Hidden, shape.Classes, true, rng),
	}, nil
}

// Forward records the logits (graphs × classes) of the graphs of b. The
// first layer of the sum, (Σ_v x_v)·W + b, is taken as Σ_v (x_v·W), which
// keeps the one-hot features sparse.
func (m *MLP) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	if m.batch != b || m.gen != b.Gen {
		m.batch, m.gen = b, b.Gen
		m.x.Reset(&b.X)
	}
	x := m.x.Apply(0, rng, training)
	h := autodiff.ReLU(t, m.hid.AddBias(t, autodiff.ScatterAddRows(t, autodiff.SpMMTransposed(t, x, m.hid.W), b.Seg)))
	y := m.out.Forward(t, h)
	if m.cfg.OutputReLU {
		y = autodiff.ReLU(t, y)
	}
	return y
}

// Groups implements Model: one group (Errica et al.'s L2 applies to all).
func (m *MLP) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{{Name: "weights", Params: append(m.hid.Params(), m.out.Params()...)}}
}

// ParamBytes implements MemoryEstimator.
func (c MLPConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

func (c MLPConfig) paramValues(shape Shape) float64 {
	h := nonneg(c.Hidden)
	return (nonneg(shape.Features)+1)*h + (h+1)*nonneg(shape.Classes)
}

// EstimateBytes implements MemoryEstimator: the nodes' products with the
// first layer's weights, the graphs' sums, bias and ReLU, and the logits,
// on the training and the evaluation tape, with the gradients (two of the
// nodes' products live at once), and the parameters.
func (c MLPConfig) EstimateBytes(shape Shape, size Size) int64 {
	h, n, g := nonneg(c.Hidden), nonneg(size.Nodes), graphsOf(size)
	acts := n*h + 3*g*h + 2*g*nonneg(shape.Classes)
	return bytesOf(trainingValues(c.paramValues(shape)) + 4*acts + 2*n)
}
