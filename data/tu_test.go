package data

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// tuFS builds a TU dataset "T" in memory; files with empty content are omitted.
func tuFS(files map[string]string) Source {
	m := fstest.MapFS{}
	for suffix, content := range files {
		m["T_"+suffix+".txt"] = &fstest.MapFile{Data: []byte(content)}
	}
	return Source{FS: m, Root: "mem"}
}

// tuSmall: graph 1 = triangle 1-2-3 plus a duplicated line and a self-loop on
// 3; graph 2 = a single isolated node 4; graph 3 = nodes 5, 6 with no edges
// (5 isolated, 6 isolated); graph 4 = path 7-8.
func tuSmall() map[string]string {
	return map[string]string{
		"A":               "1, 2\n2, 1\r\n2,3\n3,2\n1,3\n3,1\n1, 2\n3, 3\n7,8\n8,7\n\n",
		"graph_indicator": "1\n1\n1\n2\n3\n3\n4\n4\n",
		"graph_labels":    "-1\n1\n-1\n5\n",
		"node_labels":     "4\n5\n4\n6\n5\n4\n6\n6\n",
	}
}

func TestLoadTUSynthetic(t *testing.T) {
	ds, err := LoadTU(tuFS(tuSmall()), "T", TUOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Graphs) != 4 || ds.NumClasses != 3 || ds.NumFeatures != 3 {
		t.Fatalf("graphs %d, classes %d, features %d; want 4, 3, 3", len(ds.Graphs), ds.NumClasses, ds.NumFeatures)
	}
	if !slices.Equal(ds.ClassNames, []string{"-1", "1", "5"}) {
		t.Errorf("ClassNames = %q", ds.ClassNames)
	}
	wantLabels := []int32{0, 1, 0, 2}
	wantN := []int{3, 1, 2, 2}
	wantArcs := []int{7, 0, 0, 2}
	for i, gs := range ds.Graphs {
		if gs.Label != wantLabels[i] || gs.Graph.N != wantN[i] || gs.Graph.NumArcs() != wantArcs[i] {
			t.Errorf("graph %d: label %d, N %d, arcs %d; want %d, %d, %d",
				i, gs.Label, gs.Graph.N, gs.Graph.NumArcs(), wantLabels[i], wantN[i], wantArcs[i])
		}
	}
	g0 := ds.Graphs[0].Graph
	if !g0.HasArc(2, 2) || !g0.HasArc(0, 1) || !g0.HasArc(1, 0) || g0.UndirectedEdges() != 3 {
		t.Errorf("graph 0: arcs %v / %v", g0.Ptr, g0.Src)
	}
	if g := ds.Graphs[3].Graph; !g.HasArc(0, 1) || !g.HasArc(1, 0) {
		t.Errorf("graph 3: arcs %v / %v", g.Ptr, g.Src)
	}
	// One-hot of the labels 4, 5, 6 → columns 0, 1, 2 (value − min).
	wantCol := [][]int32{{0, 1, 0}, {2}, {1, 0}, {2, 2}}
	for i, gs := range ds.Graphs {
		x := gs.X.Sparse
		if x == nil || gs.X.Dense != nil {
			t.Fatalf("graph %d: want sparse features", i)
		}
		if err := x.Validate(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.Indices, wantCol[i]) || x.Cols != 3 {
			t.Errorf("graph %d: feature columns %v (of %d), want %v", i, x.Indices, x.Cols, wantCol[i])
		}
		for _, v := range x.Data {
			if v != 1 {
				t.Errorf("graph %d: one-hot value %v", i, v)
			}
		}
	}
	// Appending to one graph's slices must not disturb its neighbour.
	_ = append(ds.Graphs[0].Graph.Src, 99)
	_ = append(ds.Graphs[0].X.Sparse.Indices, 99)
	if ds.Graphs[1].X.Sparse.Indices[0] != 2 {
		t.Error("graphs share writable capacity")
	}
}

func TestLoadTUDegreeFeatures(t *testing.T) {
	files := tuSmall()
	delete(files, "node_labels")
	ds, err := LoadTU(tuFS(files), "T", TUOptions{NodeAttr: true}) // no attributes file: ignored
	if err != nil {
		t.Fatal(err)
	}
	// In-degrees: graph 0: node 0 ← {1,2}, node 1 ← {0,2}, node 2 ← {0,1,2}; max 3.
	if ds.NumFeatures != 4 {
		t.Fatalf("NumFeatures = %d, want 4 (max degree 3 + 1)", ds.NumFeatures)
	}
	if got := ds.Graphs[0].X.Sparse.Indices; !slices.Equal(got, []int32{2, 2, 3}) {
		t.Errorf("degree columns %v, want [2 2 3]", got)
	}
	if got := ds.Graphs[2].X.Sparse.Indices; !slices.Equal(got, []int32{0, 0}) {
		t.Errorf("isolated degree columns %v, want [0 0]", got)
	}
}

