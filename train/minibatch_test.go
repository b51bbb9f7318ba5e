package train

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/sample"
)

func sampledTask(t *testing.T) (*data.NodeDataset, data.Split) {
	t.Helper()
	sbm, err := data.GenerateSBM(data.SBMConfig{Edges: 3000, Nodes: 400, Features: 40, NNZ: 5, Classes: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return sbm.Node, data.RandomSplit(sbm.Node.Y, 1, 0.6, 0.2)
}

func buildNode(t *testing.T, name string, ds *data.NodeDataset, seed uint64) model.NodeModel {
	t.Helper()
	mc, err := model.DefaultConfig(data.NodeTask, name)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := mc.(*model.TGNNConfig); ok {
		c.Hidden = 32 // of 512: the test's graph is small, and the suite must stay fast
	}
	m, err := model.NewNode(name, mc, model.NodeShape(ds), seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Each block model learns a small generated task from sampled mini-batches
// (well above the 1/3 of chance), the same bits whatever the core count,
// and its epochs take one step per batch.
func TestSampledLearns(t *testing.T) {
	ds, split := sampledTask(t)
	for _, name := range []string{"prcapsnet", "gcn", "gat", "gatv2", "tgnn"} {
		t.Run(name, func(t *testing.T) {
			cfg := Recipe(data.NodeTask, name)
			cfg.Epochs = 30
			smp := Sampling{Fanout: sample.Fanouts{5, 3}, BatchNodes: 64}
			if name == "tgnn" { // three layers
				smp.Fanout = sample.Fanouts{5, 3, 3}
			}
			run := func(procs int) (Result, []Epoch) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				var eps []Epoch
				r, err := RunNodeSampled(buildNode(t, name, ds, 2), ds, split, cfg, smp, 2, EpochFunc(func(_ int, e Epoch) { eps = append(eps, e) }))
				if err != nil {
					t.Fatal(err)
				}
				return r, eps
			}
			r1, eps := run(1)
			t.Logf("test %.3f, validation %.3f, epoch %d", r1.TestAcc, r1.ValAcc, r1.BestEpoch)
			r2, _ := run(2)
			if r1.TestAcc != r2.TestAcc || r1.BestEpoch != r2.BestEpoch || r1.ValLoss != r2.ValLoss {
				t.Fatalf("GOMAXPROCS 1: %+v; 2: %+v", r1, r2)
			}
			if r1.TestAcc < 0.7 || r1.ValAcc < 0.7 {
				t.Fatalf("accuracy %.3f (validation %.3f) after %d sampled epochs", r1.TestAcc, r1.ValAcc, cfg.Epochs)
			}
			if len(eps) != cfg.Epochs || eps[len(eps)-1].Loss >= eps[0].Loss {
				t.Fatalf("%d epochs, loss %.3f → %.3f", len(eps), eps[0].Loss, eps[len(eps)-1].Loss)
			}
		})
	}
}

// A run that stops early (patience) or fails leaves no sampling goroutine
// behind.
func TestSampledEarlyStopNoLeak(t *testing.T) {
	ds, split := sampledTask(t)
	cfg := Recipe(data.NodeTask, "gcn")
	// A first short run starts what lives for the whole process (the
	// kernels' worker pool), so that the count below sees only what a
	// run leaves behind: run alone, the test otherwise counted the pool.
	warm := cfg
	warm.Epochs = 1
	if _, err := RunNodeSampled(buildNode(t, "gcn", ds, 1), ds, split, warm, Sampling{Fanout: sample.Fanouts{3, 3}, BatchNodes: 16}, 1, nil); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	cfg.Epochs, cfg.Patience = 1000, 2
	r, err := RunNodeSampled(buildNode(t, "gcn", ds, 1), ds, split, cfg, Sampling{Fanout: sample.Fanouts{3, 3}, BatchNodes: 16}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Epochs >= cfg.Epochs {
		t.Fatalf("patience 2 ran all %d epochs", r.Epochs)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the run, %d before", n, before)
	}
}

func TestSampledRejects(t *testing.T) {
	ds, split := sampledTask(t)
	cfg := Recipe(data.NodeTask, "gcn")
	cfg.Epochs = 1
	for _, tc := range []struct {
		model string
		smp   Sampling
		want  string
	}{
		{"gcn", Sampling{BatchNodes: 10}, "fan-outs"},
		{"gcn", Sampling{Fanout: sample.Fanouts{2, 2}}, "batch-nodes"},
		{"gcn", Sampling{Fanout: sample.Fanouts{2}, BatchNodes: 10}, "needs 2 fan-outs"},
		{"gcn", Sampling{Fanout: sample.Fanouts{0, 2}, BatchNodes: 10}, "fan-out 0"},
		{"sgc", Sampling{Fanout: sample.Fanouts{2}, BatchNodes: 10}, "does not train on sampled"},
		{"gcn", Sampling{}, "needs a sampling configuration"},
	} {
		_, err := RunNodeSampled(buildNode(t, tc.model, ds, 1), ds, split, cfg, tc.smp, 1, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: error %v, want one saying %q", tc.model, tc.smp, err, tc.want)
		}
	}
	// A test node's label past the classes is refused before the first
	// step, though the evaluation reads the labels only later.
	bad := *ds
	bad.Y = slices.Clone(ds.Y)
	bad.Y[split.Test[0]] = int32(ds.NumClasses)
	smp := Sampling{Fanout: sample.Fanouts{2, 2}, BatchNodes: 10}
	if _, err := RunNodeSampled(buildNode(t, "gcn", &bad, 1), &bad, split, cfg, smp, 1, nil); err == nil || !strings.Contains(err.Error(), "has label") {
		t.Errorf("a label past the classes: error %v, want one naming the label", err)
	}
}
