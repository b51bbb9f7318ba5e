package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/optim"
	"github.com/prcaps/prcaps/tensor"
)

func init() {
	Register(Spec{
		Name: "graphgps", Task: data.NodeTask,
		Summary: "GraphGPS: GPS layers of GCN and global attention (full or Performer) on features and random-walk encodings (Rampášek et al. 2022)",
		// GraphGPS's optimiser: AdamW at lr 0.001 with weight decay 1e-5,
		// cosine annealing, clipping at 1, 200 epochs (their warm-up is not
		// modelled).
		Recipe:  Recipe{Epochs: 200, LR: 0.001, WeightDecay: 1e-5, Optimizer: "adamw", Clip: 1, LRSchedule: "cosine", StepEvery: DefaultStepEvery},
		Default: func() Config { c := DefaultGraphGPSConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewGraphGPS(*cfg.(*GraphGPSConfig), shape, seed)
		},
	})
}

// GPSAttention is the global attention of GraphGPS's layers.
type GPSAttention uint8

const (
	// GPSAttentionAuto is full attention on graphs of up to
	// GPSFullAttentionMaxNodes nodes and Performer on larger ones.
	GPSAttentionAuto      GPSAttention = iota
	GPSAttentionFull                   // exact softmax attention (GraphGPS's Transformer)
	GPSAttentionPerformer              // FAVOR+, linear in the nodes (GraphGPS's Performer)
)

var gpsAttentionNames = []string{"auto", "full", "performer"}

func (a GPSAttention) String() string { return enumName(gpsAttentionNames, a) }
func (a GPSAttention) MarshalText() ([]byte, error) {
	return enumText("attention", gpsAttentionNames, a)
}
func (a *GPSAttention) UnmarshalText(b []byte) error {
	return enumParse("attention", gpsAttentionNames, b, a)
}

// GPSNorm is the normalisation of GraphGPS's layers and head.
type GPSNorm uint8

const (
	GPSNormLayer GPSNorm = iota // LayerNorm (default), in place of GraphGPS's BatchNorm
	GPSNormNone                 // none, as GraphGPS's Cora configurations set
)

var gpsNormNames = []string{"layer", "none"}

func (n GPSNorm) String() string                { return enumName(gpsNormNames, n) }
func (n GPSNorm) MarshalText() ([]byte, error)  { return enumText("norm", gpsNormNames, n) }
func (n *GPSNorm) UnmarshalText(b []byte) error { return enumParse("norm", gpsNormNames, b, n) }

// GPSFullAttentionMaxNodes is the largest graph on which GPSAttentionAuto
// runs full attention. Full attention's memory is O(n·hidden) here (the
// fused autodiff.Attention), but its time grows as n²: a step at this size
// costs about 14 times one on Cora, one on Coauthor CS (18,333 nodes) 46
// times. Cora and CiteSeer run full attention, PubMed and Coauthor CS
// Performer.
const GPSFullAttentionMaxNodes = 10000

