package model_test

import (
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// GRDL tells which node label is in the majority from the distribution of
// the node embeddings alone, with no pooling. The references initialised
// from the first batch already separate the classes fairly well, so the
// training loss must also fall: the model learns beyond its start.
func TestGRDLLearnsLabelMajority(t *testing.T) {
	ds := labelMajority(t, 120)
	folds, err := data.StratifiedKFoldVal(graphLabels(ds), 4, 0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.DefaultGRDLConfig()
	cfg.ResolveGraphs(ds)
	m, err := model.NewGRDL(cfg, model.GraphShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Config{Epochs: 30, LR: 0.01, Optimizer: "adam"}
	var losses []float64
	r, err := train.RunGraph(m, ds, folds[0], tc, 16, 0, train.EpochFunc(func(_ int, e train.Epoch) { losses = append(losses, e.Loss) }))
	if err != nil {
		t.Fatal(err)
	}
	if r.TestAcc < 0.9 {
		t.Errorf("test accuracy %.3f, want ≥ 0.9", r.TestAcc)
	}
	if first, last := losses[0], losses[len(losses)-1]; !(last < first-0.1) {
		t.Errorf("training loss %.3f after %.3f at the first epoch: want a fall of more than 0.1", last, first)
	}
}

// The parameter count (buffers not counted); the references are
// initialised from the first training batch that holds their class; in
// evaluation mode a graph's logits do not depend on the rest of its batch.
func TestGRDLBatchIndependenceAndParams(t *testing.T) {
	ds := model.LoadEmbeddedMUTAG(t)
	cfg := model.GRDLConfig{Layers: 3, Hidden: 8, Points: 5, Bandwidth: 500, BandwidthLRScale: 100, Lambda: 1}
	m, err := model.NewGRDL(cfg, model.GraphShape(ds), 1)
	if err != nil {
		t.Fatal(err)
	}
	f, h, c := ds.NumFeatures, 8, ds.NumClasses
	conv := func(in int) int { return in*h + h + 2*h + h*h + h }
	want := conv(f) + 2*conv(h) + c*cfg.Points*h + 1
	if got := model.CountParams(m); got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	var b data.GraphBatch
	var tp autodiff.Tape[float32]
	// One training pass: moves the running statistics and initialises the
	// references of the classes in the batch.
	train := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	if err := b.Build(ds, train); err != nil {
		t.Fatal(err)
	}
	classes := map[int32]bool{}
	for _, y := range b.Y {
		classes[y] = true
	}
	if len(classes) != c {
		t.Fatalf("the batch holds %d of %d classes", len(classes), c)
	}
	logits := m.Forward(&tp, &b, true, nil)
	if logits.Value.Rows != len(train) || logits.Value.Cols != c {
		t.Fatalf("logits %d×%d, want %d×%d", logits.Value.Rows, logits.Value.Cols, len(train), c)
	}
	for _, g := range m.Groups() {
		if g.Name != "reference initialisation" {
			continue
		}
		for k, v := range g.Params[0].Value.Data {
			if v != 1 {
				t.Errorf("class %d: references not initialised from the batch", k)
			}
		}
	}
	for _, v := range logits.Value.Data {
		if !(v <= 0) {
			t.Fatalf("logit %v: −MMD must be ≤ 0", v)
		}
	}

	tp.Reset()
	tp.NoGrad = true
	eval := func(idx []int32) []float32 {
		if err := b.Build(ds, idx); err != nil {
			t.Fatal(err)
		}
		tp.Reset()
		return append([]float32(nil), m.Forward(&tp, &b, false, nil).Value.Data...)
	}
	all, one := eval([]int32{5, 17, 40, 3}), eval([]int32{40})
	for k := range one {
		if d := one[k] - all[2*c+k]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("graph 40 alone: logit %d = %v, in a batch %v", k, one[k], all[2*c+k])
		}
	}
}

// Points is the median node count as the authors round it; an unresolved
// or invalid configuration is refused, naming the field.
func TestGRDLConfig(t *testing.T) {
	sizes := func(ns ...int) *data.GraphDataset {
		ds := &data.GraphDataset{NumFeatures: 1, NumClasses: 2}
		for _, n := range ns {
			g, err := data.NewGraph(n, nil, nil, data.EdgeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ds.Graphs = append(ds.Graphs, data.GraphSample{Graph: g})
		}
		return ds
	}
	for _, tc := range []struct {
		ns   []int
		want int
	}{{[]int{9, 3, 5}, 5}, {[]int{4, 9, 3, 6}, 5}, {[]int{2, 3}, 2}} {
		cfg := model.DefaultGRDLConfig()
		cfg.ResolveGraphs(sizes(tc.ns...))
		if cfg.Points != tc.want {
			t.Errorf("node counts %v: %d points, want %d", tc.ns, cfg.Points, tc.want)
		}
	}
	shape := model.Shape{Features: 3, Classes: 2}
	if _, err := model.NewGRDL(model.DefaultGRDLConfig(), shape, 0); err == nil || !strings.Contains(err.Error(), "points") {
		t.Errorf("unresolved points: error %v", err)
	}
	for _, tc := range []struct {
		cfg   model.GRDLConfig
		field string
	}{
		{grdlWith(func(c *model.GRDLConfig) { c.Layers = 65 }), "layers"},
		{grdlWith(func(c *model.GRDLConfig) { c.Hidden = -1 }), "hidden"},
		{grdlWith(func(c *model.GRDLConfig) { c.Points = -1 }), "points"},
		{grdlWith(func(c *model.GRDLConfig) { c.Bandwidth = -2 }), "bandwidth"},
		{grdlWith(func(c *model.GRDLConfig) { c.BandwidthLRScale = -1 }), "bandwidth-lr-scale"},
		{grdlWith(func(c *model.GRDLConfig) { c.Lambda = -1 }), "lambda"},
		{grdlWith(func(c *model.GRDLConfig) { c.Bandwidth = 0 }), "bandwidth"},
	} {
		if err := tc.cfg.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.field+" ") {
			t.Errorf("%+v: error %v, want one naming %s", tc.cfg, err, tc.field)
		}
	}
	if _, err := model.New(data.GraphTask, "grdl", &model.GRDLConfig{Layers: 5, Hidden: 32, Points: 3, Bandwidth: 500, BandwidthLRScale: 100, Lambda: 1}, shape, 0); err != nil {
		t.Errorf("registered grdl: %v", err)
	}
}

// GRDL's steady-state training step on a fixed batch of 16 MUTAG graphs
// allocates nothing: the kernels' blocks and views live in their op
// records.
func TestGRDLStepAllocatesNothing(t *testing.T) {
	ds := model.LoadEmbeddedMUTAG(t)
	idx := make([]int32, 16)
	for i := range idx {
		idx[i] = int32(5 * i)
	}
	cfg := model.DefaultGRDLConfig()
	cfg.ResolveGraphs(ds)
	m, err := model.NewGRDL(cfg, model.GraphShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	allocs, err := train.GraphStepAllocs(m, ds, idx, train.Recipe(data.GraphTask, "grdl"))
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("steady-state GRDL training step allocates %.2f times", allocs)
	}
}

// grdlWith is the default GRDL configuration with 4 points, changed by set.
func grdlWith(set func(*model.GRDLConfig)) model.GRDLConfig {
	c := model.DefaultGRDLConfig()
	c.Points = 4
	set(&c)
	return c
}
