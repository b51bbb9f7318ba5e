package data

import (
	"slices"
	"strings"
	"testing"
)

// Re-encoding every MUTAG graph from its raw node labels gives the loaded
// features exactly, and the encoding is the one PyG derives (labels 0..6).
func TestEncodingReproducesMUTAG(t *testing.T) {
	ds, err := Load("mutag", Options{})
	if err != nil {
		t.Fatal(err)
	}
	enc := ds.Graph.Encoding
	if enc.Kind != EncodeLabels || len(enc.Blocks) != 1 || enc.Blocks[0].Lo != 0 || enc.Width() != ds.Graph.NumFeatures {
		t.Fatalf("encoding %+v for %d features", enc, ds.Graph.NumFeatures)
	}
	for i, s := range ds.Graph.Graphs {
		x := s.X.Sparse
		labels := make([]int64, s.Graph.N)
		for v := range labels {
			labels[v] = enc.Blocks[0].Lo + int64(x.Indices[x.Indptr[v]])
		}
		got, err := enc.Encode(s.Graph, labels, nil)
		if err != nil {
			t.Fatal(err)
		}
		y := got.Sparse
		if y == nil || y.Cols != x.Cols || !slices.Equal(y.Indptr, x.Indptr) || !slices.Equal(y.Indices, x.Indices) || !slices.Equal(y.Data, x.Data) {
			t.Fatalf("graph %d: re-encoded features differ", i)
		}
	}
}

// A set loaded with another set's encoding gets that set's columns, and a
// label the encoding does not know is an error naming the file.
func TestTUWithGivenEncoding(t *testing.T) {
	train, err := LoadTU(tuFS(tuSmall()), "T", TUOptions{}) // labels 4..6
	if err != nil {
		t.Fatal(err)
	}
	files := tuSmall()
	files["node_labels"] = "5\n5\n5\n6\n5\n5\n6\n6\n" // only 5 and 6: alone, columns 0 and 1
	alone, err := LoadTU(tuFS(files), "T", TUOptions{})
	if err != nil || alone.NumFeatures != 2 {
		t.Fatalf("alone: %v, %d features", err, alone.NumFeatures)
	}
	with, err := LoadTU(tuFS(files), "T", TUOptions{Encoding: &train.Encoding})
	if err != nil {
		t.Fatal(err)
	}
	if with.NumFeatures != 3 || with.Graphs[0].X.Sparse.Indices[0] != 1 {
		t.Errorf("with the training encoding: %d features, node 1 in column %d; want 3 and 1",
			with.NumFeatures, with.Graphs[0].X.Sparse.Indices[0])
	}
	files["node_labels"] = "5\n5\n9\n6\n5\n5\n6\n6\n"
	_, err = LoadTU(tuFS(files), "T", TUOptions{Encoding: &train.Encoding})
	if err == nil || !strings.Contains(err.Error(), "T_node_labels.txt") || !strings.Contains(err.Error(), "node 3 has label 9") {
		t.Errorf("unknown label: %v", err)
	}
}

func TestEncodeDegreeAndAttributes(t *testing.T) {
	g, err := NewGraph(3, []int32{0, 1, 1, 2}, []int32{1, 0, 2, 1}, EdgeOptions{}) // path 0-1-2
	if err != nil {
		t.Fatal(err)
	}
	enc := NodeEncoding{Kind: EncodeDegree, Degrees: 3, Attributes: 1}
	x, err := enc.Encode(g, nil, []float32{0.5, -1, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{0, 1, 0, 0.5, 0, 0, 1, -1, 0, 1, 0, 2}
	if x.Dense == nil || !slices.Equal(x.Dense.Data, want) {
		t.Errorf("features %v, want %v", x.Dense, want)
	}
	enc.Degrees = 2
	if _, err := enc.Encode(g, nil, []float32{0, 0, 0}); err == nil || !strings.Contains(err.Error(), "node 1 has in-degree 2") {
		t.Errorf("degree beyond the encoding: %v", err)
	}
	bad := []NodeEncoding{{Kind: "bag"}, {Kind: EncodeDegree}, {Kind: EncodeLabels},
		{Kind: EncodeLabels, Blocks: []LabelBlock{{Width: 2, Values: []int64{3, 1}}}}}
	for _, e := range bad {
		if _, err := e.Encode(g, make([]int64, 3*e.LabelColumns()), nil); err == nil {
			t.Errorf("encoding %+v accepted", e)
		}
	}
	lab := NodeEncoding{Kind: EncodeLabels, Blocks: []LabelBlock{{Width: 2, Values: []int64{-7, 1000000}}, {Lo: 3, Width: 2}}}
	x, err = lab.Encode(g, []int64{1000000, 4, -7, 3, -7, 4}, nil)
	if err != nil || !slices.Equal(x.Sparse.Indices, []int32{1, 3, 0, 2, 0, 3}) {
		t.Errorf("two blocks: %v, %v", err, x.Sparse)
	}
}
