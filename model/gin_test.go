package model_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/tensor"
	"github.com/prcaps/prcaps/train"
)

// starsAndPaths is a small structural graph task: n graphs of 5 to 9 nodes,
// stars (class 0) and paths (class 1), every node with the same feature,
// so only the structure tells them apart.
func starsAndPaths(t *testing.T, n int) *data.GraphDataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 3))
	ds := &data.GraphDataset{Name: "stars-and-paths", NumClasses: 2, NumFeatures: 1}
	for i := 0; i < n; i++ {
		size, y := 5+rng.IntN(5), int32(i%2)
		var src, dst []int32
		for v := 1; v < size; v++ {
			u := int32(0) // star: every node to the centre
			if y == 1 {
				u = int32(v - 1) // path
			}
			src, dst = append(src, u, int32(v)), append(dst, int32(v), u)
		}
		g, err := data.NewGraph(size, src, dst, data.EdgeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		x := &tensor.CSR[float32]{Rows: size, Cols: 1, Indptr: []int32{0}}
		for v := 0; v < size; v++ {
			x.Indices, x.Data = append(x.Indices, 0), append(x.Data, 1)
			x.Indptr = append(x.Indptr, int32(v+1))
		}
		ds.Graphs = append(ds.Graphs, data.GraphSample{Graph: g, X: data.Features{Sparse: x}, Label: y})
	}
	return ds
}

func graphLabels(ds *data.GraphDataset) []int32 {
	y := make([]int32, len(ds.Graphs))
	for i, g := range ds.Graphs {
		y[i] = g.Label
	}
	return y
}

// GIN tells stars from paths, which a model blind to the structure cannot.
func TestGINLearnsStructure(t *testing.T) {
	ds := starsAndPaths(t, 120)
	m, err := model.NewGIN(model.DefaultGINConfig(), model.GraphShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Recipe(data.GraphTask, "gin")
	tc.Epochs = 30
	r := trainFirstFold(t, m, ds, tc)
	if r.TestAcc < 0.95 {
		t.Errorf("test accuracy %.3f, want ≥ 0.95", r.TestAcc)
	}
}

// In evaluation mode a graph's logits do not depend on the rest of its
// batch, and the running statistics are buffers: in the groups, not
// counted as parameters.
func TestGINBatchIndependenceAndParams(t *testing.T) {
	ds := model.LoadEmbeddedMUTAG(t)
	cfg := model.GINConfig{Layers: 3, Hidden: 8}
	m, err := model.NewGIN(cfg, model.GraphShape(ds), 1)
	if err != nil {
		t.Fatal(err)
	}
	f, h, c := ds.NumFeatures, 8, ds.NumClasses
	conv := func(in int) int { return in*h + h + 2*h + h*h + h }
	want := conv(f) + conv(h) + 2*(2*h) + (f*c + c) + 2*(h*c+c)
	if got := model.CountParams(m); got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	checkBatchIndependence(t, m, ds)
}

// The model handed out for a fold holds the selected epoch's parameters
// and batch statistics together: its validation logits are those the
// validation pass computed at that epoch, bit for bit.
func TestGINSelectedEpochKeepsBatchStatistics(t *testing.T) {
	ds := model.LoadEmbeddedMUTAG(t)
	logits := map[int][]float32{}
	var graphs []int32
	var got []float32
	best := 0
	p := train.GraphProtocol{Folds: 10, OnlyFolds: 1, BatchSize: 32}
	obs := selectedWatcher{
		val: func(_ int, v train.ValScores) {
			logits[v.Epoch], graphs = slices.Clone(v.Logits), slices.Clone(v.Graphs)
		},
		ModelFunc: func(_ int, r train.Result, m model.Model) {
			var b data.GraphBatch
			if err := b.Build(ds, graphs); err != nil {
				t.Fatal(err)
			}
			var tp autodiff.Tape[float32]
			tp.NoGrad = true
			got, best = slices.Clone(m.(model.GraphModel).Forward(&tp, &b, false, nil).Value.Data), r.BestEpoch
		}}
	tc := train.Recipe(data.GraphTask, "gin")
	tc.Epochs = 20
	if _, err := train.RunGraphProtocol(ds, func(seed uint64) (model.GraphModel, error) {
		return model.NewGIN(model.GINConfig{Layers: 5, Hidden: 16}, model.GraphShape(ds), seed)
	}, p, tc, obs); err != nil {
		t.Fatal(err)
	}
	if best == tc.Epochs {
		t.Fatalf("the last epoch was selected: the check needs an earlier one")
	}
	if !slices.Equal(got, logits[best]) {
		t.Errorf("selected epoch %d: the model's validation logits differ from those of that epoch", best)
	}
}

// selectedWatcher is a train.ModelObserver and train.ValidationObserver of
// functions.
type selectedWatcher struct {
	train.ModelFunc
	val func(int, train.ValScores)
}

func (w selectedWatcher) Validation(fold int, v train.ValScores) { w.val(fold, v) }
