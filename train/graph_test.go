package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/optim"
)

// Evaluation batches and training micro-batches hold up to a number of
// graphs and of nodes, and at least one graph however large.
func TestBatchEnds(t *testing.T) {
	for _, tc := range []struct {
		sizes               []int
		maxGraphs, maxNodes int
		want                []int // batch ends
	}{
		{[]int{700, 300, 24, 100, 5000, 10, 10, 10}, 128, 1024, []int{3, 4, 5, 8}}, // 700+300+24 = 1024 fits; +100 does not
		{[]int{700, 300, 24, 100, 5000, 10, 10, 10}, 2, 1024, []int{2, 4, 5, 7, 8}},
		{[]int{700, 300, 24, 100, 5000, 10, 10, 10}, 1, 1024, []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{[]int{60, 60, 8, 200, 10, 10, 100, 30}, 16, 128, []int{3, 4, 7, 8}},
		{[]int{60, 60, 8, 200, 10, 10, 100, 30}, 16, 1, []int{1, 2, 3, 4, 5, 6, 7, 8}},
	} {
		ds := &data.GraphDataset{}
		var set []int32
		for i, n := range tc.sizes {
			ds.Graphs = append(ds.Graphs, data.GraphSample{Graph: &data.Graph{N: n}})
			set = append(set, int32(i))
		}
		tr := &graphTrainer{ds: ds}
		var got []int
		for lo, hi := 0, 0; lo < len(set); lo = hi {
			hi = tr.batchEnd(set, lo, tc.maxGraphs, tc.maxNodes)
			got = append(got, hi)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v, %d graphs, %d nodes: batch ends %v, want %v", tc.sizes, tc.maxGraphs, tc.maxNodes, got, tc.want)
		}
	}
}

// poolNet is a small graph model for the trainer's tests: logits = the sum
// over a graph's nodes of tanh(x·W), plus a bias.
type poolNet struct{ w, b *autodiff.Var[float32] }

func newPoolNet(features, classes int) *poolNet {
	rng := rand.New(rand.NewPCG(1, 2))
	m := &poolNet{w: autodiff.NewParam[float32]("w", features, classes), b: autodiff.NewParam[float32]("b", 1, classes)}
	for i := range m.w.Value.Data {
		m.w.Value.Data[i] = float32(rng.NormFloat64())
	}
	return m
}

func (m *poolNet) Forward(t *autodiff.Tape[float32], b *data.GraphBatch, _ bool, _ *rand.Rand) *autodiff.Var[float32] {
	h := autodiff.Tanh(t, autodiff.SpMM(t, &b.X, m.w))
	return autodiff.Add(t, autodiff.ScatterAddRows(t, h, b.Seg), m.b)
}

func (m *poolNet) Groups() []optim.Group[float32] {
	return []optim.Group[float32]{{Params: []*autodiff.Var[float32]{m.w, m.b}}}
}

// A mini-batch's gradient does not depend on its micro-batches: each one's
// loss counts by its share of the graphs. One graph per micro-batch and
// one micro-batch for all 16 graphs give the same loss, accuracy and
// parameter gradients (up to float32 rounding).
func TestMicroBatchesAddUpToTheBatch(t *testing.T) {
	d, err := data.Load("mutag", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds := d.Graph
	idx := make([]int32, 16)
	for i := range idx {
		idx[i] = int32(11 * i)
	}
	cfg := Config{Epochs: 1, LR: 0.01, Optimizer: "adam"}
	type run struct {
		loss    float64
		correct int
		grads   [][]float32
	}
	gradsFor := func(microNodes int) run {
		m := newPoolNet(ds.NumFeatures, ds.NumClasses)
		tr, err := newGraphTrainer(m, ds, data.Split{Train: idx, Val: idx}, cfg, graphBatching{16, microNodes, 16}, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := run{}
		if r.loss, r.correct, err = tr.gradients(1, idx); err != nil {
			t.Fatal(err)
		}
		for _, p := range []*autodiff.Var[float32]{m.w, m.b} {
			r.grads = append(r.grads, slices.Clone(p.Grad.Data))
		}
		return r
	}
	whole, single := gradsFor(1<<20), gradsFor(1)
	if math.Abs(whole.loss-single.loss) > 1e-6*whole.loss || whole.correct != single.correct {
		t.Fatalf("loss %v and %d correct in one batch, %v and %d graph by graph", whole.loss, whole.correct, single.loss, single.correct)
	}
	for i := range whole.grads {
		scale := 0.0
		for _, g := range whole.grads[i] {
			scale = max(scale, math.Abs(float64(g)))
		}
		for j, g := range whole.grads[i] {
			if d := math.Abs(float64(g - single.grads[i][j])); d > 1e-5*scale {
				t.Fatalf("param %d grad[%d] = %v in one batch, %v graph by graph", i, j, g, single.grads[i][j])
			}
		}
	}
}
