package data

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refArcs is the obvious arc set NewGraph must build: a map of (src, dst).
func refArcs(src, dst []int32, opt EdgeOptions) map[[2]int32]bool {
	m := map[[2]int32]bool{}
	for i := range src {
		if opt.RemoveSelfLoops && src[i] == dst[i] {
			continue
		}
		m[[2]int32{src[i], dst[i]}] = true
		if opt.Symmetrize {
			m[[2]int32{dst[i], src[i]}] = true
		}
	}
	return m
}

func TestNewGraphMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, opt := range []EdgeOptions{{}, {Symmetrize: true}, {RemoveSelfLoops: true}, {true, true}} {
		for trial := 0; trial < 20; trial++ {
			n := 1 + rng.IntN(30)
			m := rng.IntN(4 * n)
			src, dst := make([]int32, m), make([]int32, m)
			for i := range src {
				src[i], dst[i] = int32(rng.IntN(n)), int32(rng.IntN(n))
			}
			g, err := NewGraph(n, src, dst, opt)
			if err != nil {
				t.Fatal(err)
			}
			want := refArcs(src, dst, opt)
			if g.NumArcs() != len(want) {
				t.Fatalf("%+v: %d arcs, want %d", opt, g.NumArcs(), len(want))
			}
			for v := 0; v < n; v++ {
				in := g.InNeighbors(v)
				if !slices.IsSorted(in) {
					t.Fatalf("in-neighbours of %d unsorted: %v", v, in)
				}
				for _, u := range in {
					if !want[[2]int32{u, int32(v)}] {
						t.Fatalf("%+v: spurious arc %d→%d", opt, u, v)
					}
				}
			}
			if opt.Symmetrize && !g.IsSymmetric() {
				t.Fatalf("%+v: not symmetric", opt)
			}
		}
	}
}

func TestNewGraphErrorsAndCounts(t *testing.T) {
	if _, err := NewGraph(3, []int32{0}, []int32{3}, EdgeOptions{}); err == nil {
		t.Error("endpoint out of range: no error")
	}
	if _, err := NewGraph(3, []int32{0, 1}, []int32{1}, EdgeOptions{}); err == nil {
		t.Error("length mismatch: no error")
	}
	if _, err := NewGraph(-1, nil, nil, EdgeOptions{}); err == nil {
		t.Error("negative n: no error")
	}
	// 0→1, 1→0, 1→2 (one-way), 2→2 (self-loop).
	g, err := NewGraph(3, []int32{0, 1, 1, 2, 0}, []int32{1, 0, 2, 2, 1}, EdgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumArcs() != 4 || g.UndirectedEdges() != 2 || g.SelfLoops() != 1 || g.IsSymmetric() {
		t.Errorf("arcs %d, undirected %d, self-loops %d, symmetric %v", g.NumArcs(), g.UndirectedEdges(), g.SelfLoops(), g.IsSymmetric())
	}
	empty, err := NewGraph(0, nil, nil, EdgeOptions{})
	if err != nil || empty.NumArcs() != 0 || len(empty.Ptr) != 1 {
		t.Errorf("empty graph: %v %+v", err, empty)
	}
}
