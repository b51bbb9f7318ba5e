package model_test

import (
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// DGCNN's stack learns the two communities, and its warm step allocates
// nothing.
func TestDGCNNLearnsCommunities(t *testing.T) {
	ds := twoCommunities(t, 400, 3)
	split := data.RandomSplit(ds.Y, 0, 0.6, 0.2)
	if acc := testAccuracy(t, "dgcnn", ds, split); acc < 0.85 {
		t.Errorf("dgcnn: test accuracy %.3f on two communities, want ≥ 0.85", acc)
	}
	cora := model.LoadEmbeddedCora(t)
	m, err := model.NewNode("dgcnn", nil, model.NodeShape(cora), 0)
	if err != nil {
		t.Fatal(err)
	}
	if allocs, err := train.StepAllocs(m, cora, *cora.Public, train.Recipe(data.NodeTask, "dgcnn")); err != nil || allocs != 0 {
		t.Errorf("steady-state DGCNN step: %.1f allocations (%v)", allocs, err)
	}
	for _, c := range []model.DGCNNConfig{{Channels: []int{0}}, {Dense: -1}, {Dropout: 1}} {
		if _, err := model.NewDGCNN(c, model.Shape{Features: 3, Classes: 2}, 0); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}
