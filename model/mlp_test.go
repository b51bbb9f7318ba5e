package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/tensor"
	"github.com/prcaps/prcaps/train"
)

// labelMajority is a feature task: paths of 4 to 9 nodes labelled 0 or 1
// (one-hot), the class being the more frequent label.
func labelMajority(t *testing.T, n int) *data.GraphDataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	ds := &data.GraphDataset{Name: "label-majority", NumClasses: 2, NumFeatures: 2}
	for i := 0; i < n; i++ {
		size, y := 4+rng.IntN(6), int32(i%2)
		var src, dst []int32
		for v := 1; v < size; v++ {
			src, dst = append(src, int32(v-1), int32(v)), append(dst, int32(v), int32(v-1))
		}
		g, err := data.NewGraph(size, src, dst, data.EdgeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		x := &tensor.CSR[float32]{Rows: size, Cols: 2, Indptr: []int32{0}}
		for v := 0; v < size; v++ {
			l := y
			if v < (size-1)/2 { // a minority of the other label
				l = 1 - y
			}
			x.Indices, x.Data = append(x.Indices, l), append(x.Data, 1)
			x.Indptr = append(x.Indptr, int32(v+1))
		}
		ds.Graphs = append(ds.Graphs, data.GraphSample{Graph: g, X: data.Features{Sparse: x}, Label: y})
	}
	return ds
}

func runMLP(t *testing.T, ds *data.GraphDataset) float64 {
	t.Helper()
	folds, err := data.StratifiedKFoldVal(graphLabels(ds), 4, 0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.NewMLP(model.DefaultMLPConfig(), model.GraphShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Recipe(data.GraphTask, "mlp")
	tc.Epochs, tc.Patience, tc.LR = 150, 0, 0.01
	r, err := train.RunGraph(m, ds, folds[0], tc, 32, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.TestAcc
}

// The structure-agnostic baseline learns a task in the node features and
// cannot learn one in the structure alone (stars against paths of the
// same sizes, every node alike).
func TestMLPSeesFeaturesNotStructure(t *testing.T) {
	if acc := runMLP(t, labelMajority(t, 120)); acc < 0.95 {
		t.Errorf("label majority: test accuracy %.3f, want ≥ 0.95", acc)
	}
	if acc := runMLP(t, starsAndPaths(t, 120)); acc > 0.8 {
		t.Errorf("stars and paths: test accuracy %.3f, want ≤ 0.8 for a model that reads no edge", acc)
	}
}

func TestMLPParamCount(t *testing.T) {
	m, err := model.NewMLP(model.MLPConfig{Hidden: 16}, model.Shape{Features: 7, Classes: 3}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := model.CountParams(m), 7*16+16+16*3+3; got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	if _, err := model.NewMLP(model.MLPConfig{Hidden: -1}, model.Shape{Features: 7, Classes: 3}, 0); err == nil {
		t.Error("hidden −1 accepted")
	}
}
