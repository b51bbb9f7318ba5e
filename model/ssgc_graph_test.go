package model_test

import (
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// The SSGC graph classifier learns the label-majority task.
func TestSSGCGraphLearns(t *testing.T) {
	ds := labelMajority(t, 120)
	m, err := model.NewSSGCGraph(model.DefaultSSGCGraphConfig(), model.GraphShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Recipe(data.GraphTask, "ssgc")
	tc.Epochs = 40
	r := trainFirstFold(t, m, ds, tc)
	if r.TestAcc < 0.9 {
		t.Errorf("test accuracy %.3f, want ≥ 0.9", r.TestAcc)
	}
	if got, want := model.CountParams(m), 2*64+64+64*2+2; got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	for _, c := range []model.SSGCGraphConfig{{Hops: -1}, {Alpha: 2}, {Dropout: 1}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
