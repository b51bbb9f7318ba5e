package model

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/optim"
	"github.com/prcaps/prcaps/tensor"
)

func init() {
	Register(Spec{
		Name: "dgcnn", Task: data.GraphTask,
		Summary: "DGCNN (Zhang et al. 2018): tanh graph convolutions, SortPooling, 1-D convolutions, dense head",
		// The authors' script for NCI1 and NCI109: Adam at lr 1e-4, no
		// weight decay, 200 epochs, batch 50 (their script sets MUTAG to
		// 300 epochs, DD and PROTEINS to lr 1e-5 and 200 and 100 epochs;
		// the bench's Table 2 applies those per dataset).
		Recipe:  Recipe{Epochs: 200, LR: 1e-4, Optimizer: "adam", BatchSize: 50, StepEvery: DefaultStepEvery},
		Default: func() Config { c := DefaultDGCNNGraphConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewDGCNNGraph(*cfg.(*DGCNNGraphConfig), shape, seed)
		},
	})
}

// GraphResolver is implemented by graph-model configurations with a
// setting derived from a dataset's graphs without their labels (DGCNN's
// SortPooling k from the node counts): ResolveGraphs fills in such a
// setting left at zero. experiment.Run calls it before building a model,
// so the configuration it saves is the resolved one.
type GraphResolver interface {
	ResolveGraphs(ds *data.GraphDataset)
}

// DGCNNGraphConfig configures DGCNN for graph classification. K = 0 means
// "from the data" (ResolveGraphs); building with it unresolved is an error.
type DGCNNGraphConfig struct {
	// Channels are the graph convolutions' widths (default 32, 32, 32, 1);
	// the last one is the sort key of SortPooling.
	Channels []int
	K        int     `opt:"sort-k" min:"10" max:"65536" help:"nodes SortPooling keeps per graph (default: the node count that 60% of the dataset's graphs do not exceed, at least 10)"`
	Conv1    int     `opt:"conv1" min:"1" max:"65536" help:"channels of the first 1-D convolution"`
	Conv2    int     `opt:"conv2" min:"1" max:"65536" help:"channels of the second 1-D convolution (width 5)"`
	Dense    int     `opt:"dense" min:"1" max:"65536" help:"width of the dense head"`
	Dropout  float64 `opt:"dropout" min:"0" lt:"1" help:"dropout probability before the dense head's output layer"`
}

// DGCNNGraphConfig implements these, checked at compile time.
var (
	_ MemoryEstimator = DGCNNGraphConfig{}
	_ GraphResolver   = (*DGCNNGraphConfig)(nil)
)

// DefaultDGCNNGraphConfig is the authors' TU setting: convolutions 32, 32,
// 32, 1; 1-D convolutions of 16 and 32 channels; dense 128 with dropout
// 0.5; k from the data.
func DefaultDGCNNGraphConfig() DGCNNGraphConfig {
	return DGCNNGraphConfig{Channels: []int{32, 32, 32, 1}, Conv1: 16, Conv2: 32, Dense: 128, Dropout: 0.5}
}

// dgcnnMinK is the smallest k: the second 1-D convolution (width 5) needs
// 5 positions after pooling pairs.
const dgcnnMinK = 10

// ResolveGraphs sets a zero K as the authors do: the node count that 60% of
// the dataset's graphs do not exceed, at least 10. Node counts carry no
// label, and the count is over all graphs, as in their code.
func (c *DGCNNGraphConfig) ResolveGraphs(ds *data.GraphDataset) {
	if c.K != 0 || len(ds.Graphs) == 0 {
		return
	}
	n := make([]int, len(ds.Graphs))
	for i, g := range ds.Graphs {
		n[i] = g.Graph.N
	}
	slices.Sort(n)
	c.K = max(dgcnnMinK, n[(6*len(n)+9)/10-1]) // ⌈0.6·len⌉ − 1
}

// Validate reports an invalid field; a zero K is valid here (see
// ResolveGraphs).
func (c DGCNNGraphConfig) Validate() error {
	if len(c.Channels) == 0 || len(c.Channels) > MaxRoutingLayers {
		return fmt.Errorf("%d convolutions: need 1 to %d", len(c.Channels), MaxRoutingLayers)
	}
	for _, w := range append(slices.Clone(c.Channels), c.Conv1, c.Conv2, c.Dense) {
		if w < 1 || w > MaxWidth {
			return fmt.Errorf("width %d must be in [1, %d]", w, MaxWidth)
		}
	}
	switch {
	case c.K != 0 && (c.K < dgcnnMinK || c.K > MaxWidth):
		return fmt.Errorf("sort-k %d must be in [%d, %d]", c.K, dgcnnMinK, MaxWidth)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("dropout %v must be in [0, 1)", c.Dropout)
	}
	return nil
}

