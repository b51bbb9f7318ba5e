package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model/internal/gmm"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/optim"
	"github.com/prcaps/prcaps/tensor"
)

func init() {
	Register(Spec{
		Name: "gratin", Task: data.GraphTask,
		Summary: "GRATIN (Abbahaddou et al., ICML 2025): a 3-layer GCN (or GIN) with a mean readout, then its classifier retrained on graph representations augmented by per-class Gaussian mixtures",
		// The authors' first_train.py and fit_GMM.py: Adam at lr 0.01 with
		// weight decay 5e-4 halved every 100 epochs, 300 epochs of
		// end-to-end training and 300 of the classifier on GMM-augmented
		// representations (one schedule over both, where the authors
		// restart it), batch 256.
		Recipe:  Recipe{Epochs: 600, LR: 0.01, WeightDecay: 5e-4, Optimizer: "adam", LRSchedule: "step", StepEvery: 100, BatchSize: 256},
		Default: func() Config { c := DefaultGRATINConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewGRATIN(*cfg.(*GRATINConfig), shape, seed)
		},
	})
}

// GRATINBackbone is the message-passing part of GRATIN.
type GRATINBackbone uint8

const (
	// GRATINGCN is the authors' GCN: Layers GCN layers, each followed by
	// ReLU (default).
	GRATINGCN GRATINBackbone = iota
	// GRATINGIN is the authors' GIN_Net: a linear input layer with ReLU,
	// PyG's GIN model (Layers GIN-0 layers whose MLPs are Linear → ReLU →
	// Linear, with ReLU between layers), ReLU and batch norm over the
	// nodes.
	GRATINGIN
)

var gratinBackboneNames = []string{"gcn", "gin"}

func (b GRATINBackbone) String() string { return enumName(gratinBackboneNames, b) }
func (b GRATINBackbone) MarshalText() ([]byte, error) {
	return enumText("backbone", gratinBackboneNames, b)
}
func (b *GRATINBackbone) UnmarshalText(t []byte) error {
	return enumParse("backbone", gratinBackboneNames, t, b)
}

// GRATINConfig configures GRATIN. Start from DefaultGRATINConfig: a zero
// width or count is invalid, not a default; the dropouts' zeros are no
// dropout.
type GRATINConfig struct {
	Backbone GRATINBackbone `opt:"backbone" help:"message-passing backbone, gcn (GCN layers with ReLU) or gin (linear input layer, GIN-0 layers, batch norm), the authors' two"`
	Layers   int            `opt:"layers" min:"1" max:"16" help:"message-passing layers"`
	Hidden   int            `opt:"hidden" min:"1" max:"65536" help:"hidden width"`
	Dropout  float64        `opt:"dropout" min:"0" lt:"1" help:"dropout probability on the graph representation before the classifier while the GNN trains end to end"`
	// AugDropout is the dropout on the representations (real and sampled)
	// that the retrained classifier reads.
	AugDropout float64 `opt:"aug-dropout" min:"0" lt:"1" help:"dropout on the representations, real and GMM-sampled, read by the retrained classifier (the authors' script's value; they tune it per dataset)"`
	// Components is the number of Gaussians of each class's mixture.
	Components int `opt:"gmm-components" min:"1" max:"1024" help:"Gaussian components of each class's mixture (the authors tune it per dataset)"`
	// AugPerGraph is the number of representations sampled per training
	// graph of each class.
	AugPerGraph int `opt:"aug-per-graph" min:"1" max:"64" help:"representations sampled per training graph of each class"`
	// Pretrain is the number of epochs the whole GNN trains before its
	// message-passing part is frozen (the authors' first script). The next
	// epoch collects the frozen representations of the training graphs and
	// the mixtures are fitted at the start of the one after, so a run
	// needs more than Pretrain+1 epochs to train on sampled
	// representations at all.
	Pretrain int `opt:"pretrain-epochs" min:"1" max:"1e6" help:"epochs training the whole GNN before its message passing is frozen and its classifier retrained on GMM-augmented representations (give --epochs more than this + 1)"`
}

// GRATINConfig implements MemoryEstimator, checked at compile time.
var _ MemoryEstimator = GRATINConfig{}

