package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/tensor"
	"github.com/prcaps/prcaps/train"
)

// twoCommunities is a small synthetic node task: two classes of n/2 nodes,
// edges mostly inside a class, and features that carry the class only
// weakly (a noisy indicator), so a model gains from the graph.
func twoCommunities(t *testing.T, n int, seed uint64) *data.NodeDataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	y := make([]int32, n)
	for v := range y {
		y[v] = int32(v % 2)
	}
	var src, dst []int32
	for u := 0; u < n; u++ {
		for k := 0; k < 4; k++ {
			v := rng.IntN(n)
			if (y[u] == y[v]) == (rng.Float64() < 0.9) && u != v {
				src, dst = append(src, int32(u)), append(dst, int32(v))
			}
		}
	}
	g, err := data.NewGraph(n, src, dst, data.EdgeOptions{Symmetrize: true, RemoveSelfLoops: true})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.NewDense[float32](n, 3)
	for v := 0; v < n; v++ { // alone, the features give about 75 %
		x.Set(v, 0, float32(rng.Float64()))
		x.Set(v, 1, float32(rng.Float64()))
		x.Set(v, int(y[v]), x.At(v, int(y[v]))+0.3)
		x.Set(v, 2, 1)
	}
	return &data.NodeDataset{Name: "two-communities", Graph: g, X: data.Features{Dense: x}, Y: y, NumClasses: 2}
}

// testAccuracy trains the node model name (its defaults and recipe, seed
// 0) on split of ds and returns its test accuracy.
func testAccuracy(t *testing.T, name string, ds *data.NodeDataset, split data.Split) float64 {
	t.Helper()
	m, err := model.NewNode(name, nil, model.NodeShape(ds), 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := train.RunNode(m, ds, split, train.Recipe(data.NodeTask, name), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.TestAcc
}

// SGC and SSGC learn the two communities through the graph: well, and far
// better than on the same features without the edges.
func TestSGCLearnsCommunities(t *testing.T) {
	ds := twoCommunities(t, 400, 1)
	noEdges := *ds
	noEdges.Graph = &data.Graph{N: ds.Graph.N, Ptr: make([]int32, ds.Graph.N+1)}
	split := data.RandomSplit(ds.Y, 0, 0.6, 0.2)
	for _, name := range []string{"sgc", "ssgc"} {
		with, without := testAccuracy(t, name, ds, split), testAccuracy(t, name, &noEdges, split)
		if with < 0.85 || with < without+0.1 {
			t.Errorf("%s: test accuracy %.3f with the graph, %.3f without; want ≥ 0.85 and 0.1 better", name, with, without)
		}
	}
}

func TestSGCRejectsBadConfig(t *testing.T) {
	for _, c := range []model.SGCConfig{{Hops: -1}, {Hops: 65}, {Alpha: 1.5}, {Dropout: 1}} {
		if _, err := model.NewSGC(c, model.Shape{Features: 3, Classes: 2}, 0); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}
