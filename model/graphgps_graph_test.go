package model_test

import (
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// GraphGPS with a readout tells stars from paths (its random-walk
// encodings see the structure even where every node is alike), and in
// evaluation mode a graph's logits do not depend on its batch mates.
func TestGraphGPSGraphLearns(t *testing.T) {
	ds := starsAndPaths(t, 120)
	cfg := model.GraphGPSConfig{Hidden: 16, Layers: 2, Heads: 2, PEDim: 8, RWSESteps: 8, HeadLayers: 3}
	m, err := model.NewGraphGPSGraph(cfg, model.GraphShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Recipe(data.GraphTask, "graphgps")
	tc.Epochs, tc.LR = 30, 0.005
	r := trainFirstFold(t, m, ds, tc)
	if r.TestAcc < 0.95 {
		t.Errorf("test accuracy %.3f, want ≥ 0.95", r.TestAcc)
	}
	checkBatchIndependence(t, m, ds)
	if _, err := model.NewGraphGPSGraph(model.GraphGPSConfig{Attention: model.GPSAttentionPerformer}, model.GraphShape(ds), 0); err == nil {
		t.Error("Performer accepted for a batch of graphs")
	}
}