// DefaultGRATINConfig is the authors' setting for their GCN backbone:
// 3 layers of width 32, dropout 0.5 before the classifier of the first
// stage, the script defaults of the second (dropout 0.8, 10 components,
// one sample per training graph), and 300 epochs of the first stage.
func DefaultGRATINConfig() GRATINConfig {
	return GRATINConfig{Layers: 3, Hidden: 32, Dropout: 0.5, AugDropout: 0.8, Components: 10, AugPerGraph: 1, Pretrain: 300}
}

// Validate reports an invalid field.
func (c GRATINConfig) Validate() error {
	switch {
	case c.Backbone > GRATINGIN:
		return fmt.Errorf("unknown backbone %d", c.Backbone)
	case c.Layers < 1 || c.Layers > 16:
		return fmt.Errorf("layers %d must be in [1, 16]", c.Layers)
	case c.Hidden < 1 || c.Hidden > MaxWidth:
		return fmt.Errorf("hidden width %d must be in [1, %d]", c.Hidden, MaxWidth)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	case !(c.AugDropout >= 0 && c.AugDropout < 1):
		return fmt.Errorf("aug-dropout %v must be in [0, 1)", c.AugDropout)
	case c.Components < 1 || c.Components > 1024:
		return fmt.Errorf("gmm-components %d must be in [1, 1024]", c.Components)
	case c.AugPerGraph < 1 || c.AugPerGraph > 64:
		return fmt.Errorf("aug-per-graph %d must be in [1, 64]", c.AugPerGraph)
	case c.Pretrain < 1 || c.Pretrain > 1_000_000:
		return fmt.Errorf("pretrain-epochs %d must be in [1, 1000000]", c.Pretrain)
	}
	return nil
}

// GRATIN is the graph-classification method of Abbahaddou et al., "Graph
// Neural Network Generalization With Gaussian Mixture Model Based
// Augmentation" (ICML 2025), as their code (github.com/abbahaddou/GRATIN,
// Code/) runs it, in two stages:
//
//  1. first_train.py trains a whole GNN end to end: the backbone (GCN:
//     three GCN layers with ReLU; GIN: see GRATINGIN), width 32, a mean
//     over each graph's nodes, dropout 0.5 and a linear classifier, with
//     Adam (lr 0.01, weight decay 5e-4, halved every 100 epochs) on
//     mini-batches of 256 graphs for 300 epochs.
//  2. fit_GMM.py freezes the backbone, computes the representation of
//     every training graph (evaluation mode: the pooled output of the
//     backbone, before the classifier), fits per class one scikit-learn
//     GaussianMixture (full covariances, gmm_components components, its
//     other defaults), draws aug_per_graph·n_c representations from the
//     mixture of each class c of n_c training graphs, and trains a fresh
//     classifier (dropout, then a linear map) from scratch on the real and
//     the sampled representations together, with the same optimiser, for
//     another 300 epochs. Tests score the frozen backbone with that
//     classifier.
//
// The trainer of this package runs one model through one run of
// mini-batches and never hands it the training set, so the stages are
// driven from inside Forward:
//
//   - Epochs. A training-mode Forward counts epochs by the dataset indices
//     of its graphs (data.GraphBatch.Graphs): an epoch shows every
//     training graph once, so the first graph seen twice opens the next
//     epoch. Epochs 1 … Pretrain are the first stage.
//   - Freezing. The first training batch of epoch Pretrain+1 copies the
//     backbone's parameters (and batch-norm statistics) into a frozen
//     copy held as buffers, sets the stage buffer to 1 and draws the
//     second classifier afresh (PyTorch's nn.Linear initialisation, from
//     the rng of Forward). The optimiser can still move the live backbone
//     (weight decay), but nothing reads it any more: the frozen copy is
//     exactly the backbone of the end of the first stage.
//   - Collection. Training batches of the second stage take their
//     representations from the frozen copy in evaluation mode (no
//     gradient reaches it) and remember them and their labels by graph
//     index, so epoch Pretrain+1 sees every training graph's frozen
//     representation: the set the authors fit their mixtures to.
//   - Fitting. The first training batch of epoch Pretrain+2 fits one
//     mixture per class to them (package internal/gmm, scikit-learn's
//     GaussianMixture defaults) and draws AugPerGraph·n_c representations
//     of each class, once, as the authors do; the backbone being frozen,
//     no refit is ever needed.
//   - Augmentation. The trainer takes one logit row per graph of the
//     batch, so the sampled representations cannot be extra rows: each
//     row of a second-stage training batch is, with probability
//     AugPerGraph/(1+AugPerGraph), replaced by a sampled representation
//     of its own class, chosen uniformly among that class's samples. The
//     expected loss of a row is then the authors' loss, the mean
//     cross-entropy over the union of real and sampled representations
//     (which holds AugPerGraph sampled ones per real one). Epoch
//     Pretrain+1 trains the second classifier on real representations
//     only.
//
// In evaluation mode the output depends on the parameters and buffers
// only: with the stage buffer at 0, the live backbone and the first
// classifier; at 1, the frozen copy and the second classifier. The
// trainer's snapshot of a selected epoch restores the stage with them.
// The mixtures, the samples and the remembered representations affect
// training only.
//
// Where this departs from the authors' code: one optimiser and one
// learning-rate schedule span both stages (they restart Adam and its
// schedule for the second), the second classifier first trains on real
// representations for one epoch (their first epoch of stage two already
// has the samples), a row is real or sampled at random rather than each
// real and sampled representation being visited once an epoch, the
// k-means++ seeding of the mixtures is not scikit-learn's random stream,
// a class with fewer distinct representations than components gets as
// many components as it has distinct representations (scikit-learn fails
// on fewer rows than components), and the run's epoch selection is the
// trainer's (their scripts report the last epoch's test accuracy).
type GRATIN struct {
	cfg     GRATINConfig
	classes int

	live, frozen *gratinNet
	head         *nn.Linear[float32] // first stage's classifier
	augHead      *nn.Linear[float32] // second stage's classifier
	stage        *autodiff.Var[float32]

	// Buffers of the current batch.
	batch *data.GraphBatch
	gen   uint64
	opA   tensor.CSR[float32] // Â (gcn) or A + I (gin)
	op    tensor.Adjacency[float32]
	deg   []float64
	x     nn.SparseInput[float32]
	inv   *autodiff.Var[float32] // 1/nodes per graph, for the mean
	rep   *autodiff.Var[float32] // second stage's training representations (constant)
	ftape autodiff.Tape[float32] // no-grad tape for the frozen backbone

	// Training-pass state, never read in evaluation mode.
	epoch   int      // training epochs begun
	seen    []uint64 // bitset of the graphs seen this epoch
	slot    []int32  // graph index → row of memo + 1 (0: none)
	memo    []float32
	labels  []int32
	fitted  bool
	samples [][]float32 // per class, AugPerGraph·n_c sampled rows
	fits    []int       // components fitted per class (0: none)
}

