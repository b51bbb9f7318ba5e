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
		Name: "tgnn", Task: data.NodeTask,
		Summary: "TGNN: a classic GNN (GCN, GraphSAGE or GAT) with residuals, normalisation and dropout, to be tuned on validation (Luo et al. 2024)",
		// Luo et al.'s defaults: Adam at lr 0.001 with weight decay 5e-4,
		// 500 epochs (prcaps tune searches the rate with the model's
		// options).
		Recipe:  Recipe{Epochs: 500, LR: 0.001, WeightDecay: 5e-4, Optimizer: "adam", StepEvery: DefaultStepEvery},
		Default: func() Config { c := DefaultTGNNConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewTGNN(*cfg.(*TGNNConfig), shape, seed)
		},
	})
}

// Conv is the message-passing layer of TGNN.
type Conv uint8

const (
	ConvGCN  Conv = iota // nn.GCNConv over D^−½(A+I)D^−½ (default)
	ConvSAGE             // nn.SAGEConv, the mean over in-neighbours
	ConvGAT              // nn.GATConv, Heads heads of Hidden/Heads features, concatenated
)

var convNames = []string{"gcn", "sage", "gat"}

func (c Conv) String() string                { return enumName(convNames, c) }
func (c Conv) MarshalText() ([]byte, error)  { return enumText("conv", convNames, c) }
func (c *Conv) UnmarshalText(b []byte) error { return enumParse("conv", convNames, b, c) }

// Norm is TGNN's normalisation after each layer.
type Norm uint8

const (
	NormNone  Norm = iota // none (default)
	NormLayer             // LayerNorm over each node's features
)

var normNames = []string{"none", "layer"}

func (n Norm) String() string                { return enumName(normNames, n) }
func (n Norm) MarshalText() ([]byte, error)  { return enumText("norm", normNames, n) }
func (n *Norm) UnmarshalText(b []byte) error { return enumParse("norm", normNames, b, n) }

// TGNNConfig configures the classic GNN of Luo et al. (2024, "Classic GNNs
// are strong baselines"), their MPNNs model: Layers message-passing layers
// of width Hidden, each
//
//	h ← dropout(ReLU(norm(conv(h) + [Residual] h·W_res + b_res)))
//
// (with JK the layers' outputs are summed), then a linear classifier. The
// authors tune Conv, Layers, Hidden, Dropout, Norm, Residual and the
// learning rate per dataset on validation accuracy; `prcaps tune` does the
// same. The defaults are their GCN setting for Cora: 3 layers of 512,
// dropout 0.7, no normalisation, no residual.
//
// One difference: their normalisation choices are LayerNorm or BatchNorm;
// prcaps has no BatchNorm, so Norm offers LayerNorm or none.
type TGNNConfig struct {
	Conv     Conv    `opt:"conv" help:"message-passing layer: gcn, sage or gat"`
	Layers   int     `opt:"layers" min:"1" max:"32" help:"message-passing layers"`
	Hidden   int     `opt:"hidden" min:"1" max:"65536" help:"hidden width"`
	Heads    int     `opt:"heads" min:"1" max:"64" help:"with --conv gat: attention heads"`
	Dropout  float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability after each layer"`
	Norm     Norm    `opt:"norm" help:"normalisation after each layer: none or layer (LayerNorm)"`
	Residual bool    `opt:"residual" help:"add a linear residual connection to each layer"`
	// JK sums the outputs of all layers before the classifier (the
	// authors' "jk" switch).
	JK                bool `opt:"jk" help:"classify the sum of every layer's output (jumping knowledge)"`
	NormalizeFeatures bool `opt:"normalize-features" help:"divide each node's input features by their sum"`
}

// TGNNConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = TGNNConfig{}

// DefaultTGNNConfig is Luo et al.'s GCN setting for Cora: 3 layers of 512,
// dropout 0.7, one head for GAT, raw features.
func DefaultTGNNConfig() TGNNConfig {
	return TGNNConfig{Layers: 3, Hidden: 512, Heads: 1, Dropout: 0.7}
}

// Unread implements option.Unreader: attention heads are read by the
// GAT layer only.
func (c TGNNConfig) Unread() map[string]string {
	if c.Conv == ConvGAT {
		return nil
	}
	return map[string]string{"heads": "with --conv " + convNames[c.Conv] + " (heads are GAT's)"}
}

