package model

import (
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
		Name: "grdl", Task: data.GraphTask,
		Summary: "GRDL (Wang & Fan 2024): GIN node embeddings as distributions, classified by their MMD to learned reference distributions, no pooling",
		// The authors' exp.py: Adam at lr 0.001 (the kernel bandwidth at
		// 100 times that, a model option), no weight decay, × 0.95 per
		// epoch, 100 epochs, batch 32.
		Recipe:  Recipe{Epochs: 100, LR: 0.001, Optimizer: "adam", LRSchedule: "exponential", BatchSize: 32, StepEvery: DefaultStepEvery},
		Default: func() Config { c := DefaultGRDLConfig(); return &c },
		Build: func(cfg Config, shape Shape, seed uint64) (Model, error) {
			return NewGRDL(*cfg.(*GRDLConfig), shape, seed)
		},
	})
}

// GRDLConfig configures GRDL. Start from DefaultGRDLConfig: a zero width,
// count or bandwidth is invalid, not a default; Lambda's zero turns the
// separation term off, and Points' zero means "from the data"
// (ResolveGraphs);
// building with it unresolved is an error.
type GRDLConfig struct {
	Layers int `opt:"layers" min:"1" max:"64" help:"GIN layers"`
	Hidden int `opt:"hidden" min:"1" max:"65536" help:"hidden width"`
	Points int `opt:"points" min:"1" max:"65536" help:"points of each class's reference distribution (default: the median node count of the dataset's graphs, the authors' setting G3)"`
	// Bandwidth is the initial γ of the kernel exp(−‖u − v‖²/γ); γ is
	// trained.
	Bandwidth float64 `opt:"bandwidth" gt:"0" help:"initial bandwidth γ of the Gaussian kernel exp(−‖u−v‖²/γ), trained"`
	// BandwidthLRScale multiplies the base learning rate for γ: the
	// authors train it at 0.1 against 0.001 for the rest.
	BandwidthLRScale float64 `opt:"bandwidth-lr-scale" gt:"0" help:"learning rate of the bandwidth over the base rate (100: the authors' 0.1 against 0.001)"`
	Lambda           float64 `opt:"lambda" min:"0" help:"weight λ of the term −λ·Σ_{c<c'} MMD(D_c, D_c') that pushes the classes' references apart"`
}

// GRDLConfig implements these, checked at compile time.
var (
	_ MemoryEstimator = GRDLConfig{}
	_ GraphResolver   = (*GRDLConfig)(nil)
)

// DefaultGRDLConfig is the authors' exp.py defaults: 5 GIN layers of width
// 32 (two-layer MLPs), γ initialised at 500 and trained at 100 times the
// base rate, separation weight λ = 1; the number of reference points is
// taken from the data (ResolveGraphs).
func DefaultGRDLConfig() GRDLConfig {
	return GRDLConfig{Layers: 5, Hidden: 32, Bandwidth: 500, BandwidthLRScale: 100, Lambda: 1}
}

// ResolveGraphs sets a zero Points as the authors' default (their option
// G3): the median node count of the dataset's graphs, truncated to an
// integer as their int(np.median(·)), at least 1. Node counts carry no
// label, and the median is over all graphs, as in their code.
func (c *GRDLConfig) ResolveGraphs(ds *data.GraphDataset) {
	if c.Points != 0 || len(ds.Graphs) == 0 {
		return
	}
	n := make([]int, len(ds.Graphs))
	for i, g := range ds.Graphs {
		n[i] = g.Graph.N
	}
	slices.Sort(n)
	h := len(n) / 2
	med := n[h]
	if len(n)%2 == 0 {
		med = (n[h-1] + n[h]) / 2
	}
	c.Points = max(1, med)
}

// Validate reports an invalid field; a zero Points is valid here (see
// ResolveGraphs).
func (c GRDLConfig) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.Layers < 1 || c.Layers > 64:
		return fmt.Errorf("layers %d must be in [1, 64]", c.Layers)
	case c.Hidden < 1 || c.Hidden > MaxWidth:
		return fmt.Errorf("hidden width %d must be in [1, %d]", c.Hidden, MaxWidth)
	case c.Points < 0 || c.Points > MaxWidth:
		return fmt.Errorf("points %d must be in [1, %d] (0: from the data)", c.Points, MaxWidth)
	case !(c.Bandwidth > 0) || !finite(c.Bandwidth):
		return fmt.Errorf("bandwidth %v must be positive and finite", c.Bandwidth)
	case !(c.BandwidthLRScale > 0) || !finite(c.BandwidthLRScale):
		return fmt.Errorf("bandwidth-lr-scale %v must be positive and finite", c.BandwidthLRScale)
	case !(c.Lambda >= 0) || !finite(c.Lambda):
		return fmt.Errorf("lambda %v must be non-negative and finite", c.Lambda)
	}
	return nil
}