// GRATIN implements these, checked at compile time.
var (
	_ GraphEmbedder = (*GRATIN)(nil)
	_ WholeBatch    = (*GRATIN)(nil)
)

// gratinNet is one copy of GRATIN's message-passing backbone.
type gratinNet struct {
	gcn        []*nn.GCNConv[float32]
	in         *nn.Linear[float32]   // gin: input layer
	mlp1, mlp2 []*nn.Linear[float32] // gin: the layers' MLPs
	norm       *nn.BatchNorm[float32]
}

func newGRATINNet(prefix string, cfg GRATINConfig, features int, rng *rand.Rand) *gratinNet {
	n := &gratinNet{}
	h := cfg.Hidden
	if cfg.Backbone == GRATINGCN {
		in := features
		for l := range cfg.Layers {
			name := prefix + "conv1"
			if l > 0 {
				name = fmt.Sprintf("%sconvs.%d", prefix, l-1)
			}
			n.gcn = append(n.gcn, nn.NewGCNConv[float32](name, in, h, rng))
			in = h
		}
		return n
	}
	n.in = nn.NewLinear[float32](prefix+"lin1", features, h, true, rng)
	for l := range cfg.Layers {
		name := fmt.Sprintf("%sconv1.convs.%d.nn.lins", prefix, l)
		n.mlp1 = append(n.mlp1, nn.NewLinear[float32](name+".0", h, h, true, rng))
		n.mlp2 = append(n.mlp2, nn.NewLinear[float32](name+".1", h, h, true, rng))
	}
	n.norm = nn.NewBatchNorm[float32](prefix+"bn1", h)
	return n
}

// params lists the trained parameters.
func (n *gratinNet) params() []*autodiff.Var[float32] {
	var ps []*autodiff.Var[float32]
	for _, c := range n.gcn {
		ps = append(ps, c.Params()...)
	}
	if n.in != nil {
		ps = append(ps, n.in.Params()...)
		for l := range n.mlp1 {
			ps = append(append(ps, n.mlp1[l].Params()...), n.mlp2[l].Params()...)
		}
		ps = append(ps, n.norm.Params()...)
	}
	return ps
}

