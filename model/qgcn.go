package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/optim"
	"github.com/prcaps/prcaps/tensor"
)

func init() {
	Register(Spec{
		Name: "qgcn", Task: data.NodeTask,
		Summary: "Q-GCN: a pseudo-Riemannian graph convolution, then a tangent-space linear decoder (Xiong et al. 2022)",
		// The authors' repository defaults: Adam at lr 0.01 with no weight
		// decay, at most 2,000 epochs with patience 100.
		Recipe:  Recipe{Epochs: 2000, Patience: 100, LR: 0.01, Optimizer: "adam", StepEvery: DefaultStepEvery},
		Default: func() Config { c := DefaultQGCNConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewQGCN(*cfg.(*QGCNConfig), shape, seed)
		},
	})
}

// QGCNConfig configures Q-GCN as the authors' repository runs node
// classification by default: its "2 layers" are one nn.QGCNConv from the
// input features to Q_{s,t} with tangent width Hidden = s + t, and HGCN's
// linear decoder on loĝ_o of the result; time dimension t = 1, curvature
// β = −1 fixed, no dropout, raw features (DefaultQGCNConfig; a zero width
// or dimension is invalid, not a default).
type QGCNConfig struct {
	Hidden  int     `opt:"hidden" min:"2" max:"65536" help:"tangent width s + t of the manifold Q_{s,t}"`
	TimeDim int     `opt:"time-dim" min:"1" max:"65536" help:"time dimension t of Q_{s,t}, at most hidden"`
	Beta    float64 `opt:"beta" min:"-1e6" lt:"-1e-4" help:"curvature β of Q"`
	// LearnCurvature trains β; Q-GCN's default keeps it fixed (c = −1).
	LearnCurvature    bool    `opt:"learn-curvature" help:"train the curvature β instead of keeping it fixed"`
	Dropout           float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability of the input features and the hidden layer"`
	NormalizeFeatures bool    `opt:"normalize-features" help:"divide each node's input features by their sum"`
}

// QGCNConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = QGCNConfig{}

// DefaultQGCNConfig is the authors' default: tangent width 128, t = 1,
// β = −1 fixed, no dropout, raw features.
func DefaultQGCNConfig() QGCNConfig { return QGCNConfig{Hidden: 128, TimeDim: 1, Beta: -1} }

// Validate reports an invalid field.
func (c QGCNConfig) Validate() error {
	switch {
	case c.Hidden < 2 || c.Hidden > MaxWidth:
		return fmt.Errorf("hidden width %d must be in [2, %d]", c.Hidden, MaxWidth)
	case c.TimeDim < 1 || c.TimeDim > c.Hidden:
		return fmt.Errorf("time dimension %d must be in [1, hidden width %d]", c.TimeDim, c.Hidden)
	case !(c.Beta < -manifold.BetaOffset) || c.Beta < -1e6:
		return fmt.Errorf("curvature β %v must be in [−1e6, −1e-4)", c.Beta)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// dims is the manifold Q_{s,t} of the hidden layer.
func (c QGCNConfig) dims() manifold.Dims {
	return manifold.Dims{S: c.Hidden - c.TimeDim, T: c.TimeDim}
}

// ParamBytes implements MemoryEstimator.
func (c QGCNConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

// paramValues counts the input weights and bias, the decoder and the
// curvature.
func (c QGCNConfig) paramValues(shape Shape) float64 {
	w := nonneg(c.Hidden) + 1
	return (nonneg(shape.Features)+1)*w + (w+1)*nonneg(shape.Classes) + 1
}

// EstimateBytes implements MemoryEstimator: the input weights and about
// twenty nodes × width matrices recorded by the manifold maps.
func (c QGCNConfig) EstimateBytes(shape Shape, size Size) int64 {
	w := nonneg(c.Hidden) + 1
	return bytesOf(trainingValues(c.paramValues(shape)) + 20*nonneg(size.Nodes)*w + nonneg(size.Arcs) + nonneg(size.Nodes))
}

// QGCN is Q-GCN for node classification: dropout → nn.QGCNConv onto Q →
// loĝ_o → dropout → Linear.
type QGCN struct {
	cfg    QGCNConfig
	shape  Shape
	conv   *nn.QGCNConv[float32]
	dec    *nn.Linear[float32]
	rho    *autodiff.Var[float32]
	in     nodeInput
	hidden manifold.Dims
}

// QGCN implements NodeEmbedder, checked at compile time.
var _ NodeEmbedder = (*QGCN)(nil)

// NewQGCN builds Q-GCN for shape with weights drawn from seed.
func NewQGCN(cfg QGCNConfig, shape Shape, seed uint64) (*QGCN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 9))
	d := cfg.dims()
	return &QGCN{
		cfg: cfg, shape: shape, hidden: d,
		conv: nn.NewQGCNConv[float32]("conv", shape.Features, d, rng),
		dec:  nn.NewLinear[float32]("decoder", cfg.Hidden, shape.Classes, true, rng),
		rho:  manifold.NewCurvatureParam[float32]("curvature", cfg.Beta),
		in:   nodeInput{normalize: cfg.NormalizeFeatures, operator: meanOperator},
	}, nil
}

// meanOperator is the row-normalised D̃⁻¹(A+I), Q-GCN's (and HGCN's)
// default adjacency.
func meanOperator(a *tensor.CSR[float32], g *data.Graph, _ *[]float64) {
	nn.MeanAggInto(a, g.N, g.Ptr, g.Src)
}

// tangent records loĝ_o of the convolution's output, the decoder's input.
func (m *QGCN) tangent(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.in.prepare("qgcn", m.shape, g, x)
	beta := manifold.Beta(t, m.rho)
	xs := m.in.x.Apply(m.cfg.Dropout, rng, training)
	return manifold.LogO(t, m.conv.ForwardSparse(t, &m.in.adj, xs, beta), beta, m.hidden)
}

// Forward records the logits of every node.
func (m *QGCN) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	h := autodiff.Dropout(t, m.tangent(t, g, x, training, rng), m.cfg.Dropout, rng, training)
	return m.dec.Forward(t, h)
}

// Embed records the decoder's input, loĝ_o of each node's point on Q
// (evaluation mode).
func (m *QGCN) Embed(t *autodiff.Tape[float32], g *data.Graph, x data.Features) *autodiff.Var[float32] {
	return m.tangent(t, g, x, false, nil)
}

// Groups returns the weights and the curvature (not decayed; frozen unless
// LearnCurvature).
func (m *QGCN) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{
		{Name: "weights", Params: append(m.conv.Params(), m.dec.Params()...)},
		{Name: "curvature", Params: []*autodiff.Var[float32]{m.rho}, NoWeightDecay: true, Frozen: !m.cfg.LearnCurvature},
	}
}