// GRDL is Graph Reference Distribution Learning (Wang & Fan, NeurIPS 2024,
// "Graph classification via reference distribution learning: theory and
// practice"), as in the authors' code (github.com/jicongfan/
// GRDL-Graph-Classification, model.py and exp.py; the paper's text was not
// at hand, so its equations are not cited by number). It was read as:
//
//   - Node embeddings: Layers GIN-0 layers (PyG GINConv, ε = 0 fixed)
//     whose MLP is Linear → BatchNorm → LeakyReLU(0.1) → Linear, with no
//     activation between layers (the next layer's MLP starts linear), and
//     jumping knowledge by the elementwise maximum over the layers'
//     outputs: H_G = max_l h_l, one Hidden-wide row per node.
//   - Each graph G is the uniform discrete distribution over its rows of
//     H_G; each class c has a learned reference D_c, Points points in the
//     same space (the authors' "atoms").
//   - Kernel k(u, v) = exp(−‖u − v‖²/γ) with one trained γ, initialised
//     at 500 (their neg_exp(d, gamma) = exp(−d/γ)).
//   - Class score: the biased (V-statistic) MMD,
//     MMD²(G, D_c) = mean_{i,j∈G} k(h_i, h_j) + mean_{p,q∈D_c} k(a_p, a_q)
//     − 2·mean_{i∈G, p∈D_c} k(h_i, a_p), and the prediction
//     softmax_c(−MMD(G, D_c)) (their ReferenceLayer returns exp(−MMD)
//     normalised, and the loss is its negative log-likelihood): the logits
//     are −MMD, the square root of MMD² taken.
//   - Regulariser ("discriminate_loss"): λ·(−Σ_{c<c'} MMD(D_c, D_c')),
//     added to the mean cross-entropy, which pushes the references apart.
//     The trainer here sees only logits, so the term reaches the gradient
//     through autodiff.AddPenalty and is not in the reported loss.
//   - References are initialised from data (their GRDL.init_atoms): class
//     c's points are the node embeddings, by the untrained network in
//     training mode, of a training graph of class c with exactly Points
//     nodes, or else k-means centres of the class's node embeddings. Here
//     this happens at the first training pass whose mini-batch holds a
//     graph of class c, from that batch (theirs is the whole training set,
//     and their k-means takes the best of 10 starts, this one a single
//     k-means++ start); a buffer records which classes are done, so a
//     restored model is not re-initialised. Until then the points are
//     N(0, 1), their reset_parameters.
//
// Deviations, both for numerical safety: √(max(MMD², 0) + 10⁻⁶) where they
// take √MMD² (NaN when rounding makes MMD² negative), and γ is floored at
// 10⁻⁴ of its initial value inside the kernel (their γ is unconstrained;
// at γ ≤ 0 the kernel is not finite). Their optimiser is Adam with lr
// 10⁻³ for the network and the references, 0.1 for γ (BandwidthLRScale),
// no weight decay, decayed by 0.95 per epoch, 100 epochs, batch 32.
//
// Batch norm normalises over the nodes of a mini-batch and the penalty is
// charged once per backward pass, so GRDL trains on whole mini-batches
// (WholeBatch). In evaluation mode a graph's logits depend only on its
// own nodes.
type GRDL struct {
	cfg     GRDLConfig
	classes int
	convs   []grdlConv
	refs    *autodiff.Var[float32] // (classes·Points)×Hidden; class c in rows c·Points …
	gamma   *autodiff.Var[float32] // 1×1
	ready   *autodiff.Var[float32] // 1×classes buffer: 1 once class c's points came from data
	floor   float64                // the least γ the kernel uses

	// Constants: the block means over each class's points as a product,
	// (classes·Points)×classes with 1/Points in block c of column c, its
	// transpose, the class segments of refs, and the off-diagonal mask.
	pool, poolT *autodiff.Var[float32]
	classSeg    []int32
	offDiag     *autodiff.Var[float32]

	rng *rand.Rand // k-means seeding of the reference initialisation

	// Buffers of the current batch.
	batch *data.GraphBatch
	gen   uint64
	a     tensor.CSR[float32]
	sum   tensor.Adjacency[float32]
	x     nn.SparseInput[float32]
	inv   *autodiff.Var[float32] // 1/nodes per graph
	outs  []*autodiff.Var[float32]
	km    grdlKMeans
}

