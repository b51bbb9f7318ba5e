package data

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tuRealSource returns the TU directory of dataset name under $PRCAPS_DATA,
// skipping the test when the variable is unset.
func tuRealSource(t testing.TB, name string) Source {
	t.Helper()
	root := os.Getenv("PRCAPS_DATA")
	if root == "" {
		t.Skip("PRCAPS_DATA not set")
	}
	return Dir(filepath.Join(root, "tu", name))
}

// TestLoadTUReal checks every TU set against the statistics in the data
// MANIFEST (counted independently of this loader).
func TestLoadTUReal(t *testing.T) {
	cases := []struct {
		name        string
		attr        bool
		graphs      int
		classCounts []int // by remapped class
		classNames  []string
		nodes       int
		undirected  int
		arcs        int
		features    int
	}{
		{"MUTAG", false, 188, []int{63, 125}, []string{"-1", "1"}, 3371, 3721, 7442, 7},
		{"NCI1", false, 4110, []int{2053, 2057}, []string{"0", "1"}, 122747, 132753, 265506, 37},
		{"NCI109", false, 4127, []int{2048, 2079}, []string{"0", "1"}, 122494, 132604, 265208, 38},
		{"DD", false, 1178, []int{691, 487}, []string{"1", "2"}, 334925, 843046, 1686092, 89},
		{"PROTEINS", false, 1113, []int{663, 450}, []string{"1", "2"}, 43471, 81044, 162088, 3},
		{"PROTEINS", true, 1113, []int{663, 450}, []string{"1", "2"}, 43471, 81044, 162088, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := tuRealSource(t, c.name)
			t0 := time.Now()
			ds, err := LoadTU(src, c.name, TUOptions{NodeAttr: c.attr})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (NodeAttr=%v) loaded in %v", c.name, c.attr, time.Since(t0))
			if len(ds.Graphs) != c.graphs {
				t.Errorf("graphs = %d, want %d", len(ds.Graphs), c.graphs)
			}
			if ds.NumClasses != len(c.classCounts) {
				t.Errorf("NumClasses = %d, want %d", ds.NumClasses, len(c.classCounts))
			}
			counts := make([]int, ds.NumClasses)
			nodes, und, arcs := 0, 0, 0
			for i, gs := range ds.Graphs {
				counts[gs.Label]++
				nodes += gs.Graph.N
				und += gs.Graph.UndirectedEdges()
				arcs += gs.Graph.NumArcs()
				if gs.Graph.SelfLoops() != 0 {
					t.Fatalf("graph %d has self-loops", i)
				}
				if !gs.Graph.IsSymmetric() {
					t.Fatalf("graph %d is not symmetric", i)
				}
				if gs.X.Rows() != gs.Graph.N || gs.X.Cols() != ds.NumFeatures {
					t.Fatalf("graph %d: features %d×%d for %d nodes, %d features",
						i, gs.X.Rows(), gs.X.Cols(), gs.Graph.N, ds.NumFeatures)
				}
				if (gs.X.Dense != nil) != c.attr {
					t.Fatalf("graph %d: dense features = %v, want %v", i, gs.X.Dense != nil, c.attr)
				}
				if gs.X.Sparse != nil {
					if err := gs.X.Sparse.Validate(); err != nil {
						t.Fatalf("graph %d: %v", i, err)
					}
				}
			}
			if !slices.Equal(counts, c.classCounts) {
				t.Errorf("class counts = %v, want %v", counts, c.classCounts)
			}
			if !slices.Equal(ds.ClassNames, c.classNames) {
				t.Errorf("ClassNames = %q, want %q", ds.ClassNames, c.classNames)
			}
			if nodes != c.nodes {
				t.Errorf("nodes = %d, want %d", nodes, c.nodes)
			}
			if und != c.undirected {
				t.Errorf("undirected edges = %d, want %d", und, c.undirected)
			}
			if arcs != c.arcs {
				t.Errorf("arcs = %d, want %d", arcs, c.arcs)
			}
			if c.name == "MUTAG" {
				// MUTAG's labels are 0..6, all present: column = label.
				raw, err := src.ReadFile("MUTAG_node_labels.txt")
				if err != nil {
					t.Fatal(err)
				}
				var cols []int32
				for _, gs := range ds.Graphs {
					cols = append(cols, gs.X.Sparse.Indices...)
				}
				lines := strings.Fields(string(raw))
				for i, l := range lines {
					if want, _ := strconv.Atoi(l); int32(want) != cols[i] {
						t.Fatalf("node %d: column %d, label %s", i+1, cols[i], l)
					}
				}
			}
			if ds.NumFeatures != c.features {
				t.Errorf("NumFeatures = %d, want %d", ds.NumFeatures, c.features)
			}
		})
	}
}

// BenchmarkLoadTU times each real TU set (go test -bench LoadTU, with PRCAPS_DATA).
func BenchmarkLoadTU(b *testing.B) {
	for _, name := range []string{"MUTAG", "NCI1", "NCI109", "DD", "PROTEINS"} {
		b.Run(name, func(b *testing.B) {
			src := tuRealSource(b, name)
			for b.Loop() {
				if _, err := LoadTU(src, name, TUOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
