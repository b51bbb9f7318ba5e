package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/train"
)

// TestPRCapsNetVariantsStep builds every ablation variant on the embedded
// Cora and takes two training steps: the loss must be finite and every
// parameter gradient finite.
func TestPRCapsNetVariantsStep(t *testing.T) {
	ds := embeddedCora(t)
	variants := map[string]func(*PRCapsConfig){
		"full":            func(*PRCapsConfig) {},
		"pcr":             func(c *PRCapsConfig) { c.Routing = "pcr" },
		"euclidean+prcc":  func(c *PRCapsConfig) { c.Routing = "euclidean" },
		"caps only":       func(c *PRCapsConfig) { c.Routing, c.Classifier = "euclidean", "linear" },
		"pr only":         func(c *PRCapsConfig) { c.Routing = "none" },
		"acr+linear":      func(c *PRCapsConfig) { c.Classifier = "linear" },
		"fixed curvature": func(c *PRCapsConfig) { c.FixedCurvature = true },
		"no gates":        func(c *PRCapsConfig) { c.NoC, c.NoA, c.NoR = true, true, true },
		"parents, detach": func(c *PRCapsConfig) { c.Coupling, c.DetachB = "parents", true },
		"L=2, T=1, K=2":   func(c *PRCapsConfig) { c.Layers, c.Iters, c.K = 2, 1, 2 },
		"s=3 t=1 tanh":    func(c *PRCapsConfig) { c.S, c.T, c.Activation = 3, 1, "tanh" },
	}
	for name, edit := range variants {
		cfg := DefaultPRCapsConfig()
		edit(&cfg)
		m, err := NewPRCapsNet(ds, cfg, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, tc, _ := DefaultNodeConfig("prcapsnet")
		tc.Epochs = 2
		r, err := train.RunNode(m, ds, *ds.Public, tc, 1, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, g := range m.Groups() {
			for _, p := range g.Params {
				for _, v := range p.Grad.Data {
					if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
						t.Fatalf("%s: parameter %q has a non-finite gradient", name, p.Name)
					}
				}
			}
		}
		if r.ValAcc < 0 || r.ValAcc > 1 {
			t.Errorf("%s: validation accuracy %v", name, r.ValAcc)
		}
	}
}

func TestPRCapsNetFixedCurvatureFreezesBetas(t *testing.T) {
	ds := embeddedCora(t)
	cfg := DefaultPRCapsConfig()
	cfg.FixedCurvature = true
	m, err := NewPRCapsNet(ds, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	groups := m.Groups()
	curv := groups[len(groups)-1]
	if !curv.Frozen || len(curv.Params) != 1+cfg.K {
		t.Fatalf("curvature group %q frozen=%v with %d params; want frozen, %d", curv.Name, curv.Frozen, len(curv.Params), 1+cfg.K)
	}
	before := make([]float32, len(curv.Params))
	for i, p := range curv.Params {
		before[i] = p.Value.Data[0]
	}
	_, tc, _ := DefaultNodeConfig("prcapsnet")
	tc.Epochs = 3
	if _, err := train.RunNode(m, ds, *ds.Public, tc, 1, nil); err != nil {
		t.Fatal(err)
	}
	for i, p := range curv.Params {
		if p.Value.Data[0] != before[i] {
			t.Errorf("frozen curvature %q moved from %v to %v", p.Name, before[i], p.Value.Data[0])
		}
	}
}

func TestPRCapsNetRejectsBadConfig(t *testing.T) {
	ds := embeddedCora(t)
	for _, edit := range []func(*PRCapsConfig){
		func(c *PRCapsConfig) { c.T = 0 },
		func(c *PRCapsConfig) { c.Routing = "magic" },
		func(c *PRCapsConfig) { c.Classifier = "svm" },
		func(c *PRCapsConfig) { c.Iters = 0 },
		func(c *PRCapsConfig) { c.Activation = "gelu" },
		func(c *PRCapsConfig) { c.Coupling = "both" },
		func(c *PRCapsConfig) { c.Stem = "gin" },
		func(c *PRCapsConfig) { c.InputDropout = 1 },
		func(c *PRCapsConfig) { c.Dropout = -0.5 },
		func(c *PRCapsConfig) { c.RoutingInit = "zeros" },
		func(c *PRCapsConfig) { c.RoutingInit = "torch-graph" }, // no graph-level layer here
	} {
		cfg := DefaultPRCapsConfig()
		edit(&cfg)
		if _, err := NewPRCapsNet(ds, cfg, 0); err == nil {
			t.Errorf("config %+v: no error", cfg)
		}
	}
}

func TestPRCapsNetStepAllocatesNothing(t *testing.T) {
	ds := embeddedCora(t)
	cfg := DefaultPRCapsConfig() // every stage, at a small width to keep the test quick
	cfg.Hidden, cfg.S, cfg.T, cfg.K = 16, 3, 2, 2
	m, err := NewPRCapsNet(ds, cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, tc, _ := DefaultNodeConfig("prcapsnet")
	allocs, err := train.StepAllocs(m, ds, *ds.Public, tc)
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("steady-state PR-CapsNet training step allocates %.1f times", allocs)
	}
}

// The node network drops its input features with InputDropout (default
// 0.5, the authors' code): with both dropouts at zero a training pass
// equals an evaluation pass, and input dropout alone changes it.
func TestPRCapsNetInputDropout(t *testing.T) {
	ds := embeddedCora(t)
	cfg := DefaultPRCapsConfig()
	if cfg.InputDropout != 0.5 || cfg.Dropout != 0.5 {
		t.Fatalf("node defaults: input dropout %v, dropout %v; want 0.5 and 0.5", cfg.InputDropout, cfg.Dropout)
	}
	pass := func(m train.NodeModel, training bool) []float32 {
		var tp autodiff.Tape[float32]
		tp.NoGrad = true
		return m.Forward(&tp, training, rand.New(rand.NewPCG(1, 2))).Value.Data
	}
	for _, tc := range []struct {
		input float64
		same  bool
	}{{0, true}, {0.5, false}} {
		cfg.Dropout, cfg.InputDropout = 0, tc.input
		m, err := NewPRCapsNet(ds, cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		if same := equalWithin(pass(m, true), pass(m, false), 1e-6); same != tc.same {
			t.Errorf("input dropout %v: training pass equal to evaluation pass: %v, want %v", tc.input, same, tc.same)
		}
	}
}
