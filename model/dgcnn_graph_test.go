package model_test

import (
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// k is the node count that 60% of the graphs do not exceed, at least 10;
// building with k unresolved is an error that says so.
func TestDGCNNGraphSortK(t *testing.T) {
	ds := starsAndPaths(t, 20) // 5 to 9 nodes: k = 10
	cfg := model.DefaultDGCNNGraphConfig()
	if _, err := model.NewDGCNNGraph(cfg, model.GraphShape(ds), 0); err == nil || !strings.Contains(err.Error(), "sort-k") {
		t.Fatalf("unresolved k: error %v", err)
	}
	cfg.ResolveGraphs(ds)
	if cfg.K != 10 {
		t.Errorf("k = %d on graphs of 5-9 nodes, want the minimum 10", cfg.K)
	}
	mutag := model.LoadEmbeddedMUTAG(t)
	cfg = model.DefaultDGCNNGraphConfig()
	cfg.ResolveGraphs(mutag)
	below := 0
	for _, g := range mutag.Graphs {
		if g.Graph.N <= cfg.K {
			below++
		}
	}
	if f := float64(below) / float64(len(mutag.Graphs)); f < 0.6 || cfg.K < 10 {
		t.Errorf("MUTAG k = %d covers %.2f of the graphs, want ≥ 0.6", cfg.K, f)
	}
	if cfg.Validate() != nil || (model.DGCNNGraphConfig{K: 9}).Validate() == nil {
		t.Error("Validate: k 9 accepted or a resolved default rejected")
	}
}

// DGCNN learns the label-majority task (its mean aggregation cannot tell
// stars from paths whose nodes are all alike: a mean of equal rows is that
// row); in evaluation mode a graph's logits do not depend on the rest of
// its batch.
func TestDGCNNGraphLearns(t *testing.T) {
	ds := labelMajority(t, 120)
	cfg := model.DefaultDGCNNGraphConfig()
	cfg.ResolveGraphs(ds)
	m, err := model.NewDGCNNGraph(cfg, model.GraphShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Recipe(data.GraphTask, "dgcnn")
	tc.Epochs, tc.LR = 60, 0.001
	r := trainFirstFold(t, m, ds, tc)
	if r.TestAcc < 0.95 {
		t.Errorf("test accuracy %.3f, want ≥ 0.95", r.TestAcc)
	}
	checkBatchIndependence(t, m, ds)
}

func TestDGCNNGraphParamCount(t *testing.T) {
	cfg := model.DGCNNGraphConfig{Channels: []int{4, 1}, K: 12, Conv1: 3, Conv2: 2, Dense: 5}
	m, err := model.NewDGCNNGraph(cfg, model.Shape{Features: 6, Classes: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// convs 6·4+4, 4·1+1; conv1 5·3+3; conv2 (5·3)·2+2; dense (12/2−4)·2 → 5; out 5·2+2.
	want := (6*4 + 4) + (4*1 + 1) + (5*3 + 3) + (5*3*2 + 2) + (2*2*5 + 5) + (5*2 + 2)
	if got := model.CountParams(m); got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
}