// GraphGPSConfig configures GraphGPS (Rampášek et al. 2022) for node
// classification as its authors' configurations for Cora do
// (configs/GPS/cora-GPS+RWSE.yaml in their repository):
//
//   - an encoder: the input features through a linear layer to
//     Hidden − PEDim dimensions, concatenated with PEDim dimensions encoded
//     linearly from the random-walk structural encoding (RWSE, the return
//     probabilities of 1 to RWSESteps steps, nn.RWSEInto) after
//     standardising its columns (their raw BatchNorm; see
//     nn.StandardizeColumns);
//   - Layers GPS layers (nn.GPSLayer) of width Hidden: GCN as the local
//     MPNN ("GCN+Transformer"), global attention with Heads heads,
//     Dropout on both branches and the feed-forward block, AttnDropout
//     inside the attention;
//   - their node head (GraphGym's MLP of layers_post_mp = HeadLayers
//     layers): HeadLayers − 1 layers Linear → Norm → Dropout → GELU, then a
//     Linear to the classes.
//
// The defaults are that file's: hidden 64, 3 layers, 4 heads, dropout 0.2,
// attention dropout 0.5, PE dimension 28, a 3-layer head, GELU, raw
// features (GraphGPS loads Planetoid without NormalizeFeatures). Two
// differences: RWSE takes 16 steps (the file has 14; 16 is GraphGPS's
// PCQM4Mv2 and this project's setting), and normalisation is LayerNorm
// where GraphGPS uses BatchNorm (its default) — this project has no
// BatchNorm. The Cora file itself switches the layers' normalisation off
// and keeps BatchNorm in the head; Norm none gives the former (and no
// normalisation in the head). Global attention is exact softmax
// attention ("Transformer") where it fits the time, Performer above
// GPSFullAttentionMaxNodes nodes (Attention auto), or as set.
//
// Start from DefaultGraphGPSConfig: zero widths and counts are invalid,
// not defaults; the dropouts' and NormalizeFeatures' zeros mean off, and
// Attention's and Norm's zero values are auto and
// layer.
type GraphGPSConfig struct {
	Hidden      int          `opt:"hidden" min:"2" max:"65536" help:"hidden width"`
	Layers      int          `opt:"layers" min:"1" max:"32" help:"GPS layers"`
	Heads       int          `opt:"heads" min:"1" max:"64" help:"heads of the global attention"`
	Dropout     float64      `opt:"dropout" min:"0" lt:"1" help:"dropout probability of the GPS layers' local and global branches and of the head"`
	AttnDropout float64      `opt:"attn-dropout" min:"0" lt:"1" help:"dropout probability inside the global attention (of the attention weights; of the output with performer)"`
	Attention   GPSAttention `opt:"attention" help:"global attention: full (exact softmax), performer (FAVOR+, linear in the nodes) or auto (full up to 10,000 nodes)"`
	Norm        GPSNorm      `opt:"norm" help:"normalisation in the GPS layers and the head: layer (LayerNorm, for GraphGPS's BatchNorm) or none"`
	// RWSESteps is the random-walk lengths 1..RWSESteps of the structural
	// encoding.
	RWSESteps int `opt:"rwse-steps" min:"1" max:"64" help:"random-walk structural encoding of the return probabilities after 1 to this many steps"`
	// PEDim is the width the RWSE is encoded to (GraphGPS's dim_pe), 28 by
	// default; it must stay below Hidden, so a Hidden of 28 or less needs
	// its own PEDim.
	PEDim             int  `opt:"pe-dim" min:"1" max:"65535" help:"width of the encoded RWSE within hidden, below hidden (with --hidden 28 or less, give it too)"`
	HeadLayers        int  `opt:"head-layers" min:"1" max:"8" help:"layers of the prediction head (the last maps to the classes)"`
	NormalizeFeatures bool `opt:"normalize-features" help:"divide each node's input features by their sum"`
}

// GraphGPSConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = GraphGPSConfig{}

// DefaultGraphGPSConfig is the setting described on GraphGPSConfig.
func DefaultGraphGPSConfig() GraphGPSConfig {
	return GraphGPSConfig{Hidden: 64, Layers: 3, Heads: 4, Dropout: 0.2, AttnDropout: 0.5, RWSESteps: 16, PEDim: 28, HeadLayers: 3}
}

// Validate reports an invalid field.
func (c GraphGPSConfig) Validate() error {
	switch {
	case c.Hidden < 2 || c.Hidden > MaxWidth:
		return fmt.Errorf("hidden width %d must be in [2, %d]", c.Hidden, MaxWidth)
	case c.Layers < 1 || c.Layers > 32:
		return fmt.Errorf("%d GPS layers: need 1 to 32", c.Layers)
	case c.Heads < 1 || c.Heads > 64 || c.Hidden%c.Heads != 0:
		return fmt.Errorf("%d heads: need 1 to 64, dividing the hidden width %d", c.Heads, c.Hidden)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	case !(c.AttnDropout >= 0 && c.AttnDropout < 1):
		return fmt.Errorf("attention dropout %v must be in [0, 1)", c.AttnDropout)
	case c.Attention > GPSAttentionPerformer:
		return fmt.Errorf("invalid attention %d", c.Attention)
	case c.Norm > GPSNormNone:
		return fmt.Errorf("invalid norm %d", c.Norm)
	case c.RWSESteps < 1 || c.RWSESteps > 64:
		return fmt.Errorf("%d random-walk steps: need 1 to 64", c.RWSESteps)
	case c.PEDim < 1 || c.PEDim >= c.Hidden:
		return fmt.Errorf("PE width %d must be in [1, hidden width %d) (--pe-dim)", c.PEDim, c.Hidden)
	case c.HeadLayers < 1 || c.HeadLayers > 8:
		return fmt.Errorf("%d head layers: need 1 to 8", c.HeadLayers)
	}
	return nil
}

