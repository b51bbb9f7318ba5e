package experiment

import (
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/sample"
	"github.com/prcaps/prcaps/train"
)

// The sampled scale suite times mini-batch steps on two small generated
// graphs and splits the memory between the graph and training.
func TestRunScaleSampled(t *testing.T) {
	b, err := NewBench(Options{Sampling: train.Sampling{Fanout: sample.Fanouts{5, 3}, BatchNodes: 32}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []scaleSampledRecord
	b.Record = func(v any) error { recs = append(recs, v.(scaleSampledRecord)); return nil }
	var tab *report.Table
	b.Emit = func(x *report.Table) error { tab = x; return nil }
	if err := b.RunScale([]int{6000, 3000}); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Edges > recs[1].Edges || len(tab.Rows) != 2 {
		t.Fatalf("records %+v, %d rows: want two, smallest first", recs, len(tab.Rows))
	}
	for _, r := range recs {
		if r.Error != "" || r.StepSecs <= 0 || r.NsPerSeed <= 0 || r.CPUNsPerSeed <= 0 || r.GraphBytes <= 0 || r.Fanout != "5,3" || r.BatchNodes != 32 || r.EvalSecs <= 0 {
			t.Errorf("record %+v: want a timed run", r)
		}
	}
	if md := tab.Markdown(); !strings.Contains(md, "Time per seed node varies by") {
		t.Errorf("table lacks the per-seed spread:\n%s", md)
	}
	if _, err := NewBench(Options{Sampling: train.Sampling{BatchNodes: 32}}, nil); err == nil {
		t.Error("batch nodes without fan-outs accepted")
	}
}

// A sampled run's memory check bounds the batch's neighbourhood, not the
// graph: a graph whose full batch would not fit still runs sampled.
func TestCheckMemorySampled(t *testing.T) {
	ds, err := data.GenerateSBM(data.SBMConfig{Edges: 200_000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	full := Run{Model: "prcapsnet", Dataset: ds, Node: train.NodeProtocol{Seeds: 1, Parallel: 1}}
	mc, _ := model.DefaultConfig(data.NodeTask, "prcapsnet")
	size := model.Size{Nodes: ds.Node.Graph.N, Arcs: ds.Node.Graph.NumArcs()}
	need, err := model.EstimateBytes(mc, model.NodeShape(ds.Node), size)
	if err != nil {
		t.Fatal(err)
	}
	total := need // 80 % of it: the full batch does not fit
	if _, err := full.checkMemory(total); err == nil {
		t.Fatal("the full batch fits; the test needs it not to")
	}
	sampled := full
	sampled.Node.Fanout, sampled.Node.BatchNodes = sample.Fanouts{5, 5}, 64
	if _, err := sampled.checkMemory(total); err != nil {
		t.Fatalf("sampled: %v", err)
	}
	got := sampledSize(size, sampled.Node.Sampling())
	if got.Nodes != 64+64*5+64*25 || got.Arcs != 64*5+64*25+got.Nodes {
		t.Errorf("sampled size %+v", got)
	}
	if all := sampledSize(size, train.Sampling{Fanout: sample.Fanouts{-1, 5}, BatchNodes: 64}); all != size {
		t.Errorf("fan-out −1: %+v, want the whole graph %+v", all, size)
	}
}
