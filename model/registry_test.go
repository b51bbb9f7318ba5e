package model_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/option"
)

func TestRegistryNames(t *testing.T) {
	if got := model.Names(data.NodeTask); !slices.Contains(got, "prcapsnet") || !slices.Contains(got, "gcn") {
		t.Errorf("node models %v: want prcapsnet and gcn", got)
	}
	if got := model.Names(data.GraphTask); !slices.Contains(got, "prcapsnet") || slices.Contains(got, "gcn") {
		t.Errorf("graph models %v: want prcapsnet and not gcn", got)
	}
	_, err := model.Lookup(data.NodeTask, "nope")
	if err == nil || !strings.Contains(err.Error(), "prcapsnet") {
		t.Errorf("unknown model: error %v should list the models", err)
	}
	if s, err := model.Lookup(data.NodeTask, "PRCapsNet"); err != nil || s.Name != "prcapsnet" {
		t.Errorf("lookup is not case-insensitive: %v %v", s.Name, err)
	}
}

// A nil configuration, the default one and the zero value build the same
// network (the zero value's dropouts aside, which do not change weights).
func TestZeroConfigMeansDefaults(t *testing.T) {
	shape := model.Shape{Features: 7, Classes: 3}
	weights := func(cfg model.Config) []float32 {
		m, err := model.New(data.NodeTask, "prcapsnet", cfg, shape, 4)
		if err != nil {
			t.Fatal(err)
		}
		var out []float32
		for _, p := range model.Params(m) {
			out = append(out, p.Value.Data...)
		}
		return out
	}
	def := model.DefaultPRCapsConfig()
	a, b, c := weights(nil), weights(&def), weights(&model.PRCapsConfig{})
	if !slices.Equal(a, b) || !slices.Equal(a, c) {
		t.Error("nil, default and zero configurations build different networks")
	}
	g := model.GCNConfig{}
	if _, err := model.New(data.NodeTask, "gcn", &g, shape, 0); err != nil {
		t.Errorf("zero GCNConfig: %v", err)
	}
}

func TestNewRejectsWrongConfigType(t *testing.T) {
	g := model.DefaultGCNConfig()
	if _, err := model.New(data.NodeTask, "prcapsnet", &g, model.Shape{Features: 3, Classes: 2}, 0); err == nil {
		t.Error("a GCNConfig built a PR-CapsNet")
	}
	if _, err := model.New(data.NodeTask, "gcn", nil, model.Shape{Features: 0, Classes: 2}, 0); err == nil {
		t.Error("a model without features was built")
	}
}

func TestParamsHaveUniqueDottedNames(t *testing.T) {
	shape := model.Shape{Features: 5, Classes: 2}
	// A one-graph dataset for the settings a graph model takes from the
	// graphs (DGCNN's k).
	g, err := data.NewGraph(3, []int32{0, 1}, []int32{1, 0}, data.EdgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	graphs := &data.GraphDataset{NumFeatures: 5, NumClasses: 2, Graphs: []data.GraphSample{{Graph: g}}}
	for _, s := range model.Specs() {
		cfg := s.Default()
		if r, ok := cfg.(model.GraphResolver); ok {
			r.ResolveGraphs(graphs)
		}
		m, err := model.New(s.Task, s.Name, cfg, shape, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, p := range model.Params(m) {
			if p.Name == "" || seen[p.Name] {
				t.Errorf("%s %s: parameter name %q empty or repeated", s.Task, s.Name, p.Name)
			}
			seen[p.Name] = true
		}
		if model.CountParams(m) == 0 {
			t.Errorf("%s %s: no parameters", s.Task, s.Name)
		}
	}
}

func TestConfigOptions(t *testing.T) {
	cfg := model.DefaultPRCapsConfig()
	for _, kv := range [][2]string{{"hidden", "32"}, {"routing", "pcr"}, {"coupling", "parents"}, {"activation", "tanh"},
		{"prcc-scale", "2.5"}, {"fixed-curvature", "true"}, {"routing-init", "torch"}} {
		if err := option.Set(&cfg, kv[0], kv[1]); err != nil {
			t.Fatalf("%s=%s: %v", kv[0], kv[1], err)
		}
	}
	if cfg.Hidden != 32 || cfg.Routing != model.RoutingPCR || cfg.Coupling != capsule.CouplingOverParents ||
		cfg.Activation.String() != "tanh" || cfg.ClassifierScale != 2.5 || !cfg.FixedCurvature || cfg.RoutingInit != model.InitTorch {
		t.Errorf("options not applied: %+v", cfg)
	}
	for _, kv := range [][2]string{{"hidden", "x"}, {"routing", "magic"}, {"fixed-curvature", "maybe"}, {"prcc-scale", "big"}} {
		if err := option.Set(&cfg, kv[0], kv[1]); err == nil {
			t.Errorf("%s=%s accepted", kv[0], kv[1])
		}
	}
	g := model.DefaultGCNConfig()
	if err := option.Set(&g, "k", "3"); !errors.Is(err, option.ErrUnknown) {
		t.Errorf("gcn option k: error %v, want ErrNoOption", err)
	}
	names := map[string]bool{}
	for _, o := range option.List(&cfg) {
		names[o.Name] = true
		if o.Usage == "" {
			t.Errorf("option %s has no help", o.Name)
		}
	}
	if !names["k"] || !names["no-gate-c"] || names["beta"] {
		t.Errorf("options %v", names)
	}
}