// buffers lists the batch norm's running statistics.
func (n *gratinNet) buffers() []*autodiff.Var[float32] {
	if n.norm == nil {
		return nil
	}
	return n.norm.Buffers()
}

// copyFrom sets n's parameters and buffers to o's.
func (n *gratinNet) copyFrom(o *gratinNet) {
	dst, src := append(n.params(), n.buffers()...), append(o.params(), o.buffers()...)
	for i, p := range dst {
		copy(p.Value.Data, src[i].Value.Data)
	}
}

// NewGRATIN builds GRATIN for shape with weights drawn from seed.
func NewGRATIN(cfg GRATINConfig, shape Shape, seed uint64) (*GRATIN, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if shape.Features < 1 || shape.Classes < 2 {
		return nil, fmt.Errorf("model: gratin needs at least 1 feature and 2 classes, got %d and %d", shape.Features, shape.Classes)
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	m := &GRATIN{
		cfg: cfg, classes: shape.Classes,
		live:    newGRATINNet("", cfg, shape.Features, rng),
		head:    nn.NewLinear[float32]("lin", cfg.Hidden, shape.Classes, true, rng),
		augHead: nn.NewLinear[float32]("pool.lin2", cfg.Hidden, shape.Classes, true, rng),
		stage:   autodiff.NewParam[float32]("stage", 1, 1),
		inv:     autodiff.NewVar(tensor.NewDense[float32](0, 1), false),
		rep:     autodiff.NewVar(tensor.NewDense[float32](0, cfg.Hidden), false),
	}
	m.frozen = newGRATINNet("frozen.", cfg, shape.Features, rand.New(rand.NewPCG(seed, 12)))
	m.frozen.copyFrom(m.live)
	m.ftape.NoGrad = true
	return m, nil
}

// WholeBatch implements WholeBatch: the gin backbone's batch norm spans
// the mini-batch in the first stage.
func (m *GRATIN) WholeBatch() bool { return m.cfg.Backbone == GRATINGIN }

func (m *GRATIN) prepare(b *data.GraphBatch) {
	if m.batch == b && m.gen == b.Gen {
		return
	}
	m.batch, m.gen = b, b.Gen
	if m.cfg.Backbone == GRATINGCN {
		nn.GCNNormInto(&m.opA, b.N, b.Ptr, b.Src, &m.deg)
	} else {
		nn.SumOperatorInto(&m.opA, b.N, b.Ptr, b.Src, 0)
	}
	m.op.Reset(&m.opA)
	m.x.Reset(&b.X)
	m.inv.Value.Reshape(b.G(), 1)
	for g := range b.G() {
		m.inv.Value.Data[g] = 1 / float32(max(b.Seg[g+1]-b.Seg[g], 1))
	}
}

// pooled records on t the mean over each graph's nodes of net's output.
func (m *GRATIN) pooled(t *autodiff.Tape[float32], net *gratinNet, b *data.GraphBatch, training bool) *autodiff.Var[float32] {
	x := m.x.Apply(0, nil, false)
	var h *autodiff.Var[float32]
	if m.cfg.Backbone == GRATINGCN {
		for l, c := range net.gcn {
			if l == 0 {
				h = c.ForwardSparse(t, &m.op, x)
			} else {
				h = c.Forward(t, &m.op, h)
			}
			h = autodiff.ReLU(t, h)
		}
	} else {
		h = autodiff.ReLU(t, net.in.ForwardSparse(t, x))
		for l := range net.mlp1 {
			// (A + I)(h·W₁) + b₁ is the first linear map of the sum.
			z := net.mlp1[l].AddBias(t, autodiff.GraphAggregate(t, &m.op, autodiff.MatMul(t, h, net.mlp1[l].W)))
			h = net.mlp2[l].Forward(t, autodiff.ReLU(t, z))
			if l < len(net.mlp1)-1 {
				h = autodiff.ReLU(t, h)
			}
		}
		h = net.norm.Forward(t, autodiff.ReLU(t, h), training)
	}
	return autodiff.Mul(t, autodiff.ScatterAddRows(t, h, b.Seg), m.inv)
}

// Embed records the graph representation (graphs × Hidden) that the
// current stage's classifier reads, in evaluation mode.
func (m *GRATIN) Embed(t *autodiff.Tape[float32], b *data.GraphBatch) *autodiff.Var[float32] {
	m.prepare(b)
	if m.stage.Value.Data[0] == 0 {
		return m.pooled(t, m.live, b, false)
	}
	return m.pooled(t, m.frozen, b, false)
}

// Forward records the logits (graphs × classes) of the graphs of b.
func (m *GRATIN) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	if !training {
		z := m.Embed(t, b)
		if m.stage.Value.Data[0] == 0 {
			return m.head.Forward(t, z)
		}
		return m.augHead.Forward(t, z)
	}
	m.prepare(b)
	m.advance(b, rng)
	if m.epoch <= m.cfg.Pretrain {
		z := autodiff.Dropout(t, m.pooled(t, m.live, b, true), m.cfg.Dropout, rng, true)
		return m.head.Forward(t, z)
	}
	m.representations(b)
	if m.fitted {
		m.augment(b, rng)
	}
	return m.augHead.Forward(t, autodiff.Dropout(t, m.rep, m.cfg.AugDropout, rng, true))
}

