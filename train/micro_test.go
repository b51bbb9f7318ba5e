package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// seededRun trains the graph model name for a few epochs on a MUTAG fold
// with seeded micro-batches, at most cores of them at once, and returns
// its epoch records and final parameters.
func seededRun(t *testing.T, name string, cores int) ([]string, []float32, int) {
	t.Helper()
	ds, split := mutagFold(t)
	split.Val, split.Train = split.Train[:20], split.Train[20:]
	mc, err := model.DefaultConfig(data.GraphTask, name)
	if err != nil {
		t.Fatal(err)
	}
	builds := 0
	build := func() (model.GraphModel, error) { builds++; return model.NewGraph(name, mc, model.GraphShape(ds), 4) }
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Recipe(data.GraphTask, name)
	cfg.Epochs = 3
	var log []string
	hooks := graphHooks{cores: func() int { return cores }, replicate: build}
	progress := EpochFunc(func(_ int, e Epoch) {
		log = append(log, fmt.Sprintf("%d %x %x %x", e.Epoch, math.Float64bits(e.Loss), math.Float64bits(e.TrainAcc), math.Float64bits(e.ValAcc)))
	})
	sizes := graphBatching{size: 16, microNodes: 40, eval: defaultEvalBatch, seeded: true}
	res, err := runGraph(m, ds, split, cfg, sizes, 7, hooks, alone(progress), nil)
	if err != nil {
		t.Fatal(err)
	}
	log = append(log, fmt.Sprintf("test %x at %d", math.Float64bits(res.TestAcc), res.BestEpoch))
	var params []float32
	for _, g := range m.Groups() {
		for _, p := range g.Params {
			params = append(params, p.Value.Data...)
		}
	}
	return log, params, builds
}

// With seeded micro-batches a fold trains to the same bits however many
// micro-batches run at once: each draws from its own seed and the
// gradients add up in micro-batch order. Under -race this also checks
// that the helpers' models share nothing but the parameter values.
func TestSeededMicroBatchesMatchAcrossCores(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(n) })
	}
	for _, name := range []string{"prcapsnet", "gat", "ssgc", "mlp"} {
		t.Run(name, func(t *testing.T) {
			log1, p1, _ := seededRun(t, name, 1)
			for _, cores := range []int{2, 3} {
				log, p, builds := seededRun(t, name, cores)
				if builds != cores { // the fold's model and a helper's per further core
					t.Fatalf("%d at once: %d models built", cores, builds)
				}
				if !slices.Equal(log, log1) {
					t.Fatalf("%d at once:\n%v\none at a time:\n%v", cores, log, log1)
				}
				if !slices.Equal(p, p1) {
					t.Fatalf("%d at once: the final parameters differ from one at a time", cores)
				}
			}
		})
	}
}

// Seeded micro-batches still add up to the mini-batch's gradient: one
// graph per micro-batch gives the gradient of the whole batch, up to float32
// rounding (the pool network draws no dropout masks).
func TestSeededMicroBatchesAddUpToTheBatch(t *testing.T) {
	ds, _ := mutagFold(t)
	idx := make([]int32, 16)
	for i := range idx {
		idx[i] = int32(11 * i)
	}
	cfg := Config{Epochs: 1, LR: 0.01, Optimizer: "adam"}
	grads := func(microNodes int, seeded bool) (float64, int, []float32) {
		m := newPoolNet(ds.NumFeatures, ds.NumClasses)
		sizes := graphBatching{size: 16, microNodes: microNodes, eval: 16, seeded: seeded}
		tr, err := newGraphTrainer(m, ds, data.Split{Train: idx, Val: idx}, cfg, sizes, 0)
		if err != nil {
			t.Fatal(err)
		}
		loss, correct, err := tr.gradients(1, idx)
		if err != nil {
			t.Fatal(err)
		}
		return loss, correct, append(slices.Clone(m.w.Grad.Data), m.b.Grad.Data...)
	}
	wl, wc, whole := grads(1<<20, false)
	sl, sc, single := grads(1, true)
	if math.Abs(wl-sl) > 1e-6*wl || wc != sc {
		t.Fatalf("loss %v and %d correct in one batch, %v and %d graph by graph", wl, wc, sl, sc)
	}
	scale := 0.0
	for _, g := range whole {
		scale = max(scale, math.Abs(float64(g)))
	}
	for j, g := range whole {
		if d := math.Abs(float64(g - single[j])); d > 1e-5*scale {
			t.Fatalf("grad[%d] = %v in one batch, %v graph by graph", j, g, single[j])
		}
	}
}

