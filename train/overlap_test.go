package train

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/tensor"
)

// overlapGraph returns a small generated graph, which takes the overlapped
// path, and a split of it, with GOMAXPROCS at least 2 for the test.
func overlapGraph(t *testing.T) (*data.NodeDataset, data.Split) {
	if n := runtime.GOMAXPROCS(0); n < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(n) })
	}
	sbm, err := data.GenerateSBM(data.SBMConfig{Edges: 600, Nodes: 80, Features: 40, NNZ: 4, Classes: 3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ds := sbm.Node
	if !overlapEval(ds) {
		t.Fatal("the test graph does not take the overlapped path")
	}
	return ds, data.RandomSplit(ds.Y, 1, 0.6, 0.2)
}

// Every node model trains to the same bits whether its evaluation passes
// run after each step or beside the next one (overlapEval): the two
// passes read the parameters only, and the evaluation draws no random
// numbers. Run with -race, this also checks that no model writes shared
// state in a forward pass.
func TestOverlappedEvaluationMatchesSequential(t *testing.T) {
	ds, split := overlapGraph(t)
	run := func(name string, edit func(*model.PRCapsConfig), overlap bool) ([]string, Result) {
		mc, err := model.DefaultConfig(data.NodeTask, name)
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(mc.(*model.PRCapsConfig))
		}
		m, err := model.NewNode(name, mc, model.NodeShape(ds), 5)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Recipe(data.NodeTask, name)
		cfg.Epochs, cfg.Patience = 6, 0
		if !overlap {
			defer tensor.OccupyAll()() // no free core: evaluation after each step
		}
		if got := overlapEval(ds); got != overlap {
			t.Fatalf("overlapEval = %v, want %v", got, overlap)
		}
		var log []string
		res, err := RunNode(m, ds, split, cfg, 9, EpochFunc(func(_ int, e Epoch) {
			log = append(log, fmt.Sprintf("%d %x %x %x %x %v %x", e.Epoch, e.Loss, e.TrainAcc, e.ValAcc, e.TestAcc, e.Best, e.LR))
		}))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res.Seconds = 0
		return log, res
	}
	type variant struct {
		model, name string
		edit        func(*model.PRCapsConfig)
	}
	var variants []variant
	for _, name := range model.Names(data.NodeTask) {
		variants = append(variants, variant{name, name, nil})
	}
	// The node network's other layers: Euclidean routing, tangent GCN,
	// the linear classifiers, coupling over parents, two routing layers.
	for name, edit := range map[string]func(*model.PRCapsConfig){
		"euclidean":    func(c *model.PRCapsConfig) { c.Routing = model.RoutingEuclidean },
		"caps only":    func(c *model.PRCapsConfig) { c.Routing, c.Classifier = model.RoutingEuclidean, model.ClassifierLinear },
		"pr only":      func(c *model.PRCapsConfig) { c.Routing = model.RoutingNone },
		"acr+linear":   func(c *model.PRCapsConfig) { c.Classifier = model.ClassifierLinear },
		"parents, L=2": func(c *model.PRCapsConfig) { c.Coupling, c.Layers = capsule.CouplingOverParents, 2 },
	} {
		variants = append(variants, variant{"prcapsnet", "prcapsnet " + name, edit})
	}
	for _, v := range variants {
		name := v.name
		seqLog, seq := run(v.model, v.edit, false)
		ovLog, ov := run(v.model, v.edit, true)
		if seq != ov {
			t.Errorf("%s: sequential %+v, overlapped %+v", name, seq, ov)
		}
		for i := range seqLog {
			if i >= len(ovLog) || seqLog[i] != ovLog[i] {
				t.Errorf("%s: epoch records differ:\n%v\n%v", name, seqLog, ovLog)
				break
			}
		}
	}
}

// Patience ends an overlapped run at the same epoch as a sequential one,
// with the parameters of that epoch (the next step's gradients dropped).
func TestOverlappedEvaluationPatience(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	ds := blobs(60)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.Patience = 50, 3
	run := func(overlap bool) (Result, []float32) {
		if !overlap {
			defer tensor.OccupyAll()()
		}
		m := newLinear(ds)
		m.frozen = true
		r, err := RunNode(m, ds, data.RandomSplit(ds.Y, 2, 0.6, 0.2), cfg, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Seconds = 0
		return r, append(append([]float32(nil), m.w.Value.Data...), m.b.Value.Data...)
	}
	a, pa := run(false)
	b, pb := run(true)
	if a != b || fmt.Sprint(pa) != fmt.Sprint(pb) {
		t.Errorf("sequential %+v %v, overlapped %+v %v", a, pa, b, pb)
	}
	if a.Epochs != 4 {
		t.Errorf("stopped after %d epochs, want 4", a.Epochs)
	}
}

// The overlapped path allocates nothing per epoch once warm: 200 more
// epochs cost no more allocations than the runtime makes on its own now and
// then (the channels to the evaluation goroutine carry values, and its tape
// reuses its buffers). On a loaded machine (the rest of go test ./... beside
// it) those came to 22 once, so the bound is 100: an allocation in every
// epoch, or every other, still fails.
func TestOverlappedEvaluationAllocatesNothing(t *testing.T) {
	ds, split := overlapGraph(t)
	mallocs := func(epochs int) uint64 {
		mc, err := model.DefaultConfig(data.NodeTask, "prcapsnet")
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.NewNode("prcapsnet", mc, model.NodeShape(ds), 5)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Recipe(data.NodeTask, "prcapsnet")
		cfg.Epochs = epochs
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := RunNode(m, ds, split, cfg, 9, nil); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	short, long := mallocs(20), mallocs(220)
	if long > short+100 {
		t.Errorf("20 epochs allocate %d times, 220 epochs %d: the steady state allocates", short, long)
	}
}