// performer reports whether the layers run Performer on a graph of n
// nodes.
func (c GraphGPSConfig) performer(n int) bool {
	return c.Attention == GPSAttentionPerformer || (c.Attention == GPSAttentionAuto && n > GPSFullAttentionMaxNodes)
}

// ParamBytes implements MemoryEstimator.
func (c GraphGPSConfig) ParamBytes(shape Shape) int64 {
	return bytesOf(2 * c.paramValues(shape, false))
}

// paramValues bounds the parameters: the encoders, per GPS layer the
// local convolution, the attention's projections (and Performer's random
// features, unless graph: the graph network attends exactly), the
// feed-forward block and norms, and the head.
func (c GraphGPSConfig) paramValues(shape Shape, graph bool) float64 {
	h, layers := nonneg(c.Hidden), nonneg(c.Layers)
	perLayer := 10*h*h + 16*h
	if !graph {
		dh := h / max(nonneg(c.Heads), 1)
		perLayer += max(1, dh*math.Log(max(dh, 1))) * dh // the Performer's projection, an upper bound
	}
	steps, pe := nonneg(c.RWSESteps), nonneg(c.PEDim)
	return (nonneg(shape.Features)+1)*max(h-pe, 0) + (steps+1)*pe + layers*perLayer +
		max(nonneg(c.HeadLayers)-1, 0)*(h*h+3*h) + (h+1)*nonneg(shape.Classes)
}

// EstimateBytes implements MemoryEstimator: the parameters with gradients
// and Adam's moments; per layer about forty nodes × hidden matrices on the
// tape (values and gradients) and the attention's own buffers — for full
// attention the head-major inputs, the backward pass's per-group key and
// value gradients (8 groups) and an m×64 score block pair per core; for
// Performer the nodes' random features; and the RWSE with its walks. The
// graph network (Size.Graphs > 0) always attends exactly, within each
// graph.
func (c GraphGPSConfig) EstimateBytes(shape Shape, size Size) int64 {
	graph := size.Graphs > 0
	h, n, layers, heads := nonneg(c.Hidden), nonneg(size.Nodes), nonneg(c.Layers), nonneg(c.Heads)
	acts := layers*80*n*h + nonneg(size.Arcs) + n
	if !graph && c.performer(size.Nodes) {
		dh := h / max(heads, 1)
		f := max(1, dh*math.Log(max(dh, 1)))
		acts += layers * 2 * n * heads * f
		acts += 4 * n * f // one head's products and gradients
	} else {
		acts += layers * (6*n*h + 4*n*heads)
		acts += 2*8*n*h + float64(runtime.GOMAXPROCS(0))*2*64*n
	}
	acts += n*nonneg(c.RWSESteps) + 2*64*n
	if graph {
		acts = 1.3*acts + operatorValues(size) // and a separate evaluation tape
	}
	return bytesOf(trainingValues(c.paramValues(shape, graph)) + acts)
}

// GraphGPS is GraphGPS for node classification: the encoder, the GPS
// layers and the head described on GraphGPSConfig.
type GraphGPS struct {
	cfg    GraphGPSConfig
	shape  Shape
	encX   *nn.Linear[float32] // features → hidden − pe
	encPE  *nn.Linear[float32] // RWSE → pe
	layers []*nn.GPSLayer[float32]
	head   []*nn.Linear[float32]
	norms  []*nn.LayerNorm[float32] // the head's, nil with Norm none
	out    *nn.Linear[float32]
	in     nodeInput
	pe     *autodiff.Var[float32] // the standardised RWSE, a constant
	peGen  int                    // nodeInput generation pe was built for
}

// GraphGPS implements NodeEmbedder, checked at compile time.
var _ NodeEmbedder = (*GraphGPS)(nil)

