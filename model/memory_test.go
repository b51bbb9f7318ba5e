package model_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// defaultConfigs returns every registered model's default configuration,
// with the settings derived from a dataset (DGCNN's k, GRDL's points) set,
// so that the model builds.
func defaultConfigs(t *testing.T) map[string]model.Config {
	t.Helper()
	out := map[string]model.Config{}
	for _, s := range model.Specs() {
		cfg := s.Default()
		switch c := cfg.(type) {
		case *model.DGCNNGraphConfig:
			c.K = 20
		case *model.GRDLConfig:
			c.Points = 12
		}
		out[s.Task.String()+" "+s.Name] = cfg
	}
	return out
}

// Every registered model has the one memory estimate (Register enforces
// it), and both exported functions answer for its default configuration.
func TestEveryModelHasAMemoryEstimate(t *testing.T) {
	shape := model.Shape{Features: 7, Classes: 2}
	for _, s := range model.Specs() {
		cfg := s.Default()
		if _, ok := cfg.(model.MemoryEstimator); !ok {
			t.Errorf("%s %s: a %T is no model.MemoryEstimator", s.Task, s.Name, cfg)
		}
		size := model.Size{Nodes: 1000, Arcs: 4000}
		if s.Task == data.GraphTask {
			size.Graphs = 50
		}
		est, err := model.EstimateBytes(cfg, shape, size)
		if err != nil || est <= 0 {
			t.Errorf("%s %s: EstimateBytes %d, %v", s.Task, s.Name, est, err)
		}
		small, _ := model.EstimateBytes(cfg, shape, model.Size{Graphs: size.Graphs, Nodes: 100, Arcs: 400})
		if small > est {
			t.Errorf("%s %s: %d bytes for 100 nodes, %d for 1000", s.Task, s.Name, small, est)
		}
		pb, err := model.ParamBytes(cfg, shape)
		if err != nil || pb <= 0 || pb > est {
			t.Errorf("%s %s: ParamBytes %d (estimate %d), %v", s.Task, s.Name, pb, est, err)
		}
	}
}

// ParamBytes is what building the model allocates for its parameters
// and buffers (values and gradients): at least that, and at most 2.5
// times (PR-CapsNet's configuration, shared by the node and the graph
// network, counts the graph network's class routing).
func TestParamBytesMatchesBuiltModels(t *testing.T) {
	for _, shape := range []model.Shape{{Features: 7, Classes: 2}, {Features: 300, Classes: 6}} {
		for name, cfg := range defaultConfigs(t) {
			task, model_, _ := strings.Cut(name, " ")
			var tk data.Task
			if task == data.GraphTask.String() {
				tk = data.GraphTask
			}
			m, err := model.New(tk, model_, cfg, shape, 0)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			values := int64(0)
			for _, p := range model.Params(m) {
				values += int64(p.Value.Len())
			}
			built := 8 * values // value and gradient, float32
			pb, err := model.ParamBytes(cfg, shape)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%-16s %v: ParamBytes %8d, built %8d (%.2f×)", name, shape, pb, built, float64(pb)/float64(built))
			if pb < built || float64(pb) > 2.5*float64(built) {
				t.Errorf("%s for %v: ParamBytes %d, the built model's parameters take %d", name, shape, pb, built)
			}
		}
	}
}

// setInts sets every int field of the struct cfg points to (and every
// element of an []int field) to v.
func setInts(cfg model.Config, v int) {
	s := reflect.ValueOf(cfg).Elem()
	for i := 0; i < s.NumField(); i++ {
		f := s.Field(i)
		switch {
		case f.Kind() == reflect.Int:
			f.SetInt(int64(v))
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Int:
			for j := 0; j < f.Len(); j++ {
				f.Index(j).SetInt(int64(v))
			}
		}
	}
}