// DGCNNGraph is DGCNN as in the authors' code (Zhang et al. 2018, "An
// end-to-end deep learning architecture for graph classification"): graph
// convolutions Z_{t+1} = tanh(D̃^−1 Ã Z_t W_t), concatenated; SortPooling
// keeps each graph's K nodes of largest last channel, in that order, zero
// rows padding a smaller graph; a 1-D convolution whose kernel spans one
// node's row (a per-node linear map) with ReLU, max-pooling of node pairs,
// a 1-D convolution of width 5 with ReLU, and a dense head: Linear → ReLU →
// dropout → Linear. Sorting picks rows; the gradient flows through the
// picked rows' values, not through the order.
type DGCNNGraph struct {
	cfg          DGCNNGraphConfig
	convs        []*nn.GCNConv[float32]
	conv1, conv2 *nn.Linear[float32] // conv2 reads 5 pooled positions side by side
	dense, out   *nn.Linear[float32]
	layers       []*autodiff.Var[float32]
	positions    int // after the second 1-D convolution

	batch  *data.GraphBatch
	gen    uint64
	a      tensor.CSR[float32]
	adj    tensor.Adjacency[float32]
	x      nn.SparseInput[float32]
	sorted []int32    // SortPooling's picks, G·K (−1: padding)
	order  []int32    // scratch for one graph's nodes
	window [5][]int32 // the pooled rows each output position of conv2 reads
}

// DGCNNGraph implements GraphEmbedder, checked at compile time.
var _ GraphEmbedder = (*DGCNNGraph)(nil)

// NewDGCNNGraph builds DGCNN for shape with weights drawn from seed; cfg.K
// must be resolved (ResolveGraphs or set).
func NewDGCNNGraph(cfg DGCNNGraphConfig, shape Shape, seed uint64) (*DGCNNGraph, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.K == 0 {
		return nil, fmt.Errorf("model: dgcnn: sort-k is unresolved: set it, or resolve it from the dataset (DGCNNGraphConfig.ResolveGraphs)")
	}
	if shape.Features < 1 || shape.Classes < 2 {
		return nil, fmt.Errorf("model: dgcnn needs at least 1 feature and 2 classes, got %d and %d", shape.Features, shape.Classes)
	}
	rng := rand.New(rand.NewPCG(seed, 6))
	m := &DGCNNGraph{cfg: cfg}
	width, total := shape.Features, 0
	for i, w := range cfg.Channels {
		m.convs = append(m.convs, nn.NewGCNConv[float32](fmt.Sprintf("conv%d", i), width, w, rng))
		width, total = w, total+w
	}
	m.layers = make([]*autodiff.Var[float32], len(m.convs))
	m.positions = cfg.K/2 - 4
	m.conv1 = nn.NewLinear[float32]("conv1d1", total, cfg.Conv1, true, rng)
	m.conv2 = nn.NewLinear[float32]("conv1d2", 5*cfg.Conv1, cfg.Conv2, true, rng)
	m.dense = nn.NewLinear[float32]("dense", m.positions*cfg.Conv2, cfg.Dense, true, rng)
	m.out = nn.NewLinear[float32]("out", cfg.Dense, shape.Classes, true, rng)
	return m, nil
}

func (m *DGCNNGraph) prepare(b *data.GraphBatch) {
	if m.batch == b && m.gen == b.Gen {
		return
	}
	m.batch, m.gen = b, b.Gen
	nn.MeanAggInto(&m.a, b.N, b.Ptr, b.Src)
	m.adj.Reset(&m.a)
	m.x.Reset(&b.X)
	half, g := m.cfg.K/2, b.G()
	for d := range m.window {
		m.window[d] = m.window[d][:0]
		for gi := 0; gi < g; gi++ {
			for p := 0; p < m.positions; p++ {
				m.window[d] = append(m.window[d], int32(gi*half+p+d))
			}
		}
	}
}

// sortPool sets m.sorted to each graph's K nodes of largest key (ties: the
// lower node), then −1 up to K.
func (m *DGCNNGraph) sortPool(b *data.GraphBatch, key []float32, stride int) {
	k := m.cfg.K
	m.sorted = m.sorted[:0]
	for gi := 0; gi < b.G(); gi++ {
		m.order = m.order[:0]
		for v := b.Seg[gi]; v < b.Seg[gi+1]; v++ {
			m.order = append(m.order, v)
		}
		slices.SortFunc(m.order, func(u, v int32) int {
			if c := cmp.Compare(key[int(v)*stride], key[int(u)*stride]); c != 0 {
				return c
			}
			return cmp.Compare(u, v)
		})
		n := min(k, len(m.order))
		m.sorted = append(m.sorted, m.order[:n]...)
		for i := n; i < k; i++ {
			m.sorted = append(m.sorted, -1)
		}
	}
}

// Embed records each graph's representation before the dense head: the
// flattened output of the second 1-D convolution.
func (m *DGCNNGraph) Embed(t *autodiff.Tape[float32], b *data.GraphBatch) *autodiff.Var[float32] {
	return m.embed(t, b)
}