// NewGraphGPS builds GraphGPS for shape with weights drawn from seed.
func NewGraphGPS(cfg GraphGPSConfig, shape Shape, seed uint64) (*GraphGPS, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 13))
	h, norm := cfg.Hidden, cfg.Norm == GPSNormLayer
	m := &GraphGPS{
		cfg: cfg, shape: shape,
		encX:  nn.NewLinear[float32]("encoder.linear_x", shape.Features, h-cfg.PEDim, true, rng),
		encPE: nn.NewLinear[float32]("encoder.pe_encoder", cfg.RWSESteps, cfg.PEDim, true, rng),
		in:    nodeInput{normalize: cfg.NormalizeFeatures, operator: gcnOperator},
		pe:    autodiff.NewVar(tensor.NewDense[float32](0, cfg.RWSESteps), false),
	}
	// Random features exist unless attention is always full, so that a
	// model's parameters do not depend on the graph it meets.
	performer := cfg.Attention != GPSAttentionFull
	for i := 0; i < cfg.Layers; i++ {
		m.layers = append(m.layers, nn.NewGPSLayer[float32](fmt.Sprintf("layers.%d", i), h, cfg.Heads, norm, performer, cfg.Dropout, cfg.AttnDropout, rng))
	}
	for i := 0; i < cfg.HeadLayers-1; i++ {
		name := fmt.Sprintf("head.layer%d", i)
		// GraphGym's layers have no bias before a BatchNorm; LayerNorm's
		// shift takes its place here too.
		m.head = append(m.head, nn.NewLinear[float32](name, h, h, !norm, rng))
		if norm {
			m.norms = append(m.norms, nn.NewLayerNorm[float32](name+".norm", h))
		} else {
			m.norms = append(m.norms, nil)
		}
	}
	m.out = nn.NewLinear[float32]("head.out", h, shape.Classes, true, rng)
	return m, nil
}

// hidden records the output of the last GPS layer, the head's input.
func (m *GraphGPS) hidden(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.in.prepare("graphgps", m.shape, g, x)
	if m.peGen != m.in.gen {
		nn.RWSEInto(&m.pe.Value, g.N, g.Ptr, g.Src, m.cfg.RWSESteps)
		nn.StandardizeColumns(&m.pe.Value, autodiff.LayerNormEps)
		m.peGen = m.in.gen
	}
	h := autodiff.ConcatCols(t, m.encX.ForwardSparse(t, m.in.x.Apply(0, rng, training)), m.encPE.Forward(t, m.pe))
	performer := m.cfg.performer(g.N)
	for _, l := range m.layers {
		h = l.Forward(t, &m.in.adj, h, performer, training, rng)
	}
	return h
}

// Forward records the logits of every node.
func (m *GraphGPS) Forward(t *autodiff.Tape[float32], g *data.Graph, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	h := m.hidden(t, g, x, training, rng)
	for i, l := range m.head {
		h = l.Forward(t, h)
		if m.norms[i] != nil {
			h = m.norms[i].Forward(t, h)
		}
		h = nn.GELU(t, autodiff.Dropout(t, h, m.cfg.Dropout, rng, training))
	}
	return m.out.Forward(t, h)
}

// Embed records the output of the last GPS layer (evaluation mode).
func (m *GraphGPS) Embed(t *autodiff.Tape[float32], g *data.Graph, x data.Features) *autodiff.Var[float32] {
	return m.hidden(t, g, x, false, nil)
}

// Groups returns the trained parameters, all decayed (GraphGPS's AdamW
// decays every parameter), and the Performer random features as a buffer
// group (performer-pytorch keeps them as a buffer): never trained, not
// counted as parameters.
func (m *GraphGPS) Groups() []optim.Group[float32] {
	ps := append(m.encX.Params(), m.encPE.Params()...)
	var proj []*autodiff.Var[float32]
	for _, l := range m.layers {
		ps = append(ps, l.Params()...)
		if l.Attn.Proj != nil {
			proj = append(proj, l.Attn.Proj)
		}
	}
	for i, l := range m.head {
		ps = append(ps, l.Params()...)
		if m.norms[i] != nil {
			ps = append(ps, m.norms[i].Params()...)
		}
	}
	groups := []optim.Group[float32]{{Name: "weights", Params: append(ps, m.out.Params()...)}}
	if len(proj) > 0 {
		groups = append(groups, optim.Group[float32]{Name: "projection", Params: proj, NoWeightDecay: true, Buffer: true})
	}
	return groups
}
