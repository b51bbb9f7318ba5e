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
		Name: "graphgps", Task: data.GraphTask,
		Summary: "GraphGPS with a graph readout: GPS layers with full attention within each graph, RWSE, mean pooling, MLP head",
		// GraphGPS's optimiser (AdamW at lr 0.001, weight decay 1e-5,
		// cosine annealing, clipping at 1) for the graph defaults' 100
		// epochs, batch 32 (their graph-level configurations' batch).
		Recipe:  Recipe{Epochs: 100, LR: 0.001, WeightDecay: 1e-5, Optimizer: "adamw", Clip: 1, LRSchedule: "cosine", BatchSize: 32, StepEvery: DefaultStepEvery},
		Default: func() Config { c := DefaultGraphGPSConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewGraphGPSGraph(*cfg.(*GraphGPSConfig), shape, seed)
		},
	})
}

// GraphGPSGraph is GraphGPS (Rampášek et al. 2022) for graph
// classification, as GraphGPS runs its graph-level tasks: the node encoder
// (features and random-walk structural encodings side by side), GPS layers
// whose global attention is exact softmax attention within each graph of
// the batch, the mean of each graph's nodes (graph_pooling: mean) and
// GraphGym's graph head (HeadLayers layers). The configuration is the
// node model's (GraphGPSConfig); Attention must be auto or full, since a
// Performer over the batch would mix its graphs. The RWSE enters raw (return
// probabilities in [0, 1]): standardising it over a batch would make a
// graph's prediction depend on its batch mates.
type GraphGPSGraph struct {
	cfg    GraphGPSConfig
	encX   *nn.Linear[float32]
	encPE  *nn.Linear[float32]
	layers []*nn.GPSLayer[float32]
	head   []*nn.Linear[float32]
	norms  []*nn.LayerNorm[float32]
	out    *nn.Linear[float32]

	batch *data.GraphBatch
	gen   uint64
	a     tensor.CSR[float32]
	deg   []float64
	adj   tensor.Adjacency[float32]
	x     nn.SparseInput[float32]
	pe    *autodiff.Var[float32]
	rwse  nn.RWSE[float32] // pe's working memory, reused batch after batch
	mean  meanReadout
}

// GraphGPSGraph implements GraphEmbedder, checked at compile time.
var _ GraphEmbedder = (*GraphGPSGraph)(nil)

// NewGraphGPSGraph builds the model for shape with weights drawn from seed.
func NewGraphGPSGraph(cfg GraphGPSConfig, shape Shape, seed uint64) (*GraphGPSGraph, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Attention == GPSAttentionPerformer {
		return nil, fmt.Errorf("model: graph graphgps attends within each graph: attention must be full or auto, not performer")
	}
	if shape.Features < 1 || shape.Classes < 2 {
		return nil, fmt.Errorf("model: graphgps needs at least 1 feature and 2 classes, got %d and %d", shape.Features, shape.Classes)
	}
	rng := rand.New(rand.NewPCG(seed, 13))
	h, norm := cfg.Hidden, cfg.Norm == GPSNormLayer
	m := &GraphGPSGraph{
		cfg:   cfg,
		encX:  nn.NewLinear[float32]("encoder.linear_x", shape.Features, h-cfg.PEDim, true, rng),
		encPE: nn.NewLinear[float32]("encoder.pe_encoder", cfg.RWSESteps, cfg.PEDim, true, rng),
		pe:    autodiff.NewVar(tensor.NewDense[float32](0, cfg.RWSESteps), false),
	}
	for i := 0; i < cfg.Layers; i++ {
		m.layers = append(m.layers, nn.NewGPSLayer[float32](fmt.Sprintf("layers.%d", i), h, cfg.Heads, norm, false, cfg.Dropout, cfg.AttnDropout, rng))
	}
	for i := 0; i < cfg.HeadLayers-1; i++ {
		name := fmt.Sprintf("head.layer%d", i)
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

func (m *GraphGPSGraph) prepare(b *data.GraphBatch) {
	if m.batch == b && m.gen == b.Gen {
		return
	}
	m.batch, m.gen = b, b.Gen
	nn.GCNNormInto(&m.a, b.N, b.Ptr, b.Src, &m.deg)
	m.adj.Reset(&m.a)
	m.x.Reset(&b.X)
	m.rwse.IntoSegments(&m.pe.Value, b.N, b.Ptr, b.Src, b.Seg, m.cfg.RWSESteps) // walks never leave their graph
	m.mean.reset(b)
}

// Embed records each graph's pooled representation (evaluation mode).
func (m *GraphGPSGraph) Embed(t *autodiff.Tape[float32], b *data.GraphBatch) *autodiff.Var[float32] {
	return m.pooled(t, b, false, nil)
}

func (m *GraphGPSGraph) pooled(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.prepare(b)
	h := autodiff.ConcatCols(t, m.encX.ForwardSparse(t, m.x.Apply(0, rng, training)), m.encPE.Forward(t, m.pe))
	for _, l := range m.layers {
		h = l.ForwardSegments(t, &m.adj, h, b.Seg, training, rng)
	}
	return m.mean.forward(t, h, b)
}

// Forward records the logits (graphs × classes) of the graphs of b.
func (m *GraphGPSGraph) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	h := m.pooled(t, b, training, rng)
	for i, l := range m.head {
		h = l.Forward(t, h)
		if m.norms[i] != nil {
			h = m.norms[i].Forward(t, h)
		}
		h = nn.GELU(t, autodiff.Dropout(t, h, m.cfg.Dropout, rng, training))
	}
	return m.out.Forward(t, h)
}

// Groups returns every parameter, decayed (GraphGPS's AdamW decays all).
func (m *GraphGPSGraph) Groups() []optim.Group[float32] {
	ps := append(m.encX.Params(), m.encPE.Params()...)
	for _, l := range m.layers {
		ps = append(ps, l.Params()...)
	}
	for i, l := range m.head {
		ps = append(ps, l.Params()...)
		if m.norms[i] != nil {
			ps = append(ps, m.norms[i].Params()...)
		}
	}
	return []optim.Group[float32]{{Name: "weights", Params: append(ps, m.out.Params()...)}}
}