func (m *DGCNNGraph) embed(t *autodiff.Tape[float32], b *data.GraphBatch) *autodiff.Var[float32] {
	m.prepare(b)
	h := autodiff.Tanh(t, m.convs[0].ForwardSparse(t, &m.adj, m.x.Apply(0, nil, false)))
	m.layers[0] = h
	for i, c := range m.convs[1:] {
		h = autodiff.Tanh(t, c.Forward(t, &m.adj, h))
		m.layers[i+1] = h
	}
	z := autodiff.ConcatCols(t, m.layers...)
	c := z.Value.Cols
	m.sortPool(b, z.Value.Data[c-1:], c)
	s := autodiff.GatherRowsOrZero(t, z, m.sorted) // G·K × Σ channels
	s = autodiff.ReLU(t, m.conv1.Forward(t, s))    // G·K × Conv1
	s = autodiff.MaxPoolRows(t, s, m.cfg.K, 2)     // G·⌊K/2⌋ × Conv1
	var win [5]*autodiff.Var[float32]
	for d := range win {
		win[d] = autodiff.GatherRows(t, s, m.window[d])
	}
	s = autodiff.ReLU(t, m.conv2.Forward(t, autodiff.ConcatCols(t, win[:]...))) // G·positions × Conv2
	return autodiff.Reshape(t, s, b.G(), m.positions*m.cfg.Conv2)
}

// Forward records the logits (graphs × classes) of the graphs of b.
func (m *DGCNNGraph) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	h := autodiff.ReLU(t, m.dense.Forward(t, m.embed(t, b)))
	return m.out.Forward(t, autodiff.Dropout(t, h, m.cfg.Dropout, rng, training))
}

// Groups returns every parameter in one group.
func (m *DGCNNGraph) Groups() []optim.Group[float32] {
	var ps []*autodiff.Var[float32]
	for _, c := range m.convs {
		ps = append(ps, c.Params()...)
	}
	for _, l := range []*nn.Linear[float32]{m.conv1, m.conv2, m.dense, m.out} {
		ps = append(ps, l.Params()...)
	}
	return []optim.Group[float32]{{Name: "weights", Params: ps}}
}

// ParamBytes implements MemoryEstimator. An unresolved K counts as the
// least, 10.
func (c DGCNNGraphConfig) ParamBytes(shape Shape) int64 {
	return bytesOf(2 * c.paramValues(shape, c.k(Size{})))
}

// k is the SortPooling k: K, or unresolved the mean graph's node count of
// size (at least dgcnnMinK).
func (c DGCNNGraphConfig) k(size Size) float64 {
	if c.K > 0 {
		return float64(c.K)
	}
	return max(dgcnnMinK, math.Ceil(nonneg(size.Nodes)/graphsOf(size)))
}

// dgcnnPositions is the number of outputs of the second 1-D convolution
// for k.
func dgcnnPositions(k float64) float64 { return max(math.Floor(k/2)-4, 1) }

// paramValues counts the graph convolutions, the two 1-D convolutions
// (the second spans 5 pooled positions) and the dense head, whose input
// is the second convolution's positions × channels.
func (c DGCNNGraphConfig) paramValues(shape Shape, k float64) float64 {
	convs, total := dgcnnConvValues(c.Channels, nonneg(shape.Features))
	c1, c2, d := nonneg(c.Conv1), nonneg(c.Conv2), nonneg(c.Dense)
	return convs + (total+1)*c1 + (5*c1+1)*c2 + (dgcnnPositions(k)*c2+1)*d + (d+1)*nonneg(shape.Classes)
}

// EstimateBytes implements MemoryEstimator: the graph convolutions' nodes
// × width tensors and their concatenation; SortPooling's block of K rows
// per graph of the concatenation's width; the first 1-D convolution's K
// rows per graph and the max-pooling's K/2; the five shifted windows of
// the pooled rows and their concatenation, the second convolution's
// positions per graph; the dense head per graph. Each on the training and
// the evaluation tape and with its gradient, plus the operator and the
// parameters.
func (c DGCNNGraphConfig) EstimateBytes(shape Shape, size Size) int64 {
	k := c.k(size)
	n, g := nonneg(size.Nodes), graphsOf(size)
	_, total := dgcnnConvValues(c.Channels, 0)
	c1, c2, d, pos := nonneg(c.Conv1), nonneg(c.Conv2), nonneg(c.Dense), dgcnnPositions(k)
	acts := n*4*total + // convolutions (product, aggregation, tanh) and their concatenation
		g*k*(total+2*c1) + g*math.Floor(k/2)*2*c1 + // SortPooling, the first convolution and ReLU, the max-pooling and its choices
		g*pos*(10*c1+3*c2) + // the windows, their concatenation, the second convolution and ReLU, the reshape
		g*(3*d+2*nonneg(shape.Classes)) // dense, ReLU, dropout, logits
	return bytesOf(trainingValues(c.paramValues(shape, k)) + 3*acts + operatorValues(size))
}