// GRDL implements these, checked at compile time.
var (
	_ GraphModel = (*GRDL)(nil)
	_ WholeBatch = (*GRDL)(nil)
)

// grdlConv is a GIN-0 layer with the authors' MLP: Linear → BatchNorm →
// LeakyReLU(0.1) → Linear (nn.GINConv has ReLU).
type grdlConv struct {
	lin1 *nn.Linear[float32]
	norm *nn.BatchNorm[float32]
	lin2 *nn.Linear[float32]
}

// grdlLeak is the negative slope of the authors' MLP activation.
const grdlLeak = 0.1

// grdlSqrtEps keeps √MMD² differentiable where MMD² reaches 0.
const grdlSqrtEps = 1e-6

// grdlBandwidthFloor is the least γ the kernel uses, relative to the
// initial γ.
const grdlBandwidthFloor = 1e-4

// NewGRDL builds GRDL for shape with weights drawn from seed; cfg.Points
// must be resolved (ResolveGraphs or set).
func NewGRDL(cfg GRDLConfig, shape Shape, seed uint64) (*GRDL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Points == 0 {
		return nil, fmt.Errorf("model: grdl: points is unresolved: set it, or resolve it from the dataset (GRDLConfig.ResolveGraphs)")
	}
	if shape.Features < 1 || shape.Classes < 2 {
		return nil, fmt.Errorf("model: grdl needs at least 1 feature and 2 classes, got %d and %d", shape.Features, shape.Classes)
	}
	if shape.Classes*cfg.Points > MaxWidth {
		return nil, fmt.Errorf("model: grdl: %d classes × %d points exceed %d reference points", shape.Classes, cfg.Points, MaxWidth)
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	C, P, h := shape.Classes, cfg.Points, cfg.Hidden
	m := &GRDL{cfg: cfg, classes: C, floor: grdlBandwidthFloor * cfg.Bandwidth,
		rng: rand.New(rand.NewPCG(seed, 12))}
	in := shape.Features
	for l := range cfg.Layers {
		name := fmt.Sprintf("convs.%d.mlp", l)
		m.convs = append(m.convs, grdlConv{
			lin1: nn.NewLinear[float32](name+".0", in, h, true, rng),
			norm: nn.NewBatchNorm[float32](name+".1", h),
			lin2: nn.NewLinear[float32](name+".3", h, h, true, rng),
		})
		in = h
	}
	m.refs = autodiff.NewParam[float32]("references.points", C*P, h)
	for i := range m.refs.Value.Data {
		m.refs.Value.Data[i] = float32(rng.NormFloat64())
	}
	m.gamma = autodiff.NewParam[float32]("references.gamma", 1, 1)
	m.gamma.Value.Data[0] = float32(cfg.Bandwidth)
	m.ready = autodiff.NewParam[float32]("references.initialised", 1, C)

	pool, poolT := tensor.NewDense[float32](C*P, C), tensor.NewDense[float32](C, C*P)
	off := tensor.NewDense[float32](C, C)
	for c := range C {
		for p := range P {
			pool.Data[(c*P+p)*C+c], poolT.Data[c*C*P+c*P+p] = 1/float32(P), 1/float32(P)
		}
		for c2 := range C {
			if c2 != c {
				off.Data[c*C+c2] = 1
			}
		}
		m.classSeg = append(m.classSeg, int32(c*P))
	}
	m.classSeg = append(m.classSeg, int32(C*P))
	m.pool, m.poolT, m.offDiag = autodiff.NewVar(pool, false), autodiff.NewVar(poolT, false), autodiff.NewVar(off, false)
	m.inv = autodiff.NewVar(tensor.NewDense[float32](0, 1), false)
	return m, nil
}

// WholeBatch implements WholeBatch: batch norm spans the mini-batch, and
// the separation penalty must be charged once per step.
func (m *GRDL) WholeBatch() bool { return true }

func (m *GRDL) prepare(b *data.GraphBatch) {
	if m.batch == b && m.gen == b.Gen {
		return
	}
	m.batch, m.gen = b, b.Gen
	nn.SumOperatorInto(&m.a, b.N, b.Ptr, b.Src, 0)
	m.sum.Reset(&m.a)
	m.x.Reset(&b.X)
	m.inv.Value.Reshape(b.G(), 1)
	for g := range b.G() {
		m.inv.Value.Data[g] = 1 / float32(max(b.Seg[g+1]-b.Seg[g], 1))
	}
}

// nodes records the node embeddings H (nodes × Hidden): the elementwise
// maximum of the GIN layers' outputs (PyG's JumpingKnowledge("max")).
func (m *GRDL) nodes(t *autodiff.Tape[float32], training bool) *autodiff.Var[float32] {
	m.outs = m.outs[:0]
	var h *autodiff.Var[float32]
	for l, c := range m.convs {
		// (A + I)·(h·W₁) = ((A + I)·h)·W₁: the sum after the first product,
		// as nn.GINConv, so the sparse input is multiplied once.
		var z *autodiff.Var[float32]
		if l == 0 {
			z = autodiff.SpMMTransposed(t, m.x.Apply(0, nil, false), c.lin1.W)
		} else {
			z = autodiff.MatMul(t, h, c.lin1.W)
		}
		z = c.lin1.AddBias(t, autodiff.GraphAggregate(t, &m.sum, z))
		z = autodiff.LeakyReLU(t, c.norm.Forward(t, z, training), grdlLeak)
		h = c.lin2.Forward(t, z)
		m.outs = append(m.outs, h)
	}
	L := len(m.outs)
	if L == 1 {
		return h
	}
	// Node v's layer outputs side by side, then one row per (node, layer):
	// MaxPoolRows over each node's L consecutive rows is the maximum.
	n, w := h.Value.Rows, h.Value.Cols
	cat := autodiff.Reshape(t, autodiff.ConcatCols(t, m.outs...), n*L, w)
	return autodiff.MaxPoolRows(t, cat, L, L)
}

// Forward records the logits (graphs × classes), −MMD(G, D_c).
func (m *GRDL) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.prepare(b)
	h := m.nodes(t, training)
	if training {
		m.initReferences(b, &h.Value)
	}
	gamma := autodiff.Clamp(t, m.gamma, m.floor, math.Inf(1))
	C := m.classes

	// The three means of MMD²(G, D_c), graphs × classes by broadcasting.
	xx := autodiff.SegmentKernelMean(t, h, gamma, b.Seg)           // G×1
	yy := autodiff.SegmentKernelMean(t, m.refs, gamma, m.classSeg) // C×1
	xy := autodiff.GaussianKernel(t, h, m.refs, gamma)             // N×(C·P)
	xy = autodiff.MatMul(t, autodiff.ScatterAddRows(t, xy, b.Seg), m.pool)
	xy = autodiff.Mul(t, xy, m.inv) // G×C: mean over nodes and points
	yyRow := autodiff.Reshape(t, yy, 1, C)
	logits := autodiff.Scale(t, mmd(t, autodiff.Add(t, xx, yyRow), xy), -1)

	if training && m.cfg.Lambda > 0 {
		// −Σ_{c<c'} MMD(D_c, D_c') = −½ Σ_{c≠c'}, from the block means of
		// the points' kernel matrix; the diagonal is masked out.
		kk := autodiff.MatMul(t, autodiff.MatMul(t, m.poolT, autodiff.GaussianKernel(t, m.refs, m.refs, gamma)), m.pool)
		d := mmd(t, autodiff.Add(t, yy, yyRow), kk)
		sep := autodiff.Scale(t, autodiff.Sum(t, autodiff.Mul(t, d, m.offDiag)), -0.5)
		logits = autodiff.AddPenalty(t, logits, sep, m.cfg.Lambda)
	}
	return logits
}

