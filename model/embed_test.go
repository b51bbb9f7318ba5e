package model_test

import (
	"slices"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// Every registered model of this package has an embedding output: one row
// per node (or graph), the same on every evaluation pass, and for the
// graph network the class capsules side by side.
func TestEmbeddings(t *testing.T) {
	cora := model.LoadEmbeddedCora(t)
	for _, name := range []string{"prcapsnet", "gcn"} {
		m, err := model.NewNode(name, nil, model.NodeShape(cora), 1)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := m.(model.NodeEmbedder)
		if !ok {
			t.Fatalf("%s is not a NodeEmbedder", name)
		}
		var tp autodiff.Tape[float32]
		tp.NoGrad = true
		a := slices.Clone(e.Embed(&tp, cora.Graph, cora.X).Value.Data)
		tp.Reset()
		z := e.Embed(&tp, cora.Graph, cora.X)
		if z.Value.Rows != cora.Graph.N || z.Value.Cols < 2 || !slices.Equal(a, z.Value.Data) {
			t.Errorf("%s: embedding %d×%d, repeatable %v", name, z.Value.Rows, z.Value.Cols, slices.Equal(a, z.Value.Data))
		}
	}
	mutag := model.LoadEmbeddedMUTAG(t)
	m, err := model.NewGraph("prcapsnet", nil, model.GraphShape(mutag), 1)
	if err != nil {
		t.Fatal(err)
	}
	var b data.GraphBatch
	if err := b.Build(mutag, []int32{0, 3, 7}); err != nil {
		t.Fatal(err)
	}
	var tp autodiff.Tape[float32]
	tp.NoGrad = true
	z := m.(model.GraphEmbedder).Embed(&tp, &b)
	d := model.DefaultPRCapsGraphConfig().Dims().Tangent()
	if z.Value.Rows != 3 || z.Value.Cols != mutag.NumClasses*d {
		t.Errorf("graph embedding %d×%d, want 3×%d", z.Value.Rows, z.Value.Cols, mutag.NumClasses*d)
	}
}
