package model_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/tensor"
	"github.com/prcaps/prcaps/train"
)

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
		cfg := model.DefaultPRCapsGraphConfig()
		if pcr {
			cfg.Routing = model.RoutingPCR
		}
		cfg.Layers = 2
		m, err := model.NewPRCapsGraphNet(cfg, model.GraphShape(ds), 1)
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

// In evaluation mode a graph's logits do not depend on the rest of its
// batch (block-diagonal batching, per-graph routing), with either stem.
func TestPRCapsGraphBatchIndependence(t *testing.T) {
	ds := model.LoadEmbeddedMUTAG(t)
	for _, stem := range []model.Stem{model.StemGCN, model.StemSum} {
		m := model.GraphNetWithStem(t, ds, stem, 2)
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

func quickGraphProtocol(t *testing.T, parallel int) record.Summary {
	t.Helper()
	ds := model.LoadEmbeddedMUTAG(t)
	cfg, tc := model.DefaultPRCapsGraphConfig(), train.Recipe(data.GraphTask, "prcapsnet")
	tc.Epochs = 2
	p := train.GraphProtocol{Folds: 10, OnlyFolds: 2, FirstSeed: 7, Parallel: parallel}
	s, err := train.RunGraphProtocol(ds, func(seed uint64) (model.GraphModel, error) {
		return model.NewPRCapsGraphNet(cfg, model.GraphShape(ds), seed)
	}, p, tc, nil)
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
	ds := model.LoadEmbeddedMUTAG(t)
	idx := make([]int32, 16)
	for i := range idx {
		idx[i] = int32(3 * i)
	}
	for _, tc := range []struct {
		name string
		edit func(*model.PRCapsConfig)
	}{
		{"default", func(*model.PRCapsConfig) {}},
		{"input dropout", func(c *model.PRCapsConfig) { c.InputDropout = 0.5 }},
		{"sum stem", func(c *model.PRCapsConfig) { c.Stem = model.StemSum }},
		{"coupling over parents", func(c *model.PRCapsConfig) { c.Coupling = capsule.CouplingOverParents }},
	} {
		cfg, trainCfg := model.DefaultPRCapsGraphConfig(), train.Recipe(data.GraphTask, "prcapsnet")
		tc.edit(&cfg)
		m, err := model.NewPRCapsGraphNet(cfg, model.GraphShape(ds), 0)
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
	ds := model.LoadEmbeddedMUTAG(t)
	cfg := model.DefaultPRCapsGraphConfig()
	m, err := model.NewPRCapsGraphNet(cfg, model.GraphShape(ds), 1)
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
	ds := model.LoadEmbeddedMUTAG(t)
	for _, f := range []func(c *model.PRCapsConfig){
		func(c *model.PRCapsConfig) { c.Routing = model.RoutingEuclidean },
		func(c *model.PRCapsConfig) { c.Routing = model.RoutingNone },
		func(c *model.PRCapsConfig) { c.Coupling = 9 },
		func(c *model.PRCapsConfig) { c.Hidden = -1 },
		func(c *model.PRCapsConfig) { c.ClassifierScale = -1 },
		func(c *model.PRCapsConfig) { c.ClassifierScale = math.Inf(1) },
		func(c *model.PRCapsConfig) { c.InputDropout = 1 },
		func(c *model.PRCapsConfig) { c.InputDropout = -0.1 },
		func(c *model.PRCapsConfig) { c.RoutingInit = 9 },
	} {
		cfg := model.DefaultPRCapsGraphConfig()
		f(&cfg)
		if _, err := model.NewPRCapsGraphNet(cfg, model.GraphShape(ds), 0); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	if _, err := model.NewGraph("gcn", nil, model.GraphShape(ds), 0); err == nil {
		t.Error("unknown graph model accepted")
	}
}

// The graph network drops its one-hot input features with InputDropout
// (default 0) and nothing else there: with both dropouts at zero a training
// pass equals an evaluation pass, and input dropout alone changes it.
func TestPRCapsGraphInputDropout(t *testing.T) {
	ds := model.LoadEmbeddedMUTAG(t)
	cfg := model.DefaultPRCapsGraphConfig()
	if cfg.InputDropout != 0 || cfg.Dropout != 0.5 {
		t.Fatalf("graph defaults: input dropout %v, dropout %v; want 0 and 0.5", cfg.InputDropout, cfg.Dropout)
	}
	var b data.GraphBatch
	if err := b.Build(ds, []int32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	pass := func(m *model.PRCapsGraphNet, training bool) []float32 {
		var tp autodiff.Tape[float32]
		tp.NoGrad = true
		return m.Forward(&tp, &b, training, rand.New(rand.NewPCG(1, 2))).Value.Data
	}
	for _, tc := range []struct {
		input float64
		same  bool
	}{{0, true}, {0.5, false}} {
		cfg.Dropout, cfg.InputDropout = 0, tc.input
		m, err := model.NewPRCapsGraphNet(cfg, model.GraphShape(ds), 0)
		if err != nil {
			t.Fatal(err)
		}
		if same := model.EqualWithin(pass(m, true), pass(m, false), 1e-6); same != tc.same {
			t.Errorf("input dropout %v: training pass equal to evaluation pass: %v, want %v", tc.input, same, tc.same)
		}
	}
}
