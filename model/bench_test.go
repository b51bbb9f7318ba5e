package model_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/model"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/train"
)

// BenchmarkGCNCoraRun times a whole 200-epoch GCN run on Cora (random split,
// evaluation every epoch): the speed target is 0.5 s on 2 cores.
func BenchmarkGCNCoraRun(b *testing.B) {
	for _, hidden := range []int{16, 64} {
		b.Run(fmt.Sprintf("hidden%d", hidden), func(b *testing.B) { benchGCNCoraRun(b, hidden) })
	}
}

func benchGCNCoraRun(b *testing.B, hidden int) {
	ds, err := data.Load("cora", data.Options{})
	if err != nil {
		b.Fatal(err)
	}
	split := data.RandomSplit(ds.Node.Y, 0, 0.6, 0.2)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cfg := model.DefaultGCNConfig()
		cfg.Hidden = hidden
		m, err := model.NewGCN(cfg, model.NodeShape(ds.Node), 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := train.RunNode(m, ds.Node, split, train.DefaultConfig(), 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPRCapsGraphMUTAGRun times the first fold of the graph protocol
// (train.RunGraphProtocol) on the embedded MUTAG with the default configuration and recipe
// (100 epochs, batch 16, the validation graphs scored every epoch and the
// test graphs once, from the selected epoch's parameters): ten of these are the MUTAG row of the
// paper's Table 2.
func BenchmarkPRCapsGraphMUTAGRun(b *testing.B) {
	ds, err := data.Load("mutag", data.Options{})
	if err != nil {
		b.Fatal(err)
	}
	cfg, tcfg := model.DefaultPRCapsGraphConfig(), train.Recipe(data.GraphTask, "prcapsnet")
	build := func(seed uint64) (model.GraphModel, error) {
		return model.NewPRCapsGraphNet(cfg, model.GraphShape(ds.Graph), seed)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := train.RunGraphProtocol(ds.Graph, build, train.GraphProtocol{OnlyFolds: 1}, tcfg, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPRCapsGraphPass times one training pass (forward, loss,
// backward) of the graph network on the 1, 8 and 32 smallest MUTAG graphs
// at once. The cost is about linear in the nodes, with a small fixed part
// per pass (its 97 tape nodes): the fixed cost is what micro-batches of
// more graphs would save, the per-node cost what kernels and fusion must.
func BenchmarkPRCapsGraphPass(b *testing.B) {
	ds, err := data.Load("mutag", data.Options{})
	if err != nil {
		b.Fatal(err)
	}
	g := ds.Graph
	idx := make([]int32, len(g.Graphs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(x, y int32) int { return g.Graphs[x].Graph.N - g.Graphs[y].Graph.N })
	cfg := model.DefaultPRCapsGraphConfig()
	for _, graphs := range []int{1, 8, 32} {
		m, err := model.NewPRCapsGraphNet(cfg, model.GraphShape(g), 1)
		if err != nil {
			b.Fatal(err)
		}
		var batch data.GraphBatch
		if err := batch.Build(g, idx[:graphs]); err != nil {
			b.Fatal(err)
		}
		var labels autodiff.Labels
		if err := labels.Set(batch.Y, g.NumClasses); err != nil {
			b.Fatal(err)
		}
		rows := make([]int32, graphs)
		for i := range rows {
			rows[i] = int32(i)
		}
		var tape autodiff.Tape[float32]
		tape.ReleaseGrads = true
		rng := rand.New(rand.NewPCG(1, 1))
		b.Run(fmt.Sprintf("graphs=%d/nodes=%d", graphs, batch.N), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				tape.Reset()
				loss := autodiff.SoftmaxCrossEntropy(&tape, m.Forward(&tape, &batch, true, rng), labels, rows)
				if err := tape.Backward(loss); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(tape.Len()), "tape-nodes")
		})
	}
}
