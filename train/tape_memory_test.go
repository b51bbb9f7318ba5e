package train

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// The memory estimate of every model (model.EstimateBytes, which the
// memory checks of experiment.Run, the bench and inference trust) is
// checked here against what a real training step holds: the tape's values
// and gradients (autodiff.Tape.Bytes) after two training steps and an
// evaluation pass, plus the parameters four times (value, gradient and
// Adam's two moments). The estimate must cover that and be less than
// estimateSlack times it. The ops' own buffers (attention blocks, kernel
// distances, propagation scratch) are in the estimate but not in the
// tape's count: they are the headroom.
const estimateSlack = 10

// heapShare is the least share of the live heap a training step took
// (model, optimiser, tapes, the ops' buffers and the operators, after a
// collection) that an estimate must reach: the node PR-CapsNet's,
// calibrated on the peak resident memory of large graphs, where it is
// tighter, takes 0.79 of Cora's.
const heapShare = 0.75

// paramValues is the number of values of m's groups, buffers included.
func paramValues(m model.Model) int64 {
	n := int64(0)
	for _, p := range model.Params(m) {
		n += int64(p.Value.Len())
	}
	return n
}

// liveHeap is the bytes of live heap objects, after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// checkEstimate compares est with the bytes measured for what: the tapes
// and parameters (tape), and the live heap the model and its training
// took (heap: the operators, the ops' buffers and caches too), whichever
// is more.
func checkEstimate(t *testing.T, what string, est, tape, heap int64) {
	t.Helper()
	measured := max(tape, heap)
	ratio := float64(est) / float64(measured)
	t.Logf("%-28s estimate %10d bytes, tape and parameters %10d (%.2f×), live heap %10d (%.2f×)",
		what, est, tape, float64(est)/float64(tape), heap, float64(est)/float64(heap))
	if est < tape || float64(est) < heapShare*float64(heap) || ratio > estimateSlack {
		t.Errorf("%s: the memory estimate %d is not within [1, %d] times the %d bytes of the tapes and parameters, or below %.2f of the live heap %d",
			what, est, estimateSlack, tape, heapShare, heap)
	}
}

// TestNodeTapeMemory checks every node model's estimate on Cora (and
// node PR-CapsNet's on Coauthor CS too when $PRCAPS_DATA has it):
//
//	PRCAPS_DATA=../shared/data go test ./train -run NodeTapeMemory -v
func TestNodeTapeMemory(t *testing.T) {
	root := os.Getenv(data.EnvVar)
	cora, err := data.Load("cora", data.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	type job struct {
		ds   *data.NodeDataset
		name string
	}
	var jobs []job
	for _, name := range model.Names(data.NodeTask) {
		jobs = append(jobs, job{cora.Node, name})
	}
	if root != "" {
		if _, err := os.Stat(filepath.Join(root, "coauthor")); err == nil {
			cs, err := data.Load("cs", data.Options{Root: root})
			if err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, job{cs.Node, "prcapsnet"})
		}
	}
	for _, j := range jobs {
		nd := j.ds
		cfg, err := model.DefaultConfig(data.NodeTask, j.name)
		if err != nil {
			t.Fatal(err)
		}
		base := liveHeap()
		m, err := model.NewNode(j.name, cfg, model.NodeShape(nd), 0)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := newNodeTrainer(m, nd, data.RandomSplit(nd.Y, 0, 0.6, 0.2), Recipe(data.NodeTask, j.name), 0)
		if err != nil {
			t.Fatal(err)
		}
		for e := 1; e <= 2; e++ {
			if _, err := tr.step(e); err != nil {
				t.Fatal(err)
			}
			var ep Epoch
			tr.evaluate(&ep)
		}
		tv, tg := tr.tape.Bytes()
		est, err := model.EstimateBytes(cfg, model.NodeShape(nd), model.Size{Nodes: nd.Graph.N, Arcs: nd.Graph.NumArcs()})
		if err != nil {
			t.Fatal(err)
		}
		heap := liveHeap() - base
		checkEstimate(t, j.name+" on "+nd.Name, est, tv+tg+16*paramValues(m), heap)
		runtime.KeepAlive(tr)
	}
}