// A warm step with seeded micro-batches and a helper allocates nothing,
// like the plain step (GraphStepAllocs).
func TestSeededMicroBatchesStepAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on channel operations")
	}
	if n := runtime.GOMAXPROCS(0); n < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(n) })
	}
	ds, _ := mutagFold(t)
	idx := make([]int32, 16)
	for i := range idx {
		idx[i] = int32(11 * i)
	}
	mc, err := model.DefaultConfig(data.GraphTask, "prcapsnet")
	if err != nil {
		t.Fatal(err)
	}
	build := func() (model.GraphModel, error) { return model.NewGraph("prcapsnet", mc, model.GraphShape(ds), 1) }
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	sizes := graphBatching{size: 16, microNodes: 64, eval: 8, seeded: true}
	tr, err := newGraphTrainer(m, ds, data.Split{Train: idx, Val: idx}, Recipe(data.GraphTask, "prcapsnet"), sizes, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr.micro.cores, tr.micro.replicate = func() int { return 2 }, build
	defer tr.micro.close()
	epoch := func() {
		if _, _, err := tr.step(1, idx); err != nil {
			t.Fatal(err)
		}
		if _, _, err := tr.evaluate(idx, true); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 {
		epoch()
	}
	if len(tr.micro.helpers) != 1 {
		t.Fatalf("%d helpers, want 1", len(tr.micro.helpers))
	}
	// Which goroutine takes which piece depends on timing, and a tape grows
	// its buffers the first time it sees a larger piece: so that the count
	// below sees the steady state, the helper's passes (its goroutine waits
	// for work meanwhile) take every piece once here, and the trainer's too.
	h, mb, ev := tr.micro.helpers[0], &tr.micro, &tr.evalWork
	mb.next.Store(0)
	mb.take(ds, &h.graphPass, h.params, &h.pcg, h.rng)
	ev.next.Store(0)
	ev.take(ds, &h.graphPass, &h.eval, h.rng)
	mb.next.Store(0)
	mb.take(ds, &tr.graphPass, tr.params, &mb.pcg, mb.rng)
	ev.next.Store(0)
	ev.take(ds, &tr.graphPass, &tr.eval, tr.rng)
	if a := testing.AllocsPerRun(20, epoch); a > 0.5 {
		t.Fatalf("%v allocations per step and evaluation", a)
	}
}

// panicNet is a poolNet whose helper copies panic in their forward pass,
// after closing started.
type panicNet struct {
	*poolNet
	started chan struct{}
	once    *sync.Once
}

func (m panicNet) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	m.once.Do(func() { close(m.started) })
	panic("helper forward")
}

// waitNet is a poolNet whose first forward pass waits until a helper has
// started one (started closes), so that the helper surely takes a piece.
type waitNet struct {
	*poolNet
	started chan struct{}
}

func (m waitNet) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	select {
	case <-m.started:
	case <-time.After(10 * time.Second):
		panic("no helper started a piece in 10 s")
	}
	return m.poolNet.Forward(t, b, training, rng)
}

// A helper's panic is the fold's error, not a crash of the process; a
// helper that does not match the fold's model is an error before any piece
// runs.
func TestSeededMicroBatchesHelperFailures(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(n) })
	}
	ds, split := mutagFold(t)
	split.Val, split.Train = split.Train[:20], split.Train[20:]
	cfg := Config{Epochs: 2, LR: 0.01, Optimizer: "adam"}
	sizes := graphBatching{size: 16, microNodes: 40, eval: defaultEvalBatch, seeded: true}
	started := make(chan struct{})
	for _, tc := range []struct {
		name      string
		replicate func() (model.GraphModel, error)
		want      string
	}{
		{"panic", func() (model.GraphModel, error) {
			return panicNet{newPoolNet(ds.NumFeatures, ds.NumClasses), started, new(sync.Once)}, nil
		}, "micro-batch helper: panic: helper forward"},
		{"shape", func() (model.GraphModel, error) { return newPoolNet(ds.NumFeatures+1, ds.NumClasses), nil }, `parameter "w" is 8×2, the model's 7×2`},
		{"build", func() (model.GraphModel, error) { return nil, fmt.Errorf("no memory") }, "micro-batch helper: no memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hooks := graphHooks{cores: func() int { return 2 }, replicate: tc.replicate}
			m := model.GraphModel(newPoolNet(ds.NumFeatures, ds.NumClasses))
			if tc.name == "panic" {
				m = waitNet{m.(*poolNet), started}
			}
			_, err := runGraph(m, ds, split, cfg, sizes, 1, hooks, nil, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}