// mmd records √(max(self − 2·cross, 0) + ε): the MMD from the sum of the
// two sets' own kernel means and their cross mean.
func mmd(t *autodiff.Tape[float32], self, cross *autodiff.Var[float32]) *autodiff.Var[float32] {
	d2 := autodiff.Sub(t, self, autodiff.Scale(t, cross, 2))
	return autodiff.Sqrt(t, autodiff.Clamp(t, d2, 0, math.Inf(1)), grdlSqrtEps)
}

// initReferences sets the points of every class not yet initialised that
// has a graph in b, from the node embeddings h of this training pass: a
// graph of the class with exactly Points nodes if the batch has one (the
// first), else k-means centres of all the class's nodes in the batch.
func (m *GRDL) initReferences(b *data.GraphBatch, h *tensor.Dense[float32]) {
	P, w := m.cfg.Points, h.Cols
	for c := range m.classes {
		if m.ready.Value.Data[c] != 0 {
			continue
		}
		exact := -1
		m.km.rows = m.km.rows[:0]
		for g, y := range b.Y {
			if int(y) != c {
				continue
			}
			lo, hi := b.Seg[g], b.Seg[g+1]
			if exact < 0 && int(hi-lo) == P {
				exact = g
			}
			for v := lo; v < hi; v++ {
				m.km.rows = append(m.km.rows, v)
			}
		}
		if len(m.km.rows) == 0 {
			continue
		}
		dst := m.refs.Value.Data[c*P*w : (c+1)*P*w]
		if exact >= 0 {
			copy(dst, h.Data[int(b.Seg[exact])*w:int(b.Seg[exact+1])*w])
		} else {
			m.km.centres(dst, h, P, m.rng)
		}
		m.ready.Value.Data[c] = 1
	}
}