// Validate reports an invalid field.
func (c TGNNConfig) Validate() error {
	switch {
	case c.Conv > ConvGAT:
		return fmt.Errorf("invalid conv %d", c.Conv)
	case c.Norm > NormLayer:
		return fmt.Errorf("invalid norm %d", c.Norm)
	case c.Layers < 1 || c.Layers > 32:
		return fmt.Errorf("%d layers: need 1 to 32", c.Layers)
	case c.Hidden < 1 || c.Hidden > MaxWidth:
		return fmt.Errorf("hidden width %d must be in [1, %d]", c.Hidden, MaxWidth)
	case c.Heads < 1 || c.Heads > 64:
		return fmt.Errorf("%d heads: need 1 to 64", c.Heads)
	case c.Conv == ConvGAT && c.Hidden%c.Heads != 0:
		return fmt.Errorf("hidden width %d is not a multiple of %d heads", c.Hidden, c.Heads)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// ParamBytes implements MemoryEstimator.
func (c TGNNConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

// paramValues counts the parameters: per layer the convolution's in ×
// hidden matrices (SAGE's two) and the residual's, the attention
// vectors, biases and norm (bounded by 6 × hidden), and the classifier.
func (c TGNNConfig) paramValues(shape Shape) float64 {
	h, layers := nonneg(c.Hidden), nonneg(c.Layers)
	mats := 1.0
	if c.Conv == ConvSAGE {
		mats++
	}
	if c.Residual {
		mats++
	}
	return mats*(nonneg(shape.Features)*h+max(layers-1, 0)*h*h) + layers*6*h + (h+1)*nonneg(shape.Classes)
}

// EstimateBytes implements MemoryEstimator: the weights and about eight
// nodes × hidden matrices per layer, and per GAT head the arcs' scores.
func (c TGNNConfig) EstimateBytes(shape Shape, size Size) int64 {
	h, n, layers := nonneg(c.Hidden), nonneg(size.Nodes), nonneg(c.Layers)
	acts := layers * 8 * n * h
	if c.Conv == ConvGAT {
		acts += layers * (nonneg(size.Arcs) + n) * nonneg(c.Heads) * 8
	}
	return bytesOf(trainingValues(c.paramValues(shape)) + 2*acts + operatorValues(size))
}

// tgnnLayer is one message-passing layer with its residual and norm.
type tgnnLayer struct {
	gcn  *nn.GCNConv[float32]
	sage *nn.SAGEConv[float32]
	gat  *nn.GATConv[float32]
	res  *nn.Linear[float32]
	norm *nn.LayerNorm[float32]
}

func (l *tgnnLayer) params() []*autodiff.Var[float32] {
	var ps []*autodiff.Var[float32]
	switch {
	case l.gcn != nil:
		ps = l.gcn.Params()
	case l.sage != nil:
		ps = l.sage.Params()
	default:
		ps = l.gat.Params()
	}
	if l.res != nil {
		ps = append(ps, l.res.Params()...)
	}
	if l.norm != nil {
		ps = append(ps, l.norm.Params()...)
	}
	return ps
}

// TGNN is the tuned classic GNN of Luo et al. (2024) for node
// classification.
type TGNN struct {
	cfg    TGNNConfig
	shape  Shape
	layers []tgnnLayer
	out    *nn.Linear[float32]
	in     nodeInput
	mean   tensor.CSR[float32] // SAGE's neighbour mean
	meanA  tensor.Adjacency[float32]
	gg     nn.GATGraph[float32]
	gen    int        // nodeInput generation mean and gg were built for
	blocks blockInput // the operators of the sampled layers (BlockModel)
}

// TGNN implements NodeEmbedder, checked at compile time.
var _ NodeEmbedder = (*TGNN)(nil)

// NewTGNN builds a TGNN for shape with weights drawn from seed.
func NewTGNN(cfg TGNNConfig, shape Shape, seed uint64) (*TGNN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	m := &TGNN{cfg: cfg, shape: shape, in: nodeInput{normalize: cfg.NormalizeFeatures, operator: gcnOperator}}
	in := shape.Features
	for i := 0; i < cfg.Layers; i++ {
		name := fmt.Sprintf("layer%d", i)
		var l tgnnLayer
		switch cfg.Conv {
		case ConvGCN:
			l.gcn = nn.NewGCNConv[float32](name+".conv", in, cfg.Hidden, rng)
		case ConvSAGE:
			l.sage = nn.NewSAGEConv[float32](name+".conv", in, cfg.Hidden, rng)
		case ConvGAT:
			l.gat = nn.NewGATConv[float32](name+".conv", in, cfg.Hidden/cfg.Heads, cfg.Heads, true, false, rng)
		}
		if cfg.Residual {
			l.res = nn.NewLinear[float32](name+".res", in, cfg.Hidden, true, rng)
		}
		if cfg.Norm == NormLayer {
			l.norm = nn.NewLayerNorm[float32](name+".norm", cfg.Hidden)
		}
		m.layers = append(m.layers, l)
		in = cfg.Hidden
	}
	m.out = nn.NewLinear[float32]("out", cfg.Hidden, shape.Classes, true, rng)
	return m, nil
}

// prepare builds the graph structures the layers need.
func (m *TGNN) prepare(g *data.Graph, x data.Features) {
	m.in.prepare("tgnn", m.shape, g, x)
	if m.gen == m.in.gen {
		return
	}
	switch m.cfg.Conv {
	case ConvSAGE:
		nn.NeighborMeanInto(&m.mean, g.N, g.Ptr, g.Src)
		m.meanA.Reset(&m.mean)
	case ConvGAT:
		m.gg.Reset(g.N, g.Ptr, g.Src)
	}
	m.gen = m.in.gen
}

// conv records layer l on dense h, or on the sparse input when h is nil.
func (m *TGNN) conv(t *autodiff.Tape[float32], l *tgnnLayer, h *autodiff.Var[float32], xs *tensor.Adjacency[float32], training bool, rng *rand.Rand) *autodiff.Var[float32] {
	var y *autodiff.Var[float32]
	switch {
	case l.gcn != nil && h == nil:
		y = l.gcn.ForwardSparse(t, &m.in.adj, xs)
	case l.gcn != nil:
		y = l.gcn.Forward(t, &m.in.adj, h)
	case l.sage != nil && h == nil:
		y = l.sage.ForwardSparse(t, &m.meanA, xs)
	case l.sage != nil:
		y = l.sage.Forward(t, &m.meanA, h)
	case h == nil:
		y = l.gat.ForwardSparse(t, &m.gg, xs, 0, rng, training)
	default:
		y = l.gat.Forward(t, &m.gg, h, 0, rng, training)
	}
	if l.res != nil {
		if h == nil {
			y = autodiff.Add(t, y, l.res.ForwardSparse(t, xs))
		} else {
			y = autodiff.Add(t, y, l.res.Forward(t, h))
		}
	}
	if l.norm != nil {
		y = l.norm.Forward(t, y)
	}
	return y
}

// hidden records the classifier's input: the last layer's output, or with
// JK the sum of every layer's.
func (m *TGNN) hidden(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.prepare(g, x)
	xs := m.in.x.Apply(0, rng, training)
	var h, sum *autodiff.Var[float32]
	for i := range m.layers {
		h = autodiff.ReLUDropout(t, m.conv(t, &m.layers[i], h, xs, training, rng), m.cfg.Dropout, rng, training)
		if m.cfg.JK {
			if sum == nil {
				sum = h
			} else {
				sum = autodiff.Add(t, sum, h)
			}
		}
	}
	if m.cfg.JK {
		return sum
	}
	return h
}

// Forward records the logits of every node.
func (m *TGNN) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	return m.out.Forward(t, m.hidden(t, g, x, training, rng))
}

// Embed records the classifier's input (evaluation mode).
func (m *TGNN) Embed(t *autodiff.Tape[float32], g *data.Graph, x data.Features) *autodiff.Var[float32] {
	return m.hidden(t, g, x, false, nil)
}

// Groups returns every parameter in one group, decayed, as the authors'
// Adam with weight decay does.
func (m *TGNN) Groups() []optim.Group[float32] {
	var ps []*autodiff.Var[float32]
	for i := range m.layers {
		ps = append(ps, m.layers[i].params()...)
	}
	return []optim.Group[float32]{{Name: "weights", Params: append(ps, m.out.Params()...)}}
}
