package model_test

import (
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// Every TGNN variant (each conv, with and without residual, LayerNorm and
// JK) learns the two communities through the graph.
func TestTGNNLearnsCommunities(t *testing.T) {
	ds := twoCommunities(t, 400, 1)
	split := data.RandomSplit(ds.Y, 0, 0.6, 0.2)
	for _, c := range []model.TGNNConfig{
		{Conv: model.ConvGCN, Layers: 2, Hidden: 32, Heads: 1, Dropout: 0.5},
		{Conv: model.ConvSAGE, Layers: 2, Hidden: 32, Heads: 1, Dropout: 0.5, Residual: true, Norm: model.NormLayer},
		{Conv: model.ConvGAT, Layers: 3, Hidden: 32, Heads: 2, Dropout: 0.5, Residual: true, JK: true},
	} {
		m, err := model.NewTGNN(c, model.NodeShape(ds), 0)
		if err != nil {
			t.Fatal(err)
		}
		tc := train.Recipe(data.NodeTask, "tgnn")
		tc.Epochs = 200
		r, err := train.RunNode(m, ds, split, tc, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.TestAcc < 0.85 {
			t.Errorf("%+v: test accuracy %.3f, want ≥ 0.85", c, r.TestAcc)
		}
	}
}

func TestTGNNParamCount(t *testing.T) {
	f, h, c := 10, 8, 3
	for _, tc := range []struct {
		cfg  model.TGNNConfig
		want int
	}{
		{model.TGNNConfig{Layers: 2, Hidden: h, Heads: 1}, (f*h + h) + (h*h + h) + (h*c + c)},
		{model.TGNNConfig{Layers: 2, Hidden: h, Heads: 1, Residual: true, Norm: model.NormLayer},
			2*(f*h+h) + 2*(h*h+h) + 2*2*h + (h*c + c)},
		{model.TGNNConfig{Conv: model.ConvSAGE, Layers: 1, Hidden: h, Heads: 1}, 2*f*h + h + (h*c + c)},
	} {
		m, err := model.NewTGNN(tc.cfg, model.Shape{Features: f, Classes: c}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := model.CountParams(m); got != tc.want {
			t.Errorf("%+v: %d parameters, want %d", tc.cfg, got, tc.want)
		}
	}
}

func TestTGNNRejectsBadConfig(t *testing.T) {
	for _, c := range []model.TGNNConfig{{Layers: -1}, {Layers: 33}, {Hidden: -2}, {Conv: 7}, {Norm: 4},
		{Conv: model.ConvGAT, Hidden: 10, Heads: 3}, {Heads: 65}, {Dropout: 1}} {
		if _, err := model.NewTGNN(c, model.Shape{Features: 3, Classes: 2}, 0); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}