// grdlKMeans is the scratch of a k-means over some rows of a matrix.
type grdlKMeans struct {
	rows   []int32   // the rows clustered
	assign []int32   // cluster of each row
	dist   []float64 // squared distance of each row to its nearest centre
	sums   []float64 // k × width
	counts []int
}

// centres writes k centres (k × width, row-major) of the rows km.rows of
// h into dst: k-means++ seeding from rng, then Lloyd's iterations until
// no row changes cluster (at most 100). With fewer rows than k the rows
// are repeated, each repeat moved by a small Gaussian step so that no two
// points coincide (identical points would receive identical gradients
// and never separate).
func (km *grdlKMeans) centres(dst []float32, h *tensor.Dense[float32], k int, rng *rand.Rand) {
	w, n := h.Cols, len(km.rows)
	row := func(i int) []float32 { r := int(km.rows[i]); return h.Data[r*w : (r+1)*w] }
	if n <= k {
		for c := range k {
			src := row(c % n)
			for j, v := range src {
				dst[c*w+j] = v
				if c >= n {
					dst[c*w+j] += float32(1e-3 * rng.NormFloat64())
				}
			}
		}
		return
	}
	sq := func(a, b []float32) float64 {
		s := 0.0
		for j, v := range a {
			e := float64(v) - float64(b[j])
			s += e * e
		}
		return s
	}
	km.dist = slices.Grow(km.dist[:0], n)[:n]
	km.assign = slices.Grow(km.assign[:0], n)[:n]
	// k-means++: each next centre drawn with probability ∝ the squared
	// distance to the nearest centre so far.
	copy(dst[:w], row(rng.IntN(n)))
	for i := range n {
		km.dist[i] = sq(row(i), dst[:w])
	}
	for c := 1; c < k; c++ {
		total := 0.0
		for _, d := range km.dist {
			total += d
		}
		pick := n - 1
		if total > 0 {
			u := rng.Float64() * total
			for i, d := range km.dist {
				if u -= d; u < 0 {
					pick = i
					break
				}
			}
		} else {
			pick = rng.IntN(n)
		}
		copy(dst[c*w:(c+1)*w], row(pick))
		for i := range n {
			km.dist[i] = min(km.dist[i], sq(row(i), dst[c*w:(c+1)*w]))
		}
	}
	km.sums = slices.Grow(km.sums[:0], k*w)[:k*w]
	km.counts = slices.Grow(km.counts[:0], k)[:k]
	for it := 0; it < 100; it++ {
		changed := false
		for i := range n {
			best, bd := int32(0), math.Inf(1)
			for c := range k {
				if d := sq(row(i), dst[c*w:(c+1)*w]); d < bd {
					best, bd = int32(c), d
				}
			}
			if it == 0 || km.assign[i] != best {
				changed = true
			}
			km.assign[i], km.dist[i] = best, bd
		}
		if !changed {
			return
		}
		clear(km.sums)
		clear(km.counts)
		for i := range n {
			c := int(km.assign[i])
			km.counts[c]++
			for j, v := range row(i) {
				km.sums[c*w+j] += float64(v)
			}
		}
		for c := range k {
			if km.counts[c] == 0 {
				// An empty cluster takes the row farthest from its centre.
				far := 0
				for i, d := range km.dist {
					if d > km.dist[far] {
						far = i
					}
				}
				copy(dst[c*w:(c+1)*w], row(far))
				km.dist[far] = 0
				continue
			}
			for j := range w {
				dst[c*w+j] = float32(km.sums[c*w+j] / float64(km.counts[c]))
			}
		}
	}
}