// TestGraphTapeMemory checks every graph model's estimate on mini-batches
// of MUTAG, in one pass each (no micro-batches), at the default sizes and
// at wider ones (graphWide).
func TestGraphTapeMemory(t *testing.T) {
	d, err := data.Load("mutag", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds := d.Graph
	for _, name := range model.Names(data.GraphTask) {
		for _, wide := range []bool{false, true} {
			for _, batch := range []int{8, 64} {
				cfg, err := model.DefaultConfig(data.GraphTask, name)
				if err != nil {
					t.Fatal(err)
				}
				label := name
				if wide {
					label += " wide"
					graphWide(t, cfg)
				}
				if r, ok := cfg.(model.GraphResolver); ok {
					r.ResolveGraphs(ds)
				}
				label += " batch " + string(rune('0'+batch/10)) + string(rune('0'+batch%10))
				est, tape, heap := graphStepMemory(t, name, cfg, ds, batch)
				checkEstimate(t, label, est, tape, heap)
			}
		}
	}
}

// graphWide sets cfg's widths to 4 times their default (the dense head
// of DGCNN, the hidden widths of the others).
func graphWide(t *testing.T, cfg model.Config) {
	t.Helper()
	switch c := cfg.(type) {
	case *model.PRCapsConfig:
		c.Hidden *= 4
	case *model.GINConfig:
		c.Hidden *= 4
	case *model.MLPConfig:
		c.Hidden *= 4
	case *model.DGCNNGraphConfig:
		c.Conv1, c.Conv2, c.Dense = 4*c.Conv1, 4*c.Conv2, 4*c.Dense
	case *model.GATGraphConfig:
		c.Hidden *= 4
	case *model.SSGCGraphConfig:
		c.Hidden *= 4
	case *model.GraphGPSConfig:
		c.Hidden *= 4
	case *model.GRDLConfig:
		c.Hidden *= 4
	case *model.GRATINConfig:
		c.Hidden *= 4
	default:
		t.Fatalf("no wide setting for a %T", cfg)
	}
}

// graphStepMemory runs two training steps and an evaluation pass of the
// graph model name with cfg on the first batch graphs of ds, in one pass
// each, and returns the estimate and the bytes measured (see
// checkEstimate).
func graphStepMemory(t *testing.T, name string, cfg model.Config, ds *data.GraphDataset, batch int) (est, tape, heap int64) {
	t.Helper()
	shape := model.GraphShape(ds)
	base := liveHeap()
	m, err := model.NewGraph(name, cfg, shape, 0)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int32, batch)
	size := model.Size{Graphs: batch}
	for i := range idx {
		idx[i] = int32(i)
		size.Nodes += ds.Graphs[i].Graph.N
		size.Arcs += ds.Graphs[i].Graph.NumArcs()
	}
	split := data.Split{Train: idx, Val: idx[:1], Test: idx[:1]}
	sizes := graphBatching{size: batch, microNodes: math.MaxInt, eval: batch}
	tr, err := newGraphTrainer(m, ds, split, Recipe(data.GraphTask, name), sizes, 0)
	if err != nil {
		t.Fatal(err)
	}
	for e := 1; e <= 2; e++ {
		if _, _, err := tr.step(e, idx); err != nil {
			t.Fatal(err)
		}
	}
	eval := graphPass{m: m}
	eval.tape.NoGrad = true
	if err := eval.load(ds, idx); err != nil {
		t.Fatal(err)
	}
	m.Forward(&eval.tape, &eval.batch, false, rand.New(rand.NewPCG(0, 0)))
	heap = liveHeap() - base
	tv, tg := tr.tape.Bytes()
	ev, _ := eval.tape.Bytes()
	runtime.KeepAlive(tr)
	runtime.KeepAlive(&eval)
	est, err = model.EstimateBytes(cfg, shape, size)
	if err != nil {
		t.Fatal(err)
	}
	return est, tv + tg + ev + 16*paramValues(m), heap
}
