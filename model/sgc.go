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
	for _, s := range []struct {
		name, summary string
		def           func() SGCConfig
		wd            float64
	}{
		{"sgc", "SGC: S^K X, then a linear classifier (Wu et al. 2019)", DefaultSGCConfig, 5e-6},
		{"ssgc", "SSGC: the averaged propagation α X + (1−α)/K Σ S^k X, then a linear classifier (Zhu & Koniusz 2021)", DefaultSSGCConfig, 1e-5},
	} {
		Register(Spec{
			Name: s.name, Task: data.NodeTask, Summary: s.summary,
			// The authors' code: Adam at lr 0.2, 100 epochs, weight decay
			// 5e-6 (sgc) or 1e-5 (ssgc).
			Recipe:  Recipe{Epochs: 100, LR: 0.2, WeightDecay: s.wd, Optimizer: "adam", StepEvery: DefaultStepEvery},
			Default: func() Config { c := s.def(); return &c },
			Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
				return NewSGC(*cfg.(*SGCConfig), shape, seed)
			},
		})
	}
}

// SGCConfig configures SGC and SSGC: a fixed propagation of the
// (row-normalised) input features, computed once per graph, then a linear
// classifier. Start from DefaultSGCConfig or DefaultSSGCConfig: a zero
// Hops is invalid, not a default.
type SGCConfig struct {
	Hops int `opt:"hops" min:"1" max:"64" help:"propagation steps K"`
	// Alpha is SSGC's weight of the input features in the average.
	Alpha float64 `opt:"alpha" min:"0" max:"1" help:"weight α of the input features in the averaged propagation"`
	// Average selects SSGC's averaged propagation instead of SGC's S^K X.
	Average           bool
	Dropout           float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability of the propagated features"`
	NormalizeFeatures bool    `opt:"normalize-features" help:"divide each node's input features by their sum"`
}

// SGCConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = SGCConfig{}

// DefaultSGCConfig is Wu et al.'s SGC: K = 2, no dropout, row-normalised
// features (their preprocessing).
func DefaultSGCConfig() SGCConfig { return SGCConfig{Hops: 2, NormalizeFeatures: true} }

// DefaultSSGCConfig is Zhu & Koniusz's SSGC as published: K = 16,
// α = 0.05, no dropout, row-normalised features.
func DefaultSSGCConfig() SGCConfig {
	return SGCConfig{Hops: 16, Alpha: 0.05, Average: true, NormalizeFeatures: true}
}

// Validate reports an invalid field.
func (c SGCConfig) Validate() error {
	switch {
	case c.Hops < 1 || c.Hops > 64:
		return fmt.Errorf("%d propagation steps: need 1 to 64", c.Hops)
	case !(c.Alpha >= 0 && c.Alpha <= 1):
		return fmt.Errorf("alpha %v must be in [0, 1]", c.Alpha)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// ParamBytes implements MemoryEstimator: the classifier.
func (c SGCConfig) ParamBytes(shape Shape) int64 {
	return bytesOf(2 * (nonneg(shape.Features) + 1) * nonneg(shape.Classes))
}

// EstimateBytes implements MemoryEstimator: three dense nodes × features
// matrices during the propagation, the dropped-out features, the logits
// and the classifier.
func (c SGCConfig) EstimateBytes(shape Shape, size Size) int64 {
	n, f, cl := nonneg(size.Nodes), nonneg(shape.Features), nonneg(shape.Classes)
	params := (f + 1) * cl
	return bytesOf(4*n*f + trainingValues(params) + 4*n*cl + operatorValues(size))
}

// SGC is a linear classifier on propagated features (SGC or SSGC).
type SGC struct {
	cfg    SGCConfig
	shape  Shape
	linear *nn.Linear[float32]

	g   *data.Graph
	src data.Features
	x   *autodiff.Var[float32] // the propagated features, a constant
}

// SGC implements NodeEmbedder, checked at compile time.
var _ NodeEmbedder = (*SGC)(nil)

// NewSGC builds SGC (or SSGC, with cfg.Average) for shape.
func NewSGC(cfg SGCConfig, shape Shape, seed uint64) (*SGC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 4))
	return &SGC{cfg: cfg, shape: shape, linear: nn.NewLinear[float32]("linear", shape.Features, shape.Classes, true, rng)}, nil
}

// features returns the propagated features of g and x, computing them the
// first time (the time counts in the run's training time).
func (m *SGC) features(g *data.Graph, x data.Features) *autodiff.Var[float32] {
	if m.g == g && m.src == x {
		return m.x
	}
	if x.Cols() != m.shape.Features || x.Rows() != g.N {
		panic(fmt.Sprintf("model: sgc: features are %d × %d for a graph of %d nodes; the model takes %d features",
			x.Rows(), x.Cols(), g.N, m.shape.Features))
	}
	f := x
	if m.cfg.NormalizeFeatures {
		f = data.RowNormalize(f)
	}
	dense := f.Dense
	if dense == nil {
		dense = f.Sparse.ToDense()
	}
	var a tensor.CSR[float32]
	var deg []float64
	nn.GCNNormInto(&a, g.N, g.Ptr, g.Src, &deg)
	m.x = autodiff.NewVar(nn.Propagate(&a, dense, m.cfg.Hops, m.cfg.Alpha, m.cfg.Average), false)
	m.g, m.src = g, x
	return m.x
}

// Forward records the logits of every node.
func (m *SGC) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	h := autodiff.Dropout(t, m.features(g, x), m.cfg.Dropout, rng, training)
	return m.linear.Forward(t, h)
}

// Embed returns the propagated features.
func (m *SGC) Embed(_ *autodiff.Tape[float32], g *data.Graph, x data.Features) *autodiff.Var[float32] {
	return m.features(g, x)
}

// Groups returns the classifier's weight and bias, both decayed, as the
// reference implementations' optimiser does.
func (m *SGC) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{{Name: "linear", Params: m.linear.Params()}}
}
