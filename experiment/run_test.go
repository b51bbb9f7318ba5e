package experiment

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/train"
)

func embedded(t *testing.T, name string) *data.Dataset {
	t.Helper()
	ds, err := data.Load(name, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// Run trains a registered model under the dataset's protocol with the
// model's defaults and recipe where its fields are zero.
func TestRunBothTasks(t *testing.T) {
	var runs, lines int
	p := countProgress{lines: &lines}
	node := Run{Model: "gcn", Dataset: embedded(t, "cora"), Node: train.NodeProtocol{Seeds: 2},
		Train: train.Config{Epochs: 3, LR: 0.01}, Observer: train.RunFunc(func(int, train.Result) { runs++ }), Progress: p}
	sum, err := node.Do()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Model != "gcn" || sum.Task != "node" || sum.Runs != 2 || runs != 2 || sum.Epochs != 3 || lines != 2 {
		t.Errorf("node run: %+v, %d finished runs observed, %d progress lines", sum, runs, lines)
	}
	if !strings.Contains(node.Describe(), "gcn on Cora (2708 nodes") {
		t.Errorf("Describe = %q", node.Describe())
	}
	graph := Run{Dataset: embedded(t, "mutag"), Graph: train.GraphProtocol{Folds: 5, OnlyFolds: 2}}
	if tc := graph.TrainConfig(); tc != train.Recipe(data.GraphTask, "prcapsnet") {
		t.Errorf("zero Train: %+v, want the prcapsnet graph recipe", tc)
	}
	graph.Train = train.Recipe(data.GraphTask, "prcapsnet")
	graph.Train.Epochs = 2
	sum, err = graph.Do()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Model != "prcapsnet" || sum.Task != "graph" || sum.Runs != 2 || sum.Params != 8700 {
		t.Errorf("graph run: %+v", sum)
	}
}

// A configuration the model rejects fails before any training.
func TestRunRejectsBadConfigFirst(t *testing.T) {
	cfg := model.DefaultPRCapsConfig()
	cfg.K = -1
	trained := false
	r := Run{Config: &cfg, Dataset: embedded(t, "cora"), Node: train.NodeProtocol{Seeds: 1},
		Observer: train.EpochFunc(func(int, train.Epoch) { trained = true })}
	if _, err := r.Do(); err == nil || trained {
		t.Errorf("bad config: error %v, trained %v", err, trained)
	}
	if _, err := (Run{Model: "nope", Dataset: embedded(t, "mutag")}).Do(); err == nil {
		t.Error("unknown graph model accepted")
	}
}

type countProgress struct{ lines *int }

func (p countProgress) Line(string, ...any)             { *p.lines++ }
func (p countProgress) Update(string, int, int, string) {}

// A run whose estimated memory exceeds the machine's is refused before
// training, with the estimate; the default run on Cora fits a small machine.
func TestRunMemoryCheck(t *testing.T) {
	cora := embedded(t, "cora")
	r := Run{Dataset: cora, Node: train.NodeProtocol{Seeds: 1}}
	if _, err := r.checkMemory(1 << 30); err != nil {
		t.Errorf("default PR-CapsNet on Cora in 1 GiB: %v", err)
	}
	cfg := model.DefaultPRCapsConfig()
	cfg.Hidden = 65536
	r.Config = &cfg
	_, err := r.checkMemory(8 << 30)
	if err == nil || !strings.Contains(err.Error(), "would need about") || !strings.Contains(err.Error(), "8.0 GiB") {
		t.Errorf("hidden 65536 on Cora in 8 GiB: %v", err)
	}
	if _, err := r.checkMemory(0); err != nil {
		t.Errorf("unknown machine size: %v", err)
	}
	g := Run{Dataset: embedded(t, "mutag"), Graph: train.GraphProtocol{Parallel: 2}}
	if _, err := g.checkMemory(1 << 30); err != nil {
		t.Errorf("graph network on MUTAG in 1 GiB: %v", err)
	}
	// Folds at once left to the default: one per core, as many as fit.
	auto := Run{Dataset: g.Dataset}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	need := model.DefaultPRCapsGraphConfig().EstimateBytes(model.GraphShape(g.Dataset.Graph), largestBatch(g.Dataset.Graph, auto.batchSize())) // the largest graphs
	for _, tc := range []struct {
		total int64
		want  int
	}{{1 << 30, 4}, {int64(float64(2*need) / 0.8), 2}, {need, 1}} {
		r, err := auto.checkMemory(tc.total)
		if tc.total == need {
			if err == nil {
				t.Errorf("auto folds in %d bytes (one fold needs %d): no error", tc.total, need)
			}
			continue
		}
		if err != nil || r.Graph.Parallel != tc.want {
			t.Errorf("auto folds in %d bytes (one fold needs %d): %d at once, %v; want %d", tc.total, need, r.Graph.Parallel, err, tc.want)
		}
	}
	// Node seeds left to the default likewise.
	nodeAuto := Run{Dataset: cora, Node: train.NodeProtocol{Seeds: 10}}
	if r, err := nodeAuto.checkMemory(1 << 30); err != nil || r.Node.Parallel != 4 {
		t.Errorf("auto seeds on Cora in 1 GiB: %d at once, %v; want 4", r.Node.Parallel, err)
	}
	// A graph job (the bench's pooled folds) is checked too.
	defer func(f func() int64) { machineMemory = f }(machineMemory)
	machineMemory = func() int64 { return 1 << 20 }
	if _, err := g.GraphJob(); err == nil || !strings.Contains(err.Error(), "would need about") {
		t.Errorf("graph job in 1 MiB: %v", err)
	}
}

// A graph job's seeded micro-batches follow the model's recipe unless
// MicroBatchSeeds says on or off; anything else is refused.
func TestGraphJobMicroBatchSeeds(t *testing.T) {
	mutag, err := data.Load("mutag", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model, seeds string
		want         bool
	}{
		{"prcapsnet", "", true}, {"prcapsnet", "off", false}, {"gat", "", false}, {"gat", "on", true}, {"gin", "", false},
	} {
		job, err := Run{Model: tc.model, Dataset: mutag, Graph: train.GraphProtocol{MicroBatchSeeds: tc.seeds}}.GraphJob()
		if seeded := job.Protocol.MicroBatchSeeds == "on"; err != nil || seeded != tc.want {
			t.Errorf("%s with %q: seeded %v, %v; want %v", tc.model, tc.seeds, seeded, err, tc.want)
		}
	}
	if _, err := (Run{Dataset: mutag, Graph: train.GraphProtocol{MicroBatchSeeds: "yes"}}).GraphJob(); err == nil || !strings.Contains(err.Error(), `micro-batch-seeds "yes"`) {
		t.Errorf("micro-batch-seeds yes: %v", err)
	}
}

// A run's records name its dataset, task, model and the protocol of the
// dataset's task.
func TestRunRecord(t *testing.T) {
	for _, name := range []string{"cora", "mutag"} {
		ds := embedded(t, name)
		r := Run{Dataset: ds, Model: "gcn"}
		want := r.Node.Name()
		if ds.Task == data.GraphTask {
			want = r.Graph.Name()
		}
		rec := r.Record(3, train.Result{TestAcc: 0.5})
		if rec.Dataset != ds.Name || rec.Task != ds.Task.String() || rec.Model != "gcn" || rec.Protocol != want || rec.Run != 3 || rec.TestAcc != 0.5 {
			t.Errorf("%s: record %+v, want protocol %q", name, rec, want)
		}
	}
	if n, g := (Run{}).Node.Name(), (Run{}).Graph.Name(); n == g {
		t.Fatalf("the node and graph protocols have one name, %q: the test cannot tell them apart", n)
	}
}

// A run's summary line says its unit (runs of seeds, or folds) and its
// failures.
func TestRunSummaryText(t *testing.T) {
	for _, tc := range []struct {
		name, unit string
	}{{"cora", "run"}, {"mutag", "fold"}} {
		r := Run{Dataset: embedded(t, tc.name), Model: "gcn"}
		if r.Unit() != tc.unit {
			t.Fatalf("%s: unit %q, want %q", tc.name, r.Unit(), tc.unit)
		}
		sum := record.Summary{Model: "gcn", Dataset: "D", Protocol: "P", Runs: 2, MeanAcc: 0.5, StdAcc: 0.25, Params: 7, SecondsPerRun: 1.5}
		want := "gcn on D, P: test accuracy 50.00 ± 25.00 % over 2 " + tc.unit + "(s); 7 parameters; 1.50 s per " + tc.unit
		if got := r.SummaryText(sum); got != want {
			t.Errorf("%s: %q, want %q", tc.name, got, want)
		}
		sum.Failed = []record.RunFailure{{Run: 1}}
		if got := r.SummaryText(sum); !strings.HasSuffix(got, "; 1 "+tc.unit+"(s) FAILED (see below)") {
			t.Errorf("%s with a failure: %q", tc.name, got)
		}
	}
}