func TestLoadTUAttributes(t *testing.T) {
	files := tuSmall()
	files["node_attributes"] = "1.5, 2\n0,0\n-1e3,4\n1,1\n2,2\n3,3\n4,4\n5, 5.25\n"
	ds, err := LoadTU(tuFS(files), "T", TUOptions{NodeAttr: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.NumFeatures != 5 {
		t.Fatalf("NumFeatures = %d, want 5", ds.NumFeatures)
	}
	x := ds.Graphs[0].X.Dense
	if x == nil || x.Rows != 3 || x.Cols != 5 {
		t.Fatalf("graph 0 features %+v", x)
	}
	if !slices.Equal(x.Row(2), []float32{1, 0, 0, -1000, 4}) {
		t.Errorf("row 2 = %v", x.Row(2))
	}
	if got := ds.Graphs[3].X.Dense.Row(1); !slices.Equal(got, []float32{0, 0, 1, 5, 5.25}) {
		t.Errorf("graph 3 row 1 = %v", got)
	}
	// Without the option the attributes are left out.
	ds, err = LoadTU(tuFS(files), "T", TUOptions{})
	if err != nil || ds.NumFeatures != 3 || ds.Graphs[0].X.Sparse == nil {
		t.Errorf("without NodeAttr: %v, features %d", err, ds.NumFeatures)
	}
}

// An unsorted indicator is handled: local ids follow the global order.
func TestLoadTUUnsortedIndicator(t *testing.T) {
	files := map[string]string{
		"A":               "1,3\n3,1\n2,4\n4,2\n",
		"graph_indicator": "2\n1\n2\n1\n",
		"graph_labels":    "0\n1\n",
		"node_labels":     "1\n2\n3\n4\n",
		"node_attributes": "1\n2\n3\n4\n",
	}
	ds, err := LoadTU(tuFS(files), "T", TUOptions{NodeAttr: true})
	if err != nil {
		t.Fatal(err)
	}
	// Graph 1 = global nodes 2, 4 (labels 2, 4); graph 2 = nodes 1, 3.
	g1, g2 := ds.Graphs[0], ds.Graphs[1]
	if g1.Graph.N != 2 || !g1.Graph.HasArc(0, 1) || !g1.Graph.HasArc(1, 0) || g1.Graph.NumArcs() != 2 {
		t.Errorf("graph 1: %+v", g1.Graph)
	}
	if !slices.Equal(g1.X.Dense.Data, []float32{0, 1, 0, 0, 2, 0, 0, 0, 1, 4}) {
		t.Errorf("graph 1 features %v", g1.X.Dense.Data)
	}
	if !slices.Equal(g2.X.Dense.Data, []float32{1, 0, 0, 0, 1, 0, 0, 1, 0, 3}) {
		t.Errorf("graph 2 features %v", g2.X.Dense.Data)
	}
}

func TestLoadTUFormatVariants(t *testing.T) {
	// CRLF, tabs, no final newline, several trailing blank lines, multi-column labels.
	files := map[string]string{
		"A":               "1 ,\t2\r\n2,1\r\n\r\n\r\n",
		"graph_indicator": "1\r\n1",
		"graph_labels":    "+1\n\n",
		"node_labels":     "0, 5\n1, 5\n",
	}
	ds, err := LoadTU(tuFS(files), "T", TUOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.NumFeatures != 3 || !slices.Equal(ds.Graphs[0].X.Sparse.Indices, []int32{0, 2, 1, 2}) {
		t.Errorf("features %d, columns %v", ds.NumFeatures, ds.Graphs[0].X.Sparse.Indices)
	}
	// An empty A file: graphs without edges.
	files["A"] = ""
	if ds, err = LoadTU(tuFS(files), "T", TUOptions{}); err != nil || ds.Graphs[0].Graph.NumArcs() != 0 {
		t.Errorf("empty A: %v", err)
	}
}

func TestLoadTUErrors(t *testing.T) {
	cases := []struct {
		name   string
		change map[string]string // "" deletes the file
		file   string            // suffix of the file the error must name
		line   int
		msg    string
	}{
		{"missing A", map[string]string{"A": ""}, "A", 0, "not found"},
		{"missing indicator", map[string]string{"graph_indicator": ""}, "graph_indicator", 0, "not found"},
		{"missing graph labels", map[string]string{"graph_labels": ""}, "graph_labels", 0, "not found"},
		{"edge to missing node", map[string]string{"A": "1,2\n2,9\n"}, "A", 2, "node 9 does not exist"},
		{"edge to node 0", map[string]string{"A": "0,1\n"}, "A", 1, "node 0 does not exist"},
		{"edge across graphs", map[string]string{"A": "1,2\n3,4\n"}, "A", 2, "joins graph 1 and graph 2"},
		{"non-integer A", map[string]string{"A": "1,2\n1;2\n"}, "A", 2, "not an integer"},
		{"one value in A", map[string]string{"A": "1,2\n1\n"}, "A", 2, "1 values, want 2"},
		{"three values in A", map[string]string{"A": "1,2,3\n"}, "A", 1, "more than 2"},
		{"trailing comma", map[string]string{"A": "1,2,\n"}, "A", 1, "not an integer"},
		{"huge id", map[string]string{"A": "99999999999999999999999,1\n"}, "A", 1, "too large"},
		{"blank line inside", map[string]string{"graph_indicator": "1\n1\n\n1\n2\n3\n3\n4\n4\n"}, "graph_indicator", 3, "blank line"},
		{"indicator out of range", map[string]string{"graph_indicator": "1\n1\n1\n2\n3\n3\n4\n5\n"}, "graph_indicator", 8, "outside 1..4"},
		{"indicator zero", map[string]string{"graph_indicator": "0\n1\n1\n2\n3\n3\n4\n4\n"}, "graph_indicator", 1, "outside 1..4"},
		{"empty graph", map[string]string{"graph_indicator": "1\n1\n1\n1\n3\n3\n4\n4\n"}, "graph_labels", 2, "graph 2 has no nodes"},
		{"no graphs", map[string]string{"graph_labels": "\n"}, "graph_labels", 0, "no graphs"},
		{"graph label not integer", map[string]string{"graph_labels": "1\n0.5\n1\n1\n"}, "graph_labels", 2, "not an integer"},
		{"node labels short", map[string]string{"node_labels": "1\n2\n"}, "node_labels", 0, "2 lines, want one per node: 8"},
		{"node labels long", map[string]string{"node_labels": "1\n1\n1\n1\n1\n1\n1\n1\n1\n"}, "node_labels", 0, "9 lines"},
		{"node label not integer", map[string]string{"node_labels": "1\n1\nC\n1\n1\n1\n1\n1\n"}, "node_labels", 3, `"C" is not an integer`},
		{"node label columns", map[string]string{"node_labels": "1\n1\n1,2\n1\n1\n1\n1\n1\n"}, "node_labels", 3, "more than 1"},
		{"NaN attribute", map[string]string{"node_attributes": "1\n2\nNaN\n4\n5\n6\n7\n8\n"}, "node_attributes", 3, "not finite"},
		{"Inf attribute", map[string]string{"node_attributes": "1\n2\n3\n-Inf\n5\n6\n7\n8\n"}, "node_attributes", 4, "not finite"},
		{"overflowing attribute", map[string]string{"node_attributes": "1\n2\n3\n1e60\n5\n6\n7\n8\n"}, "node_attributes", 4, "overflows"},
		{"bad attribute", map[string]string{"node_attributes": "1\n2\n3\nx\n5\n6\n7\n8\n"}, "node_attributes", 4, "not a number"},
		{"attribute columns", map[string]string{"node_attributes": "1\n2\n3\n4,4\n5\n6\n7\n8\n"}, "node_attributes", 4, "2 columns"},
		{"attribute lines", map[string]string{"node_attributes": "1\n2\n"}, "node_attributes", 0, "2 lines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := tuSmall()
			files["node_attributes"] = "1\n2\n3\n4\n5\n6\n7\n8\n"
			for k, v := range c.change {
				if v == "" {
					delete(files, k)
				} else {
					files[k] = v
				}
			}
			_, err := LoadTU(tuFS(files), "T", TUOptions{NodeAttr: true})
			if err == nil {
				t.Fatal("no error")
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FileError", err)
			}
			if want := "mem/T_" + c.file + ".txt"; fe.File != want || fe.Line != c.line {
				t.Errorf("error at %s:%d, want %s:%d (%v)", fe.File, fe.Line, want, c.line, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
			if strings.Contains(c.msg, "not found") && !errors.Is(err, ErrMissing) {
				t.Errorf("missing file error %v is not ErrMissing", err)
			}
		})
	}
	if _, err := LoadTU(tuFS(tuSmall()), "../T", TUOptions{}); err == nil {
		t.Error("name with a slash accepted")
	}
}

// FuzzTU feeds arbitrary A, indicator, graph-label, node-label and
// attribute files through LoadTU: it must return a dataset or a *FileError,
// never panic, and a dataset it returns must be well formed.
func FuzzTU(f *testing.F) {
	s := tuSmall()
	attrs := "1\n2\n3\n4\n5\n6\n7\n8\n"
	f.Add(s["A"], s["graph_indicator"], s["graph_labels"], s["node_labels"], attrs)
	f.Add("1,2\n2,1\n", "1\n1\n2\n2\n3\n3\n4\n4\n", "1\n1\n1\n1\n", "", "")
	f.Add("7,8\n", "4\n4\n1\n3\n1\n2\n1\n3\n", "0\n1\n2\n3\n", "1,2\n3,4\n5,6\n7,8\n1,1\n2,2\n3,3\n4,4\n", "1.5,2\n0,0\n1,1\n1,1\n1,1\n1,1\n1,1\n1,1\n")
	f.Add("1,1\n\n", "1\n2\n3\n4\n", "-1\n1\n-1\n5\n", "-9223372036854775808\n9223372036854775807\n0\n0\n", "NaN\n1\n1\n1\n")
	f.Fuzz(func(t *testing.T, a, ind, gl, nl, attr string) {
		m := fstest.MapFS{
			"T_A.txt":               &fstest.MapFile{Data: []byte(a)},
			"T_graph_indicator.txt": &fstest.MapFile{Data: []byte(ind)},
			"T_graph_labels.txt":    &fstest.MapFile{Data: []byte(gl)},
		}
		if nl != "" {
			m["T_node_labels.txt"] = &fstest.MapFile{Data: []byte(nl)}
		}
		if attr != "" {
			m["T_node_attributes.txt"] = &fstest.MapFile{Data: []byte(attr)}
		}
		ds, err := LoadTU(Source{FS: m, Root: "mem"}, "T", TUOptions{NodeAttr: true})
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FileError", err)
			}
			return
		}
		if ds.NumClasses < 1 || len(ds.ClassNames) != ds.NumClasses || len(ds.Graphs) == 0 {
			t.Fatalf("dataset header %d classes %q, %d graphs", ds.NumClasses, ds.ClassNames, len(ds.Graphs))
		}
		for i, gs := range ds.Graphs {
			g := gs.Graph
			if g.N < 1 || len(g.Ptr) != g.N+1 || g.Ptr[0] != 0 || int(g.Ptr[g.N]) != len(g.Src) {
				t.Fatalf("graph %d malformed: %+v", i, g)
			}
			for v := 0; v < g.N; v++ {
				row := g.InNeighbors(v)
				for j, u := range row {
					if u < 0 || int(u) >= g.N || (j > 0 && row[j-1] >= u) {
						t.Fatalf("graph %d row %d: %v", i, v, row)
					}
				}
			}
			if gs.X.Rows() != g.N || gs.X.Cols() != ds.NumFeatures {
				t.Fatalf("graph %d features %d×%d", i, gs.X.Rows(), gs.X.Cols())
			}
			if x := gs.X.Sparse; x != nil {
				if err := x.Validate(); err != nil {
					t.Fatalf("graph %d features: %v", i, err)
				}
			} else if x := gs.X.Dense; x == nil || len(x.Data) != x.Rows*x.Cols {
				t.Fatalf("graph %d: bad dense features", i)
			} else {
				for _, v := range x.Data {
					if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
						t.Fatalf("graph %d: non-finite feature", i)
					}
				}
			}
			if gs.Label < 0 || int(gs.Label) >= ds.NumClasses {
				t.Fatalf("graph %d label %d", i, gs.Label)
			}
		}
	})
}

// Label values are one-hot encoded as value − min over the range, as PyG
// does: unused values in the range get (all-zero) columns of their own.
func TestLoadTULabelRangeColumns(t *testing.T) {
	files := tuSmall()
	files["node_labels"] = "3\n7\n3\n9\n7\n3\n9\n9\n"
	ds, err := LoadTU(tuFS(files), "T", TUOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.NumFeatures != 7 {
		t.Fatalf("NumFeatures = %d, want 7 (labels 3..9)", ds.NumFeatures)
	}
	if got := ds.Graphs[0].X.Sparse.Indices; !slices.Equal(got, []int32{0, 4, 0}) {
		t.Errorf("graph 0 columns %v, want [0 4 0]", got)
	}
}
