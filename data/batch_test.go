package data

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// batchTestDataset: a path on 3 nodes, a single node, two isolated nodes
// and a triangle; one-hot features over 3 labels.
func batchTestDataset(t *testing.T) *GraphDataset {
	t.Helper()
	mk := func(n int, arcs [][2]int32, labels []int32, y int32) GraphSample {
		var src, dst []int32
		for _, a := range arcs {
			src, dst = append(src, a[0], a[1]), append(dst, a[1], a[0])
		}
		g, err := NewGraph(n, src, dst, EdgeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		x := &tensor.CSR[float32]{Rows: n, Cols: 3, Indptr: []int32{0}}
		for _, l := range labels {
			x.Indices = append(x.Indices, l)
			x.Data = append(x.Data, 1)
			x.Indptr = append(x.Indptr, int32(len(x.Indices)))
		}
		return GraphSample{Graph: g, X: Features{Sparse: x}, Label: y}
	}
	return &GraphDataset{Name: "toy", NumClasses: 2, NumFeatures: 3, Graphs: []GraphSample{
		mk(3, [][2]int32{{0, 1}, {1, 2}}, []int32{0, 1, 2}, 0),
		mk(1, nil, []int32{2}, 1),
		mk(2, nil, []int32{1, 1}, 1),
		mk(3, [][2]int32{{0, 1}, {1, 2}, {0, 2}}, []int32{0, 0, 0}, 0),
	}}
}

func TestGraphBatchBlockDiagonal(t *testing.T) {
	ds := batchTestDataset(t)
	var b GraphBatch
	if err := b.Build(ds, []int32{2, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if b.G() != 3 || b.N != 6 {
		t.Fatalf("G = %d, N = %d", b.G(), b.N)
	}
	if !slices.Equal(b.Seg, []int32{0, 2, 5, 6}) || !slices.Equal(b.NodeGraph, []int32{0, 0, 1, 1, 1, 2}) {
		t.Fatalf("seg %v node graph %v", b.Seg, b.NodeGraph)
	}
	if !slices.Equal(b.Y, []int32{1, 0, 1}) {
		t.Fatalf("labels %v", b.Y)
	}
	// Graph 2 (isolated) at 0-1: no arcs; the path at 2-4; the single node 5.
	wantPtr := []int32{0, 0, 0, 1, 3, 4, 4}
	wantSrc := []int32{3, 2, 4, 3}
	if !slices.Equal(b.Ptr, wantPtr) || !slices.Equal(b.Src, wantSrc) {
		t.Fatalf("ptr %v src %v", b.Ptr, b.Src)
	}
	if err := b.X.Validate(); err != nil {
		t.Fatal(err)
	}
	if b.X.Rows != 6 || !slices.Equal(b.X.Indices, []int32{1, 1, 0, 1, 2, 2}) {
		t.Fatalf("features %d rows, columns %v", b.X.Rows, b.X.Indices)
	}
	gen := b.Gen
	// Rebuilding in place replaces everything.
	if err := b.Build(ds, []int32{3}); err != nil {
		t.Fatal(err)
	}
	if b.Gen == gen || b.N != 3 || !slices.Equal(b.Ptr, []int32{0, 2, 4, 6}) || !slices.Equal(b.Src, []int32{1, 2, 0, 2, 0, 1}) {
		t.Fatalf("rebuilt: gen %d N %d ptr %v src %v", b.Gen, b.N, b.Ptr, b.Src)
	}
	if err := b.Build(ds, []int32{7}); err == nil {
		t.Fatal("graph out of range accepted")
	}
}

func TestGraphBatchReusesBuffers(t *testing.T) {
	ds := batchTestDataset(t)
	var b GraphBatch
	all := []int32{0, 1, 2, 3}
	if err := b.Build(ds, all); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var order []int32
	order = ShuffleInto(order, all, rng)
	n := testing.AllocsPerRun(20, func() {
		order = ShuffleInto(order, all, rng)
		if err := b.Build(ds, order[:2]); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Fatalf("warm Build allocates %v times", n)
	}
}

func TestShuffleIntoDeterministic(t *testing.T) {
	items := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	a := ShuffleInto(nil, items, rand.New(rand.NewPCG(3, 4)))
	b := ShuffleInto(nil, items, rand.New(rand.NewPCG(3, 4)))
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different order")
	}
	s := slices.Clone(a)
	slices.Sort(s)
	if !slices.Equal(s, items) {
		t.Fatalf("not a permutation: %v", a)
	}
}
