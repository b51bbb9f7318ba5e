package model_test

import (
	"errors"
	"math"
	"reflect"
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

// A nil configuration and the default one build the same network. Any
// configuration, whether given to New or to the model's own constructor or
// read from outside (a checkpoint, a command line), is validated as it is:
// a zero field whose range excludes zero is an error, never the default.
func TestZeroFieldIsNotADefault(t *testing.T) {
	shape := model.Shape{Features: 7, Classes: 3}
	params := func(m model.Model) []float32 {
		var out []float32
		for _, p := range model.Params(m) {
			out = append(out, p.Value.Data...)
		}
		return out
	}
	weights := func(cfg model.Config) []float32 {
		m, err := model.New(data.NodeTask, "prcapsnet", cfg, shape, 4)
		if err != nil {
			t.Fatal(err)
		}
		return params(m)
	}
	def := model.DefaultPRCapsConfig()
	if a, b := weights(nil), weights(&def); !slices.Equal(a, b) {
		t.Error("nil and default configurations build different networks")
	}
	if _, err := model.NewPRCapsNet(model.PRCapsConfig{}, shape, 4); err == nil || !strings.Contains(err.Error(), "hidden") {
		t.Errorf("NewPRCapsNet of a zero configuration: error %v, want one naming the hidden width", err)
	}
	if _, err := model.New(data.NodeTask, "prcapsnet", &model.PRCapsConfig{}, shape, 0); err == nil || !strings.Contains(err.Error(), "hidden") {
		t.Errorf("zero PRCapsConfig: error %v, want one naming the hidden width", err)
	}
	iters := model.DefaultPRCapsConfig()
	iters.Iters = 0
	if err := iters.Validate(); err == nil || !strings.Contains(err.Error(), "iterations") {
		t.Errorf("Iters 0: error %v, want one naming the routing iterations", err)
	}
	if _, err := model.New(data.NodeTask, "gcn", &model.GCNConfig{}, shape, 0); err == nil {
		t.Error("zero GCNConfig accepted")
	}
}

// Every model's default configuration is valid, and an option set to zero
// is invalid exactly where its range tags exclude zero (option.Range), so
// that the ranges a command line checks and those Validate checks agree.
// Two options read zero as "from the dataset" (ResolveGraphs): Validate
// takes it, the command line does not.
func TestRangeTagsMatchValidate(t *testing.T) {
	resolved := map[string]bool{"dgcnn sort-k": true, "grdl points": true}
	for _, s := range model.Specs() {
		if err := s.Default().Validate(); err != nil {
			t.Errorf("%s %s: default configuration: %v", s.Task, s.Name, err)
		}
		for _, o := range option.List(s.Default()) {
			r, _ := option.RangeOf(s.Default(), o.Name)
			if o.Type != "int" && o.Type != "float" {
				continue
			}
			if !r.Bounded() {
				t.Errorf("%s %s --%s: a number without range tags", s.Task, s.Name, o.Name)
				continue
			}
			cfg := s.Default()
			if err := option.Set(cfg, o.Name, "0"); (err != nil) != r.Excludes0() {
				t.Errorf("%s %s --%s 0: option.Set error %v, range %+v", s.Task, s.Name, o.Name, err, r)
			}
			cfg = s.Default()
			setZero(cfg, o.Name)
			want := r.Excludes0() && !resolved[s.Name+" "+o.Name]
			if err := cfg.Validate(); (err != nil) != want {
				t.Errorf("%s %s: %s = 0: Validate error %v, want an error: %v", s.Task, s.Name, o.Name, err, want)
			}
		}
	}
}

// setZero sets the field of cfg tagged opt:"name" to zero.
func setZero(cfg any, name string) {
	v := reflect.ValueOf(cfg).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Tag.Get("opt") == name {
			v.Field(i).SetZero()
		}
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

// A spec whose recipe could not train is refused at registration, naming
// the model and the field.
func TestRegisterChecksTheRecipe(t *testing.T) {
	for _, tc := range []struct {
		task   data.Task
		recipe model.Recipe
		want   string
	}{
		{data.NodeTask, model.Recipe{}, "0 epochs"},
		{data.NodeTask, model.Recipe{Epochs: 1, LR: math.NaN(), Optimizer: "adam", StepEvery: 1}, "learning rate NaN"},
		{data.NodeTask, model.Recipe{Epochs: 1, LR: 0.1, Optimizer: "sgd", StepEvery: 1}, `optimizer "sgd"`},
		{data.NodeTask, model.Recipe{Epochs: 1, LR: 0.1, Optimizer: "adam"}, "step period 0"},
		{data.NodeTask, model.Recipe{Epochs: 1, LR: 0.1, Optimizer: "adam", StepEvery: 1, BatchSize: 8}, "full-batch"},
		{data.GraphTask, model.Recipe{Epochs: 1, LR: 0.1, Optimizer: "adam", StepEvery: 1}, "mini-batch"},
		{data.GraphTask, model.Recipe{Epochs: 1, LR: 0.1, Optimizer: "adam", StepEvery: 1, BatchSize: 8, LRSchedule: "linear"}, `schedule "linear"`},
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.Contains(r, "test-bad-recipe") || !strings.Contains(r, tc.want) {
					t.Errorf("%+v: panic %q, want one naming the model and %q", tc.recipe, r, tc.want)
				}
			}()
			model.Register(model.Spec{Name: "test-bad-recipe", Task: tc.task, Recipe: tc.recipe,
				Default: func() model.Config { c := model.DefaultGCNConfig(); return &c },
				Build:   func(model.Config, model.Shape, uint64) (model.Model, error) { return nil, nil }})
		}()
	}
}
