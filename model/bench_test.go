package model

import (
	"fmt"
	"testing"

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
		cfg := DefaultGCNConfig()
		cfg.Hidden = hidden
		m, err := NewGCN(ds.Node, cfg, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := train.RunNode(m, ds.Node, split, train.DefaultConfig(), 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPRCapsGraphMUTAGRun times the first fold of the graph protocol
// (train.RunGraphProtocol) on the embedded MUTAG with DefaultGraphConfig
// (100 epochs, batch 16, the validation graphs scored every epoch and the
// test graphs at improving ones): ten of these are the MUTAG row of the
// paper's Table 2.
func BenchmarkPRCapsGraphMUTAGRun(b *testing.B) {
	ds, err := data.Load("mutag", data.Options{})
	if err != nil {
		b.Fatal(err)
	}
	cfg, tcfg, err := DefaultGraphConfig("prcapsnet")
	if err != nil {
		b.Fatal(err)
	}
	build := func(seed uint64) (train.GraphModel, error) { return NewPRCapsGraphNet(ds.Graph, cfg, seed) }
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := train.RunGraphProtocol(ds.Graph, build, train.GraphProtocol{OnlyFolds: 1}, tcfg, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
