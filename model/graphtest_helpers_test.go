package model_test

import (
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// trainFirstFold trains m on the first of 4 stratified folds of ds (10%
// validation inside it) with tc in mini-batches of 16 and returns the result.
func trainFirstFold(t *testing.T, m model.GraphModel, ds *data.GraphDataset, tc train.Config) train.Result {
	t.Helper()
	folds, err := data.StratifiedKFoldVal(graphLabels(ds), 4, 0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := train.RunGraph(m, ds, folds[0], tc, 16, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkBatchIndependence checks that in evaluation mode graph 40's logits
// are the same alone as in a batch with three others (graph 40 third).
func checkBatchIndependence(t *testing.T, m model.GraphModel, ds *data.GraphDataset) {
	t.Helper()
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
	c := ds.NumClasses
	for k := range one {
		if d := one[k] - all[2*c+k]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("graph 40 alone: logit %d = %v, in a batch %v", k, one[k], all[2*c+k])
		}
	}
}
