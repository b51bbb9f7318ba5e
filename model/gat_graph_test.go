package model_test

import (
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// GAT and GATv2 with either readout learn the label-majority task.
func TestGATGraphLearns(t *testing.T) {
	ds := labelMajority(t, 120)
	folds, err := data.StratifiedKFoldVal(graphLabels(ds), 4, 0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []model.GATGraphConfig{{Hidden: 8, Heads: 8}, {Hidden: 8, Heads: 8, V2: true, Readout: model.ReadoutSum}} {
		m, err := model.NewGATGraph(c, model.GraphShape(ds), 0)
		if err != nil {
			t.Fatal(err)
		}
		tc := train.Recipe(data.GraphTask, "gat")
		tc.Epochs = 40
		r, err := train.RunGraph(m, ds, folds[0], tc, 16, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.TestAcc < 0.9 {
			t.Errorf("%+v: test accuracy %.3f, want ≥ 0.9", c, r.TestAcc)
		}
	}
}

// GAT's layout gives the paper's Table 2 parameter counts: 64 per feature
// plus 1,298 with two classes (MUTAG 1,746, NCI1 3,666, DD 6,994).
func TestGATGraphParamCountMatchesPaper(t *testing.T) {
	for _, c := range []struct{ features, want int }{{7, 1746}, {37, 3666}, {89, 6994}} {
		m, err := model.NewGATGraph(model.DefaultGATGraphConfig(), model.Shape{Features: c.features, Classes: 2}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := model.CountParams(m); got != c.want {
			t.Errorf("%d features: %d parameters, want %d", c.features, got, c.want)
		}
	}
	if (model.GATGraphConfig{Readout: 5}).Validate() == nil {
		t.Error("readout 5 accepted")
	}
}
