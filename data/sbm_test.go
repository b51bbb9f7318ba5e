package data

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestGenerateSBM(t *testing.T) {
	c := SBMConfig{Edges: 200_000, Seed: 7}
	ds, err := GenerateSBM(c)
	if err != nil {
		t.Fatal(err)
	}
	nd := ds.Node
	g, x := nd.Graph, nd.X.Sparse
	if g.N != 20_000 || nd.NumClasses != 5 || x.Cols != 500 || ds.Task != NodeTask {
		t.Fatalf("shape: %d nodes, %d classes, %d features", g.N, nd.NumClasses, x.Cols)
	}
	// Duplicates and self-loops are few at mean degree 20 over 20,000 nodes.
	if arcs := g.NumArcs(); arcs > 2*c.Edges || arcs < 2*c.Edges*99/100 {
		t.Errorf("%d arcs from %d edges", arcs, c.Edges)
	}
	same := 0
	for v := range g.N {
		for _, u := range g.Src[g.Ptr[v]:g.Ptr[v+1]] {
			if u == int32(v) {
				t.Fatalf("self-loop at %d", v)
			}
			if nd.Y[u] == nd.Y[v] {
				same++
			}
		}
	}
	// Within-class arcs: homophily plus the uniform draws that land in the class.
	within := float64(same) / float64(g.NumArcs())
	if want := 0.8 + 0.2/5; math.Abs(within-want) > 0.01 {
		t.Errorf("within-class arcs %.3f, want %.3f", within, want)
	}
	own := 0
	for v := range g.N {
		row := x.Indices[x.Indptr[v]:x.Indptr[v+1]]
		if len(row) != 10 || !slices.IsSorted(row) || len(slices.Compact(slices.Clone(row))) != 10 {
			t.Fatalf("node %d features %v: want 10 distinct sorted columns", v, row)
		}
		for _, f := range row {
			if int(f)/100 == int(nd.Y[v]) {
				own++
			}
		}
	}
	if got, want := float64(own)/float64(10*g.N), 0.5+0.5/5; math.Abs(got-want) > 0.01 {
		t.Errorf("features in the own class's block %.3f, want about %.3f", got, want)
	}
	again, _ := GenerateSBM(c)
	if !slices.Equal(again.Node.Graph.Src, g.Src) || !slices.Equal(again.Node.X.Sparse.Indices, x.Indices) {
		t.Error("the same configuration gave another dataset")
	}
	if other, _ := GenerateSBM(SBMConfig{Edges: 200_000, Seed: 8}); slices.Equal(other.Node.Graph.Src, g.Src) {
		t.Error("another seed gave the same graph")
	}
}

func TestSBMConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		c    SBMConfig
		want string
	}{
		{SBMConfig{}, "edges 0"},
		{SBMConfig{Edges: 10, Nodes: 1}, "nodes 1"},
		{SBMConfig{Edges: 10, Nodes: 100, Classes: 1}, "classes 1"},
		{SBMConfig{Edges: 1000, Homophily: 1.5}, "homophily"},
		{SBMConfig{Edges: 1000, Homophily: math.NaN()}, "homophily"},
		{SBMConfig{Edges: 1000, Features: 50, NNZ: 11}, "features per node"},
		{SBMConfig{Edges: 1000, Signal: -0.1}, "signal"},
	} {
		if _, err := GenerateSBM(tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one about %q", tc.c, err, tc.want)
		}
	}
}
