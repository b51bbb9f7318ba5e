package model_test

import (
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// GAT and GATv2 learn the two communities through the graph.
func TestGATLearnsCommunities(t *testing.T) {
	ds := twoCommunities(t, 400, 2)
	split := data.RandomSplit(ds.Y, 0, 0.6, 0.2)
	for _, name := range []string{"gat", "gatv2"} {
		if acc := testAccuracy(t, name, ds, split); acc < 0.85 {
			t.Errorf("%s: test accuracy %.3f on two communities, want ≥ 0.85", name, acc)
		}
	}
}

func TestGATStepAllocatesNothing(t *testing.T) {
	ds := model.LoadEmbeddedCora(t)
	m, err := model.NewNode("gat", nil, model.NodeShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	allocs, err := train.StepAllocs(m, ds, *ds.Public, train.Recipe(data.NodeTask, "gat"))
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("steady-state GAT step allocates %.1f times", allocs)
	}
}
