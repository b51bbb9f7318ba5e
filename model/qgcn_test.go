package model_test

import (
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// Q-GCN learns the two communities through the graph: well, and better
// than on the same features without the edges (by less than the two-layer
// models: its one convolution sees one hop).
func TestQGCNLearnsCommunities(t *testing.T) {
	ds := twoCommunities(t, 400, 1)
	noEdges := *ds
	noEdges.Graph = &data.Graph{N: ds.Graph.N, Ptr: make([]int32, ds.Graph.N+1)}
	split := data.RandomSplit(ds.Y, 0, 0.6, 0.2)
	with, without := testAccuracy(t, "qgcn", ds, split), testAccuracy(t, "qgcn", &noEdges, split)
	if with < 0.85 || with < without+0.05 {
		t.Errorf("test accuracy %.3f with the graph, %.3f without; want ≥ 0.85 and 0.05 better", with, without)
	}
}

// The parameter count is the authors': F×d + d for the convolution, d×C + C
// for the decoder, and the (frozen) curvature.
func TestQGCNParamCount(t *testing.T) {
	m, err := model.NewQGCN(model.DefaultQGCNConfig(), model.Shape{Features: 1433, Classes: 7}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := model.CountParams(m), 1433*128+128+128*7+7+1; got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
}

func TestQGCNRejectsBadConfig(t *testing.T) {
	for _, c := range []model.QGCNConfig{{Hidden: 1}, {Hidden: 8, TimeDim: 9}, {TimeDim: -1}, {Beta: 0.5}, {Beta: -1e-5}, {Dropout: 1}} {
		if _, err := model.NewQGCN(c, model.Shape{Features: 3, Classes: 2}, 0); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}