// Groups implements Model: the network's weights; the reference points
// and the bandwidth, exempt from weight decay (the authors use none; decay
// would pull the references to the origin and γ to 0), γ at
// BandwidthLRScale times the base rate; and as buffers the batch norms'
// running statistics and the record of which classes' points were
// initialised from data.
func (m *GRDL) Groups() []optim.Group[float32] {
	var ws, bufs []*autodiff.Var[float32]
	for _, c := range m.convs {
		ws = append(append(append(ws, c.lin1.Params()...), c.norm.Params()...), c.lin2.Params()...)
		bufs = append(bufs, c.norm.Buffers()...)
	}
	return []optim.Group[float32]{
		{Name: "weights", Params: ws},
		{Name: "references", Params: []*autodiff.Var[float32]{m.refs}, NoWeightDecay: true},
		{Name: "bandwidth", Params: []*autodiff.Var[float32]{m.gamma}, NoWeightDecay: true, LRScale: m.cfg.BandwidthLRScale},
		{Name: "batch statistics", Params: bufs, Buffer: true},
		{Name: "reference initialisation", Params: []*autodiff.Var[float32]{m.ready}, Buffer: true},
	}
}

// ParamBytes implements MemoryEstimator: the network, the references and
// the constants of the class means. An unresolved Points counts as 1.
func (c GRDLConfig) ParamBytes(shape Shape) int64 {
	p := c.points(Size{})
	cl := nonneg(shape.Classes)
	return bytesOf(2*c.paramValues(shape, p) + 2*cl*p*cl + cl*cl)
}

// points is the reference points per class: Points, or unresolved the
// mean graph's node count of size (at least 1).
func (c GRDLConfig) points(size Size) float64 {
	if c.Points > 0 {
		return float64(c.Points)
	}
	return max(1, math.Ceil(nonneg(size.Nodes)/graphsOf(size)))
}

// paramValues counts the GIN layers (two linear maps and a batch norm
// with its statistics each), the classes' reference points, the
// bandwidth and the initialisation flags.
func (c GRDLConfig) paramValues(shape Shape, points float64) float64 {
	h, layers, cl := nonneg(c.Hidden), nonneg(c.Layers), nonneg(shape.Classes)
	if layers == 0 {
		return cl*points*h + 1 + cl
	}
	return (nonneg(shape.Features)+1)*h + (layers-1)*(h+1)*h + layers*((h+1)*h+4*h) + cl*points*h + 1 + cl
}

// EstimateBytes implements MemoryEstimator: per GIN layer about eight
// nodes × hidden tensors and their concatenation for the maximum; the
// kernel of every node with every reference point (nodes × classes ·
// points: values, distances, gradient and a block) and its sums per
// graph; with the separation term (Lambda > 0) the kernel of the
// reference points with themselves, (classes · points)², likewise; the
// network's on the training and the evaluation tape and with their
// gradients, plus the operator and the parameters.
func (c GRDLConfig) EstimateBytes(shape Shape, size Size) int64 {
	p := c.points(size)
	h, n, g, layers := nonneg(c.Hidden), nonneg(size.Nodes), graphsOf(size), nonneg(c.Layers)
	refs := nonneg(shape.Classes) * p
	acts := 3*(layers*8*n*h+2*n*layers*h+2*n*h) + 4*n*refs + 2*g*refs
	if c.Lambda > 0 {
		acts += 4*refs*refs + 4*refs*nonneg(shape.Classes)
	}
	return bytesOf(trainingValues(c.paramValues(shape, p)) + acts + operatorValues(size))
}
