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
		Name: "dgcnn", Task: data.NodeTask,
		Summary: "DGCNN's graph-convolution stack (Zhang et al. 2018) with a per-node dense head",
		// DGCNN's published lr 1e-4 underfits 200 epochs of node
		// classification (docs/notes/baselines.md): GCN's setting instead.
		Recipe:  NodeRecipe,
		Default: func() Config { c := DefaultDGCNNConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewDGCNN(*cfg.(*DGCNNConfig), shape, seed)
		},
	})
}

// DGCNNConfig configures DGCNN's convolution stack for node
// classification: graph convolutions Z_{t+1} = tanh(D̃^−1 Ã Z_t W_t) of
// Channels widths, whose outputs are concatenated (DGCNN's multi-scale
// node representation), then the dense head of DGCNN's classifier applied
// to each node: Linear(Σ channels → Dense) → ReLU → dropout → Linear(→
// classes). DGCNN's SortPooling and 1-D convolutions, which turn the node
// representations into one per graph, have no place in node
// classification and are left out.
type DGCNNConfig struct {
	// Channels are the convolutions' widths (default 32, 32, 32, 1).
	Channels []int
	Dense    int     `opt:"dense" min:"1" max:"65536" help:"width of the dense head"`
	Dropout  float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability before the dense head's output layer"`
}

// DGCNNConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = DGCNNConfig{}

// DefaultDGCNNConfig is DGCNN's published stack (32, 32, 32, 1) and head
// (128 units, dropout 0.5).
func DefaultDGCNNConfig() DGCNNConfig {
	return DGCNNConfig{Channels: []int{32, 32, 32, 1}, Dense: 128, Dropout: 0.5}
}

// Validate reports an invalid field.
func (c DGCNNConfig) Validate() error {
	if len(c.Channels) == 0 || len(c.Channels) > MaxRoutingLayers {
		return fmt.Errorf("%d convolutions: need 1 to %d", len(c.Channels), MaxRoutingLayers)
	}
	for _, w := range c.Channels {
		if w < 1 || w > MaxWidth {
			return fmt.Errorf("convolution width %d must be in [1, %d]", w, MaxWidth)
		}
	}
	switch {
	case c.Dense < 1 || c.Dense > MaxWidth:
		return fmt.Errorf("dense width %d must be in [1, %d]", c.Dense, MaxWidth)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// DGCNN is DGCNN's convolution stack with a per-node head.
type DGCNN struct {
	cfg   DGCNNConfig
	shape Shape
	convs []*nn.GCNConv[float32]
	dense *nn.Linear[float32]
	out   *nn.Linear[float32]
	in    nodeInput
}

// DGCNN implements NodeEmbedder, checked at compile time.
var _ NodeEmbedder = (*DGCNN)(nil)

// NewDGCNN builds the model for shape with weights drawn from seed.
func NewDGCNN(cfg DGCNNConfig, shape Shape, seed uint64) (*DGCNN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 6))
	m := &DGCNN{cfg: cfg, shape: shape, in: nodeInput{operator: func(a *tensor.CSR[float32], g *data.Graph, _ *[]float64) {
		nn.MeanAggInto(a, g.N, g.Ptr, g.Src)
	}}}
	width, total := shape.Features, 0
	for i, w := range cfg.Channels {
		m.convs = append(m.convs, nn.NewGCNConv[float32](fmt.Sprintf("conv%d", i), width, w, rng))
		width, total = w, total+w
	}
	m.dense = nn.NewLinear[float32]("dense", total, cfg.Dense, true, rng)
	m.out = nn.NewLinear[float32]("out", cfg.Dense, shape.Classes, true, rng)
	return m, nil
}

// Embed records each node's concatenated multi-scale representation.
func (m *DGCNN) Embed(t *autodiff.Tape[float32], g *data.Graph, x data.Features) *autodiff.Var[float32] {
	m.in.prepare("dgcnn", m.shape, g, x)
	// The layers' outputs live on the stack (up to 16 convolutions): the
	// model keeps no per-pass state, so passes on two tapes may run at once.
	var buf [16]*autodiff.Var[float32]
	layers := buf[:]
	if len(m.convs) > len(buf) {
		layers = make([]*autodiff.Var[float32], len(m.convs))
	}
	layers = layers[:len(m.convs)]
	h := autodiff.Tanh(t, m.convs[0].ForwardSparse(t, &m.in.adj, m.in.x.Apply(0, nil, false)))
	layers[0] = h
	for i, c := range m.convs[1:] {
		h = autodiff.Tanh(t, c.Forward(t, &m.in.adj, h))
		layers[i+1] = h
	}
	return autodiff.ConcatCols(t, layers...)
}

// Forward records the logits of every node.
func (m *DGCNN) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	h := autodiff.ReLU(t, m.dense.Forward(t, m.Embed(t, g, x)))
	return m.out.Forward(t, autodiff.Dropout(t, h, m.cfg.Dropout, rng, training))
}

// Groups returns every parameter, decayed.
func (m *DGCNN) Groups() []optim.Group[float32] {
	var ps []*autodiff.Var[float32]
	for _, c := range m.convs {
		ps = append(ps, c.Params()...)
	}
	ps = append(ps, m.dense.Params()...)
	return []optim.Group[float32]{{Name: "weights", Params: append(ps, m.out.Params()...)}}
}

// ParamBytes implements MemoryEstimator.
func (c DGCNNConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

// paramValues counts the convolutions' weights and biases and the dense
// head's.
func (c DGCNNConfig) paramValues(shape Shape) float64 {
	convs, total := dgcnnConvValues(c.Channels, nonneg(shape.Features))
	d := nonneg(c.Dense)
	return convs + (total+1)*d + (d+1)*nonneg(shape.Classes)
}

// dgcnnConvValues counts the graph convolutions of the widths channels
// from in features (weights and biases) and returns it with the sum of
// the widths, the concatenation's.
func dgcnnConvValues(channels []int, in float64) (values, total float64) {
	for _, w := range channels {
		values += (in + 1) * nonneg(w)
		in, total = nonneg(w), total+nonneg(w)
	}
	return values, total
}

// EstimateBytes implements MemoryEstimator: per convolution three nodes ×
// width tensors (product, aggregation, tanh), their concatenation, the
// dense head's four nodes × Dense tensors and the logits, each with its
// gradient and the ops' buffers, the mean operator and the parameters
// (with dense 65536 on Cora 5.6 GiB against a peak resident 6.6 GiB).
func (c DGCNNConfig) EstimateBytes(shape Shape, size Size) int64 {
	n := nonneg(size.Nodes)
	_, total := dgcnnConvValues(c.Channels, 0)
	acts := n * (4*total + 4*nonneg(c.Dense) + 2*nonneg(shape.Classes))
	return bytesOf(trainingValues(c.paramValues(shape)) + 3*acts + operatorValues(size))
}