// advance counts the training epochs from the graphs of b and runs the
// stage changes at the first batch of an epoch: freezing at Pretrain+1,
// fitting at Pretrain+2 (or at the first epoch after the representations
// were collected).
func (m *GRATIN) advance(b *data.GraphBatch, rng *rand.Rand) {
	fresh := m.epoch == 0
	for _, g := range b.Graphs {
		if m.has(g) {
			fresh = true
			break
		}
	}
	if fresh {
		clear(m.seen)
		m.epoch++
		switch {
		case m.epoch <= m.cfg.Pretrain:
			m.stage.Value.Data[0] = 0
		case m.epoch == m.cfg.Pretrain+1:
			m.freeze(rng)
		case !m.fitted:
			m.fit(rng)
		}
	}
	for _, g := range b.Graphs {
		w := int(g) / 64
		if w >= len(m.seen) {
			m.seen = append(m.seen, make([]uint64, w+1-len(m.seen))...)
		}
		m.seen[w] |= 1 << (uint(g) % 64)
	}
}

func (m *GRATIN) has(g int32) bool {
	w := int(g) / 64
	return w < len(m.seen) && m.seen[w]&(1<<(uint(g)%64)) != 0
}

// freeze starts the second stage: the backbone is copied into the frozen
// buffers, the second classifier is drawn afresh, and the collected
// representations are forgotten.
func (m *GRATIN) freeze(rng *rand.Rand) {
	m.frozen.copyFrom(m.live)
	m.stage.Value.Data[0] = 1
	nn.TorchLinear(m.augHead.W, m.cfg.Hidden, rng)
	nn.TorchLinear(m.augHead.B, m.cfg.Hidden, rng)
	clear(m.slot)
	m.memo, m.labels = m.memo[:0], m.labels[:0]
	m.fitted, m.samples, m.fits = false, nil, nil
}

// representations sets m.rep to the frozen representations of the graphs
// of b, computing those not yet remembered.
func (m *GRATIN) representations(b *data.GraphBatch) {
	h := m.cfg.Hidden
	m.rep.Value.Reshape(b.G(), h)
	missing := false
	for _, g := range b.Graphs {
		if int(g) >= len(m.slot) || m.slot[g] == 0 {
			missing = true
			break
		}
	}
	var fresh []float32
	if missing {
		m.ftape.Reset()
		fresh = m.pooled(&m.ftape, m.frozen, b, false).Value.Data
	}
	for i, g := range b.Graphs {
		if int(g) >= len(m.slot) {
			m.slot = append(m.slot, make([]int32, int(g)+1-len(m.slot))...)
		}
		if m.slot[g] == 0 {
			m.memo = append(m.memo, fresh[i*h:(i+1)*h]...)
			m.labels = append(m.labels, b.Y[i])
			m.slot[g] = int32(len(m.labels))
		}
		r := int(m.slot[g]) - 1
		copy(m.rep.Value.Data[i*h:(i+1)*h], m.memo[r*h:(r+1)*h])
	}
}

