package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/option"
	"github.com/prcaps/prcaps/train"
)

// gpsRecipe is GraphGPS's training recipe for Cora (AdamW, lr 1e-3,
// weight decay 1e-5, cosine annealing, clipping at 1), shortened to 100
// epochs: the tests train with it whatever train.Recipe says.
var gpsRecipe = train.Config{Epochs: 100, LR: 1e-3, WeightDecay: 1e-5, Optimizer: "adamw", Clip: 1, LRSchedule: train.ScheduleCosine}

// gpsAccuracy trains GraphGPS (cfg, seed 0) on split of ds with gpsRecipe
// and returns its test accuracy.
func gpsAccuracy(t *testing.T, cfg model.GraphGPSConfig, ds *data.NodeDataset, split data.Split) float64 {
	t.Helper()
	m, err := model.NewGraphGPS(cfg, model.NodeShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := train.RunNode(m, ds, split, gpsRecipe, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.TestAcc
}

// GraphGPS learns the two communities through the graph, with either
// attention, and better than on the features alone.
func TestGraphGPSLearnsCommunities(t *testing.T) {
	ds := twoCommunities(t, 300, 3)
	noEdges := *ds
	noEdges.Graph = &data.Graph{N: ds.Graph.N, Ptr: make([]int32, ds.Graph.N+1)}
	split := data.RandomSplit(ds.Y, 0, 0.6, 0.2)
	cfg := model.DefaultGraphGPSConfig()
	with, without := gpsAccuracy(t, cfg, ds, split), gpsAccuracy(t, cfg, &noEdges, split)
	if with < 0.85 || with < without+0.05 {
		t.Errorf("test accuracy %.3f with the graph, %.3f without; want ≥ 0.85 and 0.05 better", with, without)
	}
	cfg.Attention = model.GPSAttentionPerformer
	perf := gpsAccuracy(t, cfg, ds, split)
	if perf < 0.85 {
		t.Errorf("Performer: test accuracy %.3f, want ≥ 0.85", perf)
	}
	t.Logf("test accuracy %.3f (Performer %.3f) with the graph, %.3f without", with, perf, without)
}

func TestGraphGPSRejectsBadConfig(t *testing.T) {
	for _, c := range []model.GraphGPSConfig{{Hidden: 1}, {Hidden: 64, Heads: 5}, {Heads: 65}, {Layers: 33}, {Layers: -1},
		{Dropout: 1}, {AttnDropout: -0.1}, {Attention: 3}, {Norm: 2}, {RWSESteps: 65}, {PEDim: 64}, {Hidden: 32, PEDim: 40}, {HeadLayers: 9}} {
		if _, err := model.NewGraphGPS(c, model.Shape{Features: 3, Classes: 2}, 0); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
	cfg := model.DefaultGraphGPSConfig()
	for _, kv := range [][2]string{{"attention", "fast"}, {"norm", "batch"}} {
		if err := option.Set(&cfg, kv[0], kv[1]); err == nil {
			t.Errorf("%s=%s accepted", kv[0], kv[1])
		}
	}
	for _, kv := range [][2]string{{"attention", "performer"}, {"norm", "none"}, {"attn-dropout", "0.1"}, {"pe-dim", "8"}} {
		if err := option.Set(&cfg, kv[0], kv[1]); err != nil {
			t.Errorf("%s=%s: %v", kv[0], kv[1], err)
		}
	}
	if cfg.Attention != model.GPSAttentionPerformer || cfg.Norm != model.GPSNormNone || cfg.AttnDropout != 0.1 || cfg.PEDim != 8 {
		t.Errorf("options not applied: %+v", cfg)
	}
}

// The parameters are GraphGPS's for Cora's shape: the encoder, three
// layers of GCN (h² + h), attention (4h² + 4h), feed-forward (4h² + 3h)
// and three LayerNorms, the head's two bias-free layers with their norms
// and the output layer; the random features are a buffer, not counted.
func TestGraphGPSParamCount(t *testing.T) {
	m, err := model.NewGraphGPS(model.DefaultGraphGPSConfig(), model.Shape{Features: 1433, Classes: 7}, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := 64
	layer := h*h + h + 4*h*h + 4*h + 4*h*h + 3*h + 6*h
	want := 1433*36 + 36 + 16*28 + 28 + 3*layer + 2*(h*h+2*h) + h*7 + 7
	if got := model.CountParams(m); got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	f := 44 // ⌊16·ln 16⌋ features per layer
	groups := m.Groups()
	if len(groups) != 2 || !groups[1].Buffer || len(groups[1].Params) != 3 || groups[1].Params[0].Value.Len() != f*16 {
		t.Errorf("groups %+v: want the weights and 3 projections of %d×16 as buffers", groups, f)
	}
	full := model.DefaultGraphGPSConfig()
	full.Attention = model.GPSAttentionFull
	mf, _ := model.NewGraphGPS(full, model.Shape{Features: 1433, Classes: 7}, 0)
	if got := model.CountParams(mf); got != want || len(mf.Groups()) != 1 {
		t.Errorf("full attention: %d parameters in %d groups, want %d in one", got, len(mf.Groups()), want)
	}
}

// Evaluation on Cora is repeatable, and a warm training step allocates
// nothing with either attention (on a small graph: the property does not
// depend on the size).
func TestGraphGPSEvaluationAndAllocs(t *testing.T) {
	cora := model.LoadEmbeddedCora(t)
	m, err := model.NewNode("graphgps", nil, model.NodeShape(cora), 0)
	if err != nil {
		t.Fatal(err)
	}
	var tp autodiff.Tape[float32]
	tp.NoGrad = true
	a := slices.Clone(m.Forward(&tp, cora.Graph, cora.X, false, nil).Value.Data)
	tp.Reset()
	b := m.Forward(&tp, cora.Graph, cora.X, false, nil)
	if !slices.Equal(a, b.Value.Data) || b.Value.Rows != cora.Graph.N || b.Value.Cols != cora.NumClasses {
		t.Errorf("evaluation logits %d×%d, repeatable %v", b.Value.Rows, b.Value.Cols, slices.Equal(a, b.Value.Data))
	}
	ds := twoCommunities(t, 150, 4)
	split := data.RandomSplit(ds.Y, 0, 0.6, 0.2)
	for _, att := range []model.GPSAttention{model.GPSAttentionFull, model.GPSAttentionPerformer} {
		cfg := model.DefaultGraphGPSConfig()
		cfg.Attention = att
		m, err := model.NewGraphGPS(cfg, model.NodeShape(ds), 0)
		if err != nil {
			t.Fatal(err)
		}
		allocs, err := train.StepAllocs(m, ds, split, gpsRecipe)
		if err != nil {
			t.Fatal(err)
		}
		if allocs != 0 {
			t.Errorf("%v: a steady-state step allocates %.1f times", att, allocs)
		}
	}
}

// On a graph of more than GPSFullAttentionMaxNodes nodes, auto picks
// Performer, and the memory estimate stays small; full attention's
// estimate grows with the nodes, not their square.
func TestGraphGPSAutoAndMemory(t *testing.T) {
	shape := model.Shape{Features: 6805, Classes: 15}
	cfg := model.DefaultGraphGPSConfig()
	cs := cfg.EstimateBytes(shape, model.Size{Nodes: 18333, Arcs: 163788})
	if cs > 2<<30 {
		t.Errorf("Coauthor CS estimate %.2f GiB", float64(cs)/(1<<30))
	}
	cfg.Attention = model.GPSAttentionFull
	small, large := cfg.EstimateBytes(shape, model.Size{Nodes: 10000}), cfg.EstimateBytes(shape, model.Size{Nodes: 40000})
	if large > 5*small {
		t.Errorf("full attention estimate grows from %d to %d bytes for 4 times the nodes", small, large)
	}
	wide := model.DefaultGraphGPSConfig()
	wide.PEDim = 70
	if err := wide.Validate(); err == nil || !strings.Contains(err.Error(), "PE width") {
		t.Errorf("error %v", err)
	}
}