// Huge widths and sizes give a huge estimate, never a wrapped or negative
// one; negative ones (an unvalidated configuration) never a negative one.
func TestMemoryEstimateSaturates(t *testing.T) {
	huge := 1 << 40
	small, large := model.Shape{Features: 7, Classes: 2}, model.Shape{Features: huge, Classes: huge}
	batch, big := model.Size{Graphs: 16, Nodes: 400, Arcs: 800}, model.Size{Graphs: huge, Nodes: huge, Arcs: huge}
	worst, most := model.Shape{Features: math.MaxInt, Classes: math.MaxInt}, model.Size{Graphs: math.MaxInt, Nodes: math.MaxInt, Arcs: math.MaxInt}
	for name, cfg := range defaultConfigs(t) {
		base, _ := model.EstimateBytes(cfg, small, batch)
		setInts(cfg, huge)
		for _, tc := range []struct {
			shape model.Shape
			size  model.Size
			least int64
		}{{small, batch, base}, {large, batch, int64(huge)}, {small, big, int64(huge)}, {worst, most, math.MaxInt64}} {
			est, err := model.EstimateBytes(cfg, tc.shape, tc.size)
			if err != nil || est < tc.least {
				t.Errorf("%s with every width %d, %v, %v: estimate %d, want at least %d (%v)", name, huge, tc.shape, tc.size, est, tc.least, err)
			}
		}
		for _, tc := range []struct {
			shape model.Shape
			least int64
		}{{small, 1}, {large, int64(huge)}, {worst, math.MaxInt64}} {
			pb, err := model.ParamBytes(cfg, tc.shape)
			if err != nil || pb < tc.least {
				t.Errorf("%s with every width %d, %v: ParamBytes %d, want at least %d (%v)", name, huge, tc.shape, pb, tc.least, err)
			}
		}
		setInts(cfg, -5)
		if est := cfg.(model.MemoryEstimator).EstimateBytes(model.Shape{Features: -1, Classes: -1}, model.Size{Graphs: -1, Nodes: -1, Arcs: -1}); est < 0 {
			t.Errorf("%s with negative sizes: estimate %d", name, est)
		}
		if pb := cfg.(model.MemoryEstimator).ParamBytes(model.Shape{Features: -1, Classes: -1}); pb < 0 {
			t.Errorf("%s with negative sizes: ParamBytes %d", name, pb)
		}
	}
	// The cases: DGCNN's 1-D convolutions and head at 65536, GIN
	// of 32 layers of 65536 (MUTAG, a batch of 50 and 32 of its largest).
	mutag := model.Shape{Features: 7, Classes: 2}
	dg := model.DGCNNGraphConfig{K: 20, Conv1: 65536, Conv2: 65536, Dense: 65536}
	gin := model.GINConfig{Hidden: 65536, Layers: 32}
	for _, tc := range []struct {
		cfg  model.Config
		size model.Size
		want int64 // at least
	}{
		{&dg, model.Size{Graphs: 50, Nodes: 1400, Arcs: 3100}, 300 << 30},
		{&gin, model.Size{Graphs: 32, Nodes: 900, Arcs: 2000}, 2000 << 30},
	} {
		if est, _ := model.EstimateBytes(tc.cfg, mutag, tc.size); est < tc.want {
			t.Errorf("%T %+v: estimate %s, want at least %s", tc.cfg, tc.cfg, model.FormatGiB(est), model.FormatGiB(tc.want))
		}
	}
}

type noEstimate struct{}

func (noEstimate) Validate() error { return nil }

func TestMemoryEstimateErrors(t *testing.T) {
	shape := model.Shape{Features: 7, Classes: 2}
	gcn := model.DefaultGCNConfig()
	for _, tc := range []struct {
		cfg   model.Config
		shape model.Shape
		size  model.Size
		want  string
	}{
		{nil, shape, model.Size{}, "nil configuration"},
		{(*model.GCNConfig)(nil), shape, model.Size{}, "nil *model.GCNConfig"},
		{noEstimate{}, shape, model.Size{}, "has no memory estimate"},
		{&gcn, model.Shape{Features: -1, Classes: 2}, model.Size{}, "must not be negative"},
		{&gcn, shape, model.Size{Nodes: -1}, "must not be negative"},
	} {
		if _, err := model.EstimateBytes(tc.cfg, tc.shape, tc.size); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("EstimateBytes(%#v, %v, %v): %v, want %q", tc.cfg, tc.shape, tc.size, err, tc.want)
		}
		if tc.size != (model.Size{}) {
			continue
		}
		if _, err := model.ParamBytes(tc.cfg, tc.shape); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParamBytes(%#v, %v): %v, want %q", tc.cfg, tc.shape, err, tc.want)
		}
	}
	if got := model.FormatGiB(3 << 29); got != "1.5 GiB" {
		t.Errorf("FormatGiB: %q", got)
	}
}

// A model whose configuration has no estimate cannot be registered.
func TestRegisterNeedsAMemoryEstimate(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "no memory estimate") {
			t.Errorf("Register of a config without an estimate: %v", r)
		}
	}()
	model.Register(model.Spec{Name: "test-no-estimate", Task: data.NodeTask, Recipe: model.NodeRecipe,
		Default: func() model.Config { return noEstimate{} },
		Build:   func(model.Config, model.Shape, uint64) (model.Model, error) { return nil, nil }})
}
