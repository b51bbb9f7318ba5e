package model

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/tensor"
	"github.com/prcaps/prcaps/train"
)

func embeddedMUTAG(t testing.TB) *data.GraphDataset {
	t.Helper()
	ds, err := data.Load("mutag", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds.Graph
}

// edgeCaseGraphs: a single node, a graph without edges (3 isolated nodes),
// a path with an isolated node, and a triangle; 3 classes.
func edgeCaseGraphs(t *testing.T) *data.GraphDataset {
	t.Helper()
	mk := func(n int, arcs [][2]int32, y int32) data.GraphSample {
		var src, dst []int32
		for _, a := range arcs {
			src, dst = append(src, a[0], a[1]), append(dst, a[1], a[0])
		}
		g, err := data.NewGraph(n, src, dst, data.EdgeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		x := &tensor.CSR[float32]{Rows: n, Cols: 4, Indptr: []int32{0}}
		for v := 0; v < n; v++ {
			x.Indices = append(x.Indices, int32(v%4))
			x.Data = append(x.Data, 1)
			x.Indptr = append(x.Indptr, int32(len(x.Indices)))
		}
		return data.GraphSample{Graph: g, X: data.Features{Sparse: x}, Label: y}
	}
	return &data.GraphDataset{Name: "edge-cases", NumClasses: 3, NumFeatures: 4, Graphs: []data.GraphSample{
		mk(1, nil, 0),
		mk(3, nil, 1),
		mk(4, [][2]int32{{0, 1}, {1, 2}}, 2),
		mk(3, [][2]int32{{0, 1}, {1, 2}, {0, 2}}, 0),
	}}
}

// equalWithin reports whether a and b agree elementwise within tol.
func equalWithin(a, b []float32, tol float64) bool {
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol {
			return false
		}
	}
	return true
}

func finite(xs []float32) bool {
	for _, x := range xs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// Single-node graphs, graphs without edges and isolated nodes: batching,
// forward and backward stay finite, alone and mixed in one batch.
func TestPRCapsGraphEdgeCases(t *testing.T) {
	ds := edgeCaseGraphs(t)
	for _, pcr := range []bool{false, true} {
		cfg, _, _ := DefaultGraphConfig("prcapsnet")
		if pcr {
			cfg.Routing = "pcr"
		}
		cfg.Layers = 2
		m, err := NewPRCapsGraphNet(ds, cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		var b data.GraphBatch
		var tp autodiff.Tape[float32]
		rng := rand.New(rand.NewPCG(1, 1))
		for _, idx := range [][]int32{{0}, {1}, {2}, {0, 1, 2, 3}, {3, 0}} {
			if err := b.Build(ds, idx); err != nil {
				t.Fatal(err)
			}
			labels, _ := autodiff.NewLabels(b.Y, ds.NumClasses)
			rows := make([]int32, len(idx))
			for i := range rows {
				rows[i] = int32(i)
			}
			for _, g := range m.Groups() {
				for _, p := range g.Params {
					p.ZeroGrad()
				}
			}
			tp.Reset()
			out := m.Forward(&tp, &b, true, rng)
			if out.Value.Rows != len(idx) || out.Value.Cols != 3 || !finite(out.Value.Data) {
				t.Fatalf("pcr=%v batch %v: logits %d×%d %v", pcr, idx, out.Value.Rows, out.Value.Cols, out.Value.Data)
			}
			loss := autodiff.SoftmaxCrossEntropy(&tp, out, labels, rows)
			if err := tp.Backward(loss); err != nil {
				t.Fatal(err)
			}
			for _, g := range m.Groups() {
				for _, p := range g.Params {
					if !finite(p.Grad.Data) {
						t.Fatalf("pcr=%v batch %v: non-finite gradient of %s", pcr, idx, p.Name)
					}
				}
			}
		}
	}
}

// graphNetWithStem is the default graph network with the given stem.
func graphNetWithStem(t *testing.T, ds *data.GraphDataset, stem string, seed uint64) *PRCapsGraphNet {
	t.Helper()
	cfg, _, _ := DefaultGraphConfig("prcapsnet")
	cfg.Stem = stem
	m, err := NewPRCapsGraphNet(ds, cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// In evaluation mode a graph's logits do not depend on the rest of its
// batch (block-diagonal batching, per-graph routing), with either stem.
func TestPRCapsGraphBatchIndependence(t *testing.T) {
	ds := embeddedMUTAG(t)
	for _, stem := range []string{"gcn", "sum"} {
		m := graphNetWithStem(t, ds, stem, 2)
		var b data.GraphBatch
		var tp autodiff.Tape[float32]
		tp.NoGrad = true
		logits := func(idx []int32) []float32 {
			if err := b.Build(ds, idx); err != nil {
				t.Fatal(err)
			}
			tp.Reset()
			return append([]float32(nil), m.Forward(&tp, &b, false, nil).Value.Data...)
		}
		all := logits([]int32{5, 17, 40, 3})
		one := logits([]int32{40})
		for c := range one {
			if d := math.Abs(float64(one[c] - all[2*2+c])); d > 1e-5 {
				t.Fatalf("stem %s, graph 40 alone: logit %d = %v, in a batch %v", stem, c, one[c], all[2*2+c])
			}
		}
	}
}

// The sum stem propagates with A + I: every weight of the batch's operator
// is 1, where GCN's are 1/√(d_u d_v).
func TestPRCapsGraphSumStemOperator(t *testing.T) {
	ds := embeddedMUTAG(t)
	var b data.GraphBatch
	if err := b.Build(ds, []int32{0, 5}); err != nil {
		t.Fatal(err)
	}
	for _, stem := range []string{"gcn", "sum"} {
		m := graphNetWithStem(t, ds, stem, 0)
		m.prepare(&b)
		ones := 0
		for _, w := range m.a.Data {
			if w == 1 {
				ones++
			}
		}
		if want := len(m.a.Data); stem == "sum" && ones != want {
			t.Errorf("sum stem: %d of %d weights are 1", ones, want)
		} else if stem == "gcn" && ones == want {
			t.Errorf("gcn stem: all %d weights are 1", want)
		}
	}
}

func quickGraphProtocol(t *testing.T, parallel int) train.Summary {
	t.Helper()
	ds := embeddedMUTAG(t)
	cfg, tc, _ := DefaultGraphConfig("prcapsnet")
	tc.Epochs = 2
	p := train.GraphProtocol{Folds: 10, OnlyFolds: 2, FirstSeed: 7, Parallel: parallel}
	s, err := train.RunGraphProtocol(ds, func(seed uint64) (train.GraphModel, error) {
		return NewPRCapsGraphNet(ds, cfg, seed)
	}, p, tc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A short end-to-end run on the embedded MUTAG (2 folds of the 10-fold
// protocol × 2 epochs), deterministic and independent of fold parallelism.
func TestPRCapsGraphMUTAGShortRun(t *testing.T) {
	s := quickGraphProtocol(t, 1)
	if s.Runs != 2 || s.Task != "graph" || s.Params == 0 {
		t.Fatalf("summary %+v", s)
	}
	for _, r := range s.Results {
		if !(r.TestAcc >= 0 && r.TestAcc <= 1) || r.BestEpoch < 1 {
			t.Fatalf("result %+v", r)
		}
	}
	s2 := quickGraphProtocol(t, 2)
	for i, r := range s.Results {
		r2 := s2.Results[i]
		if r.TestAcc != r2.TestAcc || r.ValAcc != r2.ValAcc || r.ValLoss != r2.ValLoss || r.BestEpoch != r2.BestEpoch {
			t.Fatalf("fold %d: %+v then %+v (parallel 2)", i, r, r2)
		}
	}
	t.Logf("MUTAG 2 folds × 2 epochs: %.3f ± %.3f, %d params, %.2fs per fold", s.MeanAcc, s.StdAcc, s.Params, s.SecondsPerRun)
}

// The steady-state training step on a fixed batch of 16 graphs allocates
// nothing (below 0.5 allocations per step on average), with and without
// input dropout, and with the optional stem and coupling.
func TestPRCapsGraphStepAllocatesNothing(t *testing.T) {
	ds := embeddedMUTAG(t)
	idx := make([]int32, 16)
	for i := range idx {
		idx[i] = int32(3 * i)
	}
	for _, tc := range []struct {
		name string
		edit func(*PRCapsConfig)
	}{
		{"default", func(*PRCapsConfig) {}},
		{"input dropout", func(c *PRCapsConfig) { c.InputDropout = 0.5 }},
		{"sum stem", func(c *PRCapsConfig) { c.Stem = "sum" }},
		{"coupling over parents", func(c *PRCapsConfig) { c.Coupling = "parents" }},
	} {
		cfg, trainCfg, _ := DefaultGraphConfig("prcapsnet")
		tc.edit(&cfg)
		m, err := NewPRCapsGraphNet(ds, cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		allocs, err := train.GraphStepAllocs(m, ds, idx, trainCfg)
		if err != nil {
			t.Fatal(err)
		}
		if allocs != 0 {
			t.Errorf("%s: steady-state graph training step allocates %.2f times", tc.name, allocs)
		}
	}
}

// A training pass on MUTAG graph 61 wraps a row of a LogExpO input in about
// one pass in a hundred, depending on the dropout draws; without
// Tape.Skip each such pass shifted the rest of the tape and about 40 op
// records and buffers were allocated in it and in the next pass. The
// median that GraphStepAllocs takes hides rare passes, so this counts the
// allocations of all 1,000.
func TestPRCapsGraphPassesAllocateNothingWhenWrapsComeAndGo(t *testing.T) {
	ds := embeddedMUTAG(t)
	cfg, _, _ := DefaultGraphConfig("prcapsnet")
	m, err := NewPRCapsGraphNet(ds, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var batch data.GraphBatch
	if err := batch.Build(ds, []int32{61}); err != nil {
		t.Fatal(err)
	}
	var labels autodiff.Labels
	if err := labels.Set(batch.Y, ds.NumClasses); err != nil {
		t.Fatal(err)
	}
	tape := autodiff.Tape[float32]{ReleaseGrads: true}
	rng := rand.New(rand.NewPCG(1, 1))
	pass := func() {
		tape.Reset()
		loss := autodiff.SoftmaxCrossEntropy(&tape, m.Forward(&tape, &batch, true, rng), labels, []int32{0})
		if err := tape.Backward(loss); err != nil {
			t.Fatal(err)
		}
	}
	for range 50 {
		pass()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 1000 {
		pass()
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n > 20 {
		t.Errorf("1,000 steady-state passes allocated %d times", n)
	}
}

func TestPRCapsGraphRejectsUnsupported(t *testing.T) {
	ds := embeddedMUTAG(t)
	for _, f := range []func(c *PRCapsConfig){
		func(c *PRCapsConfig) { c.Routing = "euclidean" },
		func(c *PRCapsConfig) { c.Routing = "none" },
		func(c *PRCapsConfig) { c.Coupling = "both" },
		func(c *PRCapsConfig) { c.Hidden = 0 },
		func(c *PRCapsConfig) { c.ClassifierScale = 0 },
		func(c *PRCapsConfig) { c.ClassifierScale = math.Inf(1) },
		func(c *PRCapsConfig) { c.InputDropout = 1 },
		func(c *PRCapsConfig) { c.InputDropout = -0.1 },
		func(c *PRCapsConfig) { c.RoutingInit = "zeros" },
	} {
		cfg, _, _ := DefaultGraphConfig("prcapsnet")
		f(&cfg)
		if _, err := NewPRCapsGraphNet(ds, cfg, 0); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	if _, _, err := DefaultGraphConfig("gcn"); err == nil {
		t.Error("unknown graph model accepted")
	}
}

// RoutingInit reaches the layers it names: "torch-graph" draws only the
// graph-level layer's prediction weights from U(±1/√fan_in), "torch" the
// node-level layers' too; by default every layer starts near I.
func TestPRCapsGraphRoutingInit(t *testing.T) {
	ds := embeddedMUTAG(t)
	nearI := func(w *autodiff.Var[float32]) bool { // every diagonal entry within 0.05 of 1
		for i := 0; i < w.Value.Rows; i++ {
			if math.Abs(float64(w.Value.Data[i*w.Value.Cols+i])-1) > 0.05 {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		init        string
		node, graph bool // near I
	}{{"identity", true, true}, {"torch", false, false}, {"torch-graph", true, false}} {
		cfg, _, _ := DefaultGraphConfig("prcapsnet")
		cfg.RoutingInit = tc.init
		m, err := NewPRCapsGraphNet(ds, cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := nearI(m.node[0].Wsph[0]) && nearI(m.node[0].Weuc[0]); got != tc.node {
			t.Errorf("%s: node-level weights near I: %v, want %v", tc.init, got, tc.node)
		}
		for c := range m.graph.Wsph {
			if got := nearI(m.graph.Wsph[c][1]) && nearI(m.graph.Weuc[c][1]); got != tc.graph {
				t.Errorf("%s: class %d's weights near I: %v, want %v", tc.init, c, got, tc.graph)
			}
		}
	}
}

// The networks start PRCC at ClassifierScale (default 10).
func TestPRCapsClassifierScale(t *testing.T) {
	ds := embeddedMUTAG(t)
	cfg, _, _ := DefaultGraphConfig("prcapsnet")
	for _, want := range []float64{cfg.ClassifierScale, 3} {
		cfg.ClassifierScale = want
		m, err := NewPRCapsGraphNet(ds, cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := manifold.Softplus(float64(m.prcc.Tau0.Value.Data[0])); math.Abs(got-want) > 1e-5*want {
			t.Errorf("graph network: initial scale %v, want %v", got, want)
		}
	}
}

// The graph network drops its one-hot input features with InputDropout
// (default 0) and nothing else there: with both dropouts at zero a training
// pass equals an evaluation pass, and input dropout alone changes it.
func TestPRCapsGraphInputDropout(t *testing.T) {
	ds := embeddedMUTAG(t)
	cfg, _, _ := DefaultGraphConfig("prcapsnet")
	if cfg.InputDropout != 0 || cfg.Dropout != 0.5 {
		t.Fatalf("graph defaults: input dropout %v, dropout %v; want 0 and 0.5", cfg.InputDropout, cfg.Dropout)
	}
	var b data.GraphBatch
	if err := b.Build(ds, []int32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	pass := func(m *PRCapsGraphNet, training bool) []float32 {
		var tp autodiff.Tape[float32]
		tp.NoGrad = true
		return m.Forward(&tp, &b, training, rand.New(rand.NewPCG(1, 2))).Value.Data
	}
	for _, tc := range []struct {
		input float64
		same  bool
	}{{0, true}, {0.5, false}} {
		cfg.Dropout, cfg.InputDropout = 0, tc.input
		m, err := NewPRCapsGraphNet(ds, cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		if same := equalWithin(pass(m, true), pass(m, false), 1e-6); same != tc.same {
			t.Errorf("input dropout %v: training pass equal to evaluation pass: %v, want %v", tc.input, same, tc.same)
		}
	}
}

// The stem reads the batch's sparse features: Â(X·W) + b and ∂W equal the
// dense computation on the densified X, for one-hot labels and for
// arbitrary non-zero values (TU node attributes).
func TestPRCapsGraphSparseStemMatchesDense(t *testing.T) {
	ds := embeddedMUTAG(t)
	cfg, _, _ := DefaultGraphConfig("prcapsnet")
	m, err := NewPRCapsGraphNet(ds, cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b data.GraphBatch
	if err := b.Build(ds, []int32{0, 5, 9, 17}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, scaled := range []bool{false, true} {
		if scaled {
			for i := range b.X.Data {
				b.X.Data[i] = float32(rng.NormFloat64())
			}
			b.Gen++ // the values changed: rebuild the transposes
		}
		m.prepare(&b)
		dense := make([]float32, b.N*m.feats)
		for v := 0; v < b.N; v++ {
			for p := b.X.Indptr[v]; p < b.X.Indptr[v+1]; p++ {
				dense[v*m.feats+int(b.X.Indices[p])] = b.X.Data[p]
			}
		}
		run := func(sparse bool) (out, grad []float32) {
			var tp autodiff.Tape[float32]
			m.stem.W.ZeroGrad()
			var h *autodiff.Var[float32]
			if sparse {
				h = m.stem.ForwardSparse(&tp, &m.adj, m.x.Apply(0, nil, false))
			} else {
				x := tp.Node(b.N, m.feats, false)
				copy(x.Value.Data, dense)
				h = m.stem.Forward(&tp, &m.adj, x)
			}
			tp.Backward(autodiff.Sum(&tp, autodiff.Square(&tp, h)))
			return append([]float32(nil), h.Value.Data...), append([]float32(nil), m.stem.W.Grad.Data...)
		}
		so, sg := run(true)
		do, dg := run(false)
		if !equalWithin(so, do, 1e-5) || !equalWithin(sg, dg, 1e-4) {
			t.Errorf("scaled values %v: sparse stem differs from the dense one", scaled)
		}
	}
}
