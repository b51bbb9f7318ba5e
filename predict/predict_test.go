package predict_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prcaps/prcaps/internal/fixture"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/predict"
)

// newPredictor is an untrained (seed 3) predictor for an embedded dataset.
func newPredictor(t testing.TB, name string) (*predict.Predictor, model.Model, *data.Dataset) {
	return fixture.Predictor(t, name, 3)
}

func softmaxArgmax(logits []float32) (int, []float64) {
	mx := slices.Max(logits)
	probs := make([]float64, len(logits))
	sum := 0.0
	for i, z := range logits {
		probs[i] = math.Exp(float64(z - mx))
		sum += probs[i]
	}
	for i := range probs {
		probs[i] /= sum
	}
	return slices.Index(logits, mx), probs
}

// MUTAG's graphs given as raw edges and node labels get the loaded
// features, so the predictions are the model's on the dataset, and the
// same from many goroutines at once.
func TestGraphsMatchModel(t *testing.T) {
	p, m, ds := newPredictor(t, "mutag")
	g := ds.Graph
	enc := g.Encoding
	n := 60
	raw := make([]predict.Graph, n)
	for i := range raw {
		s := g.Graphs[i]
		rg := predict.Graph{Nodes: s.Graph.N}
		for v := 0; v < s.Graph.N; v++ {
			for _, u := range s.Graph.InNeighbors(v) {
				rg.Edges = append(rg.Edges, [2]int{int(u), v})
			}
			rg.Labels = append(rg.Labels, enc.Blocks[0].Lo+int64(s.X.Sparse.Indices[s.X.Sparse.Indptr[v]]))
		}
		raw[i] = rg
	}
	var b data.GraphBatch
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	if err := b.Build(g, idx); err != nil {
		t.Fatal(err)
	}
	var tp autodiff.Tape[float32]
	tp.NoGrad = true
	out := m.(model.GraphModel).Forward(&tp, &b, false, nil).Value
	want, err := p.Samples(g.Graphs[:n])
	if err != nil {
		t.Fatal(err)
	}
	for i, pr := range want {
		c, probs := softmaxArgmax(out.Data[i*out.Cols : (i+1)*out.Cols])
		if pr.Class != c || pr.Label != g.ClassNames[c] || !slices.EqualFunc(pr.Probs, probs, func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }) {
			t.Fatalf("graph %d: %+v, want class %d probs %v", i, pr, c, probs)
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 5; k++ {
				got, err := p.Graphs(raw)
				if err != nil {
					t.Error(err)
					return
				}
				for i := range got {
					if got[i].Class != want[i].Class || !slices.Equal(got[i].Probs, want[i].Probs) {
						t.Errorf("graph %d from raw input: %+v, want %+v", i, got[i], want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestGraphInputErrors(t *testing.T) {
	p, _, _ := newPredictor(t, "mutag")
	for _, tc := range []struct {
		g    predict.Graph
		want string
	}{
		{predict.Graph{}, "at least one"},
		{predict.Graph{Nodes: 2, Edges: []predict.Edge{{0, 2}}, Labels: []int64{0, 0}}, "outside [0, 2)"},
		{predict.Graph{Nodes: 2, Labels: []int64{0}}, "1 node labels for 2 nodes"},
		{predict.Graph{Nodes: 2, Labels: []int64{0, 7}}, "node 1 has label 7"},
		{predict.Graph{Nodes: 1, Labels: []int64{0}, Attributes: [][]float32{{1}}}, "attributes"},
	} {
		if _, err := p.Graphs([]predict.Graph{tc.g}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.g, err, tc.want)
		}
	}
	if _, err := p.Nodes(nil, data.Features{}, nil); err == nil {
		t.Error("a graph model classified nodes")
	}
}

func TestNodesMatchModel(t *testing.T) {
	p, m, ds := newPredictor(t, "cora")
	nd := ds.Node
	var tp autodiff.Tape[float32]
	tp.NoGrad = true
	out := m.(model.NodeModel).Forward(&tp, nd.Graph, nd.X, false, nil).Value
	preds, err := p.Nodes(nd.Graph, nd.X, []int32{5, 0, 2707})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []int{5, 0, 2707} {
		c, probs := softmaxArgmax(out.Data[v*out.Cols : (v+1)*out.Cols])
		if preds[i].Class != c || math.Abs(preds[i].Probs[c]-probs[c]) > 1e-6 {
			t.Errorf("node %d: %+v, want class %d", v, preds[i], c)
		}
	}
	if _, err := p.Nodes(nd.Graph, nd.X, []int32{2708}); err == nil {
		t.Error("node outside the graph accepted")
	}
	if _, err := p.Graphs([]predict.Graph{{Nodes: 1}}); err == nil {
		t.Error("a node model classified graphs")
	}
}

// Dataset classifies a loaded dataset and compares with its labels by name.
func TestDatasetAccuracy(t *testing.T) {
	p, _, ds := newPredictor(t, "mutag")
	c, err := p.Dataset(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc, labelled := c.Accuracy()
	right := 0
	for i, pr := range c.Predictions {
		if pr.Label == ds.Graph.ClassNames[ds.Graph.Graphs[i].Label] {
			right++
		}
	}
	if len(c.IDs) != 188 || labelled != 188 || acc != float64(right)/188 {
		t.Errorf("%d ids, %d labelled, accuracy %v; want 188, 188, %v", len(c.IDs), labelled, acc, float64(right)/188)
	}
	cora, err := data.Load("cora", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Dataset(cora, nil); err == nil {
		t.Error("a graph model classified a node dataset")
	}
	np, _, nds := newPredictor(t, "cora")
	c, err = np.Dataset(nds, []int32{4, 2})
	if err != nil || !slices.Equal(c.IDs, []int32{4, 2}) || c.Truth[0] != strconv.Itoa(int(nds.Node.Y[4])) {
		t.Errorf("nodes 4, 2: %v, %+v", err, c.IDs)
	}
}
