package experiment

import (
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// Every graph model goes through the memory check of a run and of a
// bench's graph job, with the sizes of its configuration: at their
// defaults MUTAG fits 1 GiB; at the widths of the issue it is refused.
func TestGraphModelsMemoryCheck(t *testing.T) {
	mutag := embedded(t, "mutag")
	wide := map[string]func(model.Config){
		"prcapsnet": func(c model.Config) { c.(*model.PRCapsConfig).Hidden = 65536 },
		"gin":       func(c model.Config) { g := c.(*model.GINConfig); g.Hidden, g.Layers = 65536, 32 },
		"mlp":       func(c model.Config) { c.(*model.MLPConfig).Hidden = 65536 },
		"dgcnn": func(c model.Config) {
			d := c.(*model.DGCNNGraphConfig)
			d.Conv1, d.Conv2, d.Dense = 65536, 65536, 65536
		},
		"gat":      func(c model.Config) { g := c.(*model.GATGraphConfig); g.Hidden, g.Heads = 8192, 8 },
		"gatv2":    func(c model.Config) { g := c.(*model.GATGraphConfig); g.Hidden, g.Heads = 8192, 8 },
		"ssgc":     func(c model.Config) { c.(*model.SSGCGraphConfig).Hidden = 65536 },
		"graphgps": func(c model.Config) { c.(*model.GraphGPSConfig).Hidden = 65536 },
		"grdl":     func(c model.Config) { c.(*model.GRDLConfig).Hidden = 65536 },
		"gratin":   func(c model.Config) { c.(*model.GRATINConfig).Hidden = 65536 },
	}
	for _, name := range model.Names(data.GraphTask) {
		set, ok := wide[name]
		if !ok {
			t.Errorf("graph model %s: no wide setting in this test", name)
			continue
		}
		r := Run{Model: name, Dataset: mutag, Graph: train.GraphProtocol{Parallel: 1}}
		if _, err := r.checkMemory(1 << 30); err != nil {
			t.Errorf("%s on MUTAG in 1 GiB: %v", name, err)
		}
		cfg, err := model.DefaultConfig(data.GraphTask, name)
		if err != nil {
			t.Fatal(err)
		}
		set(cfg)
		r.Config = cfg
		if _, err := r.checkMemory(1 << 30); err == nil || !strings.Contains(err.Error(), "would need about") {
			t.Errorf("%s at its widest on MUTAG in 1 GiB: %v", name, err)
		}
	}
}

// A graph run's largest mini-batch is its largest graphs, as many as the
// batch holds or the dataset has.
func TestLargestBatch(t *testing.T) {
	g := embedded(t, "mutag").Graph
	total, most := 0, 0
	for _, s := range g.Graphs {
		total, most = total+s.Graph.N, max(most, s.Graph.N)
	}
	if s := largestBatch(g, 1); s.Graphs != 1 || s.Nodes != most {
		t.Errorf("batch 1: %+v, want the largest graph's %d nodes", s, most)
	}
	if s := largestBatch(g, 1<<20); s.Graphs != len(g.Graphs) || s.Nodes != total {
		t.Errorf("batch 2^20: %+v, want all %d graphs, %d nodes", s, len(g.Graphs), total)
	}
}
