package model_test

import (
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// GraphGPS with a readout tells stars from paths (its random-walk
// encodings see the structure even where every node is alike), and in
// evaluation mode a graph's logits do not depend on its batch mates.
func TestGraphGPSGraphLearns(t *testing.T) {
	ds := starsAndPaths(t, 120)
	folds, err := data.StratifiedKFoldVal(graphLabels(ds), 4, 0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.GraphGPSConfig{Hidden: 16, Layers: 2, Heads: 2, PEDim: 8, RWSESteps: 8}
	m, err := model.NewGraphGPSGraph(cfg, model.GraphShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Recipe(data.GraphTask, "graphgps")
	tc.Epochs, tc.LR = 30, 0.005
	r, err := train.RunGraph(m, ds, folds[0], tc, 16, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.TestAcc < 0.95 {
		t.Errorf("test accuracy %.3f, want ≥ 0.95", r.TestAcc)
	}
	var b data.GraphBatch
	var tp autodiff.Tape[float32]
	tp.NoGrad = true
	logits := func(idx []int32) []float32 {
		if err := b.Build(ds, idx); err != nil {
			t.Fatal(err)
		}
		tp.Reset()
		return append([]float32(nil), m.Forward(&tp, &b, false, nil).Value.Data...)
	}
	all, one := logits([]int32{5, 17, 40, 3}), logits([]int32{40})
	for k := range one {
		if d := one[k] - all[2*2+k]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("graph 40 alone: logit %d = %v, in a batch %v", k, one[k], all[2*2+k])
		}
	}
	if _, err := model.NewGraphGPSGraph(model.GraphGPSConfig{Attention: model.GPSAttentionPerformer}, model.GraphShape(ds), 0); err == nil {
		t.Error("Performer accepted for a batch of graphs")
	}
}
