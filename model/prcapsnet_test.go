package model_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/option"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/train"
)

// prcapsVariants are the node network's ablation variants, by name, as
// edits of the default configuration, and every routing kind capsule
// knows ("routing NAME"), so that a kind added there is trained here.
func prcapsVariants() map[string]func(*model.PRCapsConfig) {
	v := map[string]func(*model.PRCapsConfig){
		"full":            func(*model.PRCapsConfig) {},
		"pcr":             func(c *model.PRCapsConfig) { c.Routing = model.RoutingPCR },
		"euclidean+prcc":  func(c *model.PRCapsConfig) { c.Routing = model.RoutingEuclidean },
		"caps only":       func(c *model.PRCapsConfig) { c.Routing, c.Classifier = model.RoutingEuclidean, model.ClassifierLinear },
		"pr only":         func(c *model.PRCapsConfig) { c.Routing = model.RoutingNone },
		"acr+linear":      func(c *model.PRCapsConfig) { c.Classifier = model.ClassifierLinear },
		"fixed curvature": func(c *model.PRCapsConfig) { c.FixedCurvature = true },
		"no gates":        func(c *model.PRCapsConfig) { c.NoC, c.NoA, c.NoR = true, true, true },
		"parents, detach": func(c *model.PRCapsConfig) { c.Coupling, c.DetachB = capsule.CouplingOverParents, true },
		"L=2, T=1, K=2":   func(c *model.PRCapsConfig) { c.Layers, c.Iters, c.K = 2, 1, 2 },
		"s=3 t=1 tanh":    func(c *model.PRCapsConfig) { c.S, c.T, c.Activation = 3, 1, manifold.ActTanh },
	}
	for _, k := range capsule.Kinds() {
		v["routing "+k.String()] = func(c *model.PRCapsConfig) { c.Routing = k }
	}
	return v
}

// Adding a routing variant takes capsule/ (its Kind, its name, its
// properties, its layer, its case in capsule.NewLayer) and, in model, the
// --routing help text alone: for every kind capsule knows, the help names
// it, the node network builds it with either classifier (and
// TestPRCapsNetVariantsStep trains it), sampled training accepts exactly
// the kinds over links, and the graph network builds it or says that it
// does not support it.
func TestEveryRoutingKindNeedsNoModelCode(t *testing.T) {
	cora, mutag := model.LoadEmbeddedCora(t), model.LoadEmbeddedMUTAG(t)
	var help string
	for _, o := range option.List(&model.PRCapsConfig{}) {
		if o.Name == "routing" {
			help = o.Usage
		}
	}
	for _, k := range capsule.Kinds() {
		if !strings.Contains(help, k.String()) {
			t.Errorf("--routing's help %q does not name %s", help, k)
		}
		for _, cl := range []model.Classifier{model.ClassifierPRCC, model.ClassifierLinear} {
			cfg := model.DefaultPRCapsConfig()
			cfg.Routing, cfg.Classifier = k, cl
			m, err := model.NewPRCapsNet(cfg, model.NodeShape(cora), 1)
			if err != nil {
				t.Fatalf("%s, %s: %v", k, cl, err)
			}
			if err := m.CheckBlocks(); (err == nil) != k.OverLinks() {
				t.Errorf("%s: sampled training: %v, want it %v", k, err, map[bool]string{true: "accepted", false: "refused"}[k.OverLinks()])
			}
		}
		cfg := model.DefaultPRCapsGraphConfig()
		cfg.Routing = k
		if _, err := model.NewPRCapsGraphNet(cfg, model.GraphShape(mutag), 1); err != nil && !strings.Contains(err.Error(), "routing "+k.String()) {
			t.Errorf("graph network, %s: %v", k, err)
		}
	}
}

// TestPRCapsNetVariantsStep builds every ablation variant on the embedded
// Cora and takes two training steps: the loss must be finite and every
// parameter gradient finite.
func TestPRCapsNetVariantsStep(t *testing.T) {
	ds := model.LoadEmbeddedCora(t)
	for name, edit := range prcapsVariants() {
		cfg := model.DefaultPRCapsConfig()
		edit(&cfg)
		m, err := model.NewPRCapsNet(cfg, model.NodeShape(ds), 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tc := train.Recipe(data.NodeTask, "prcapsnet")
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
	ds := model.LoadEmbeddedCora(t)
	cfg := model.DefaultPRCapsConfig()
	cfg.FixedCurvature = true
	m, err := model.NewPRCapsNet(cfg, model.NodeShape(ds), 1)
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
	tc := train.Recipe(data.NodeTask, "prcapsnet")
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
	ds := model.LoadEmbeddedCora(t)
	for _, edit := range []func(*model.PRCapsConfig){
		func(c *model.PRCapsConfig) { c.T = 0 },
		func(c *model.PRCapsConfig) { c.Routing = 9 },
		func(c *model.PRCapsConfig) { c.Classifier = 9 },
		func(c *model.PRCapsConfig) { c.Iters = -2 },
		func(c *model.PRCapsConfig) { c.Activation = 9 },
		func(c *model.PRCapsConfig) { c.Coupling = 9 },
		func(c *model.PRCapsConfig) { c.Stem = 9 },
		func(c *model.PRCapsConfig) { c.InputDropout = 1 },
		func(c *model.PRCapsConfig) { c.Dropout = -0.5 },
		func(c *model.PRCapsConfig) { c.RoutingInit = 9 },
		func(c *model.PRCapsConfig) { c.RoutingInit = model.InitTorchGraph }, // no graph-level layer here
	} {
		cfg := model.DefaultPRCapsConfig()
		edit(&cfg)
		if _, err := model.NewPRCapsNet(cfg, model.NodeShape(ds), 0); err == nil {
			t.Errorf("config %+v: no error", cfg)
		}
	}
}

func TestPRCapsNetStepAllocatesNothing(t *testing.T) {
	ds := model.LoadEmbeddedCora(t)
	cfg := model.DefaultPRCapsConfig()  // every stage, at a small width to keep the test quick
	cfg.Hidden, cfg.S, cfg.T = 16, 3, 2 // K = 4: the gate's assembly path
	m, err := model.NewPRCapsNet(cfg, model.NodeShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Recipe(data.NodeTask, "prcapsnet")
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
	ds := model.LoadEmbeddedCora(t)
	cfg := model.DefaultPRCapsConfig()
	if cfg.InputDropout != 0.5 || cfg.Dropout != 0.5 {
		t.Fatalf("node defaults: input dropout %v, dropout %v; want 0.5 and 0.5", cfg.InputDropout, cfg.Dropout)
	}
	pass := func(m model.NodeModel, training bool) []float32 {
		var tp autodiff.Tape[float32]
		tp.NoGrad = true
		return m.Forward(&tp, ds.Graph, ds.X, training, rand.New(rand.NewPCG(1, 2))).Value.Data
	}
	for _, tc := range []struct {
		input float64
		same  bool
	}{{0, true}, {0.5, false}} {
		cfg.Dropout, cfg.InputDropout = 0, tc.input
		m, err := model.NewPRCapsNet(cfg, model.NodeShape(ds), 0)
		if err != nil {
			t.Fatal(err)
		}
		if same := model.EqualWithin(pass(m, true), pass(m, false), 1e-6); same != tc.same {
			t.Errorf("input dropout %v: training pass equal to evaluation pass: %v, want %v", tc.input, same, tc.same)
		}
	}
}