// fit fits one mixture per class to the remembered representations and
// draws AugPerGraph samples per representation of the class. A class
// whose fit fails gets no samples.
func (m *GRATIN) fit(rng *rand.Rand) {
	h := m.cfg.Hidden
	m.fitted = true
	m.samples = make([][]float32, m.classes)
	m.fits = make([]int, m.classes)
	rows := make([][][]float64, m.classes)
	for r, y := range m.labels {
		if y < 0 || int(y) >= m.classes {
			continue
		}
		row := make([]float64, h)
		for c, v := range m.memo[r*h : (r+1)*h] {
			row[c] = float64(v)
		}
		rows[y] = append(rows[y], row)
	}
	var draw []float64
	for c, x := range rows {
		if len(x) == 0 {
			continue
		}
		mix, err := gmm.Fit(x, gmm.Options{Components: m.cfg.Components}, rng)
		if err != nil {
			continue
		}
		m.fits[c] = mix.K()
		n := m.cfg.AugPerGraph * len(x)
		s := make([]float32, 0, n*h)
		for range n {
			draw = mix.Sample(draw, rng)
			for _, v := range draw {
				s = append(s, float32(v))
			}
		}
		m.samples[c] = s
	}
}

// augment replaces each row of m.rep, with probability
// AugPerGraph/(1+AugPerGraph), by a sample of its graph's class.
func (m *GRATIN) augment(b *data.GraphBatch, rng *rand.Rand) {
	h := m.cfg.Hidden
	p := float64(m.cfg.AugPerGraph) / float64(1+m.cfg.AugPerGraph)
	for i, y := range b.Y {
		if y < 0 || int(y) >= m.classes {
			continue
		}
		s := m.samples[y]
		if len(s) == 0 || rng.Float64() >= p {
			continue
		}
		j := rng.IntN(len(s) / h)
		copy(m.rep.Value.Data[i*h:(i+1)*h], s[j*h:(j+1)*h])
	}
}

// Fitted reports, per class, how many Gaussian components the model's
// mixture of that class has: nil before the mixtures are fitted (the
// first Pretrain+1 training epochs), 0 for a class without one.
func (m *GRATIN) Fitted() []int { return m.fits }

// Groups implements Model: the weights (both classifiers and the live
// backbone, all decayed as the authors' Adam decays them); the live
// backbone's batch-norm statistics (gin); and, as buffers, the frozen
// backbone with its statistics and the stage flag.
func (m *GRATIN) Groups() []optim.Group[float32] {
	ws := append(m.live.params(), m.head.Params()...)
	ws = append(ws, m.augHead.Params()...)
	gs := []optim.Group[float32]{{Name: "weights", Params: ws}}
	if bufs := m.live.buffers(); len(bufs) > 0 {
		gs = append(gs, optim.Group[float32]{Name: "batch statistics", Params: bufs, Buffer: true})
	}
	frozen := append(append(m.frozen.params(), m.frozen.buffers()...), m.stage)
	return append(gs, optim.Group[float32]{Name: "frozen backbone", Params: frozen, Buffer: true})
}

// ParamBytes implements MemoryEstimator: the live and the frozen
// backbone, the two classifiers and the stage flag.
func (c GRATINConfig) ParamBytes(shape Shape) int64 { return bytesOf(2 * c.paramValues(shape)) }

func (c GRATINConfig) paramValues(shape Shape) float64 {
	h, layers, f := nonneg(c.Hidden), nonneg(c.Layers), nonneg(shape.Features)
	var net float64
	if c.Backbone == GRATINGCN {
		net = (f+1)*h + max(layers-1, 0)*(h+1)*h
	} else {
		net = (f+1)*h + layers*2*(h+1)*h + 4*h
	}
	return 2*net + 2*(h+1)*nonneg(shape.Classes) + 1
}

// EstimateBytes implements MemoryEstimator: per backbone layer about four
// (gcn) or six (gin) nodes × hidden tensors and the graphs' means, each
// with its gradient; the operator and the parameters; and the second
// stage's fit of the mixtures: per component two hidden × hidden float64
// matrices (covariance and its Cholesky factor), one class at a time, the
// last class's kept until collected. The frozen representations the
// second stage remembers, one row of Hidden per training graph, grow with
// the dataset and are not counted.
func (c GRATINConfig) EstimateBytes(shape Shape, size Size) int64 {
	h, n, g, layers := nonneg(c.Hidden), nonneg(size.Nodes), graphsOf(size), nonneg(c.Layers)
	perLayer := 4.0
	if c.Backbone == GRATINGIN {
		perLayer = 6
	}
	acts := 2 * (layers*perLayer*n*h + 3*n*h + 3*g*h + 2*g*nonneg(shape.Classes))
	mixtures := 2 * nonneg(c.Components) * 4 * h * h
	return bytesOf(trainingValues(c.paramValues(shape)) + acts + mixtures + operatorValues(size))
}
