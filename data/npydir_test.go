package data

import (
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func smallNodeDataset(t *testing.T) *NodeDataset {
	t.Helper()
	ds, err := GenerateSBM(SBMConfig{Edges: 300, Nodes: 60, Features: 12, NNZ: 3, Classes: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	nd := ds.Node
	nd.Public = &Split{Train: []int32{0, 1, 2, 3}, Val: []int32{10, 11}, Test: []int32{20, 21, 22}}
	return nd
}

func sameNodeDataset(t *testing.T, want, got *NodeDataset) {
	t.Helper()
	if got.Graph.N != want.Graph.N || !slices.Equal(got.Graph.Ptr, want.Graph.Ptr) || !slices.Equal(got.Graph.Src, want.Graph.Src) {
		t.Fatal("graphs differ")
	}
	wx := want.X.Dense
	if wx == nil {
		wx = want.X.Sparse.ToDense()
	}
	if got.X.Dense == nil || got.X.Dense.Rows != wx.Rows || got.X.Dense.Cols != wx.Cols || !slices.Equal(got.X.Dense.Data, wx.Data) {
		t.Fatal("features differ")
	}
	if !slices.Equal(got.Y, want.Y) || got.NumClasses != want.NumClasses {
		t.Fatalf("labels differ: %d classes, want %d", got.NumClasses, want.NumClasses)
	}
	if (want.Public == nil) != (got.Public == nil) {
		t.Fatal("public split differs")
	}
	if want.Public != nil && (!slices.Equal(got.Public.Train, want.Public.Train) || !slices.Equal(got.Public.Val, want.Public.Val) || !slices.Equal(got.Public.Test, want.Public.Test)) {
		t.Fatal("public split differs")
	}
}

func TestNPYDirRoundTrip(t *testing.T) {
	want := smallNodeDataset(t)
	dir := filepath.Join(t.TempDir(), "g")
	if err := SaveNPYDir(dir, want); err != nil {
		t.Fatal(err)
	}
	for _, mmap := range []bool{false, true} {
		got, err := LoadNPYDir(dir, "g", mmap)
		if err != nil {
			t.Fatal(err)
		}
		sameNodeDataset(t, want, got)
		got.X.Dense.Data[0] = 42 // a private mapping: the file does not change
	}
	again, err := LoadNPYDir(dir, "g", true)
	if err != nil {
		t.Fatal(err)
	}
	sameNodeDataset(t, want, again)
	ds, err := Load(dir, Options{})
	if err != nil || ds.Node == nil || ds.Name != "g" {
		t.Fatalf("Load(dir): %v", err)
	}
}

// writeNPY writes a .npy file of little-endian int64 values (the dtype
// numpy gives by default), which the loader converts.
func writeNPYInt64(t *testing.T, p string, v []int64) {
	t.Helper()
	b := npyHeader("<i8", []int{len(v)})
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNPYDirInt64AndErrors(t *testing.T) {
	want := smallNodeDataset(t)
	want.Public = nil
	dir := t.TempDir()
	if err := SaveNPYDir(dir, want); err != nil {
		t.Fatal(err)
	}
	var ptr, src []int64
	for _, v := range want.Graph.Ptr {
		ptr = append(ptr, int64(v))
	}
	for _, v := range want.Graph.Src {
		src = append(src, int64(v))
	}
	writeNPYInt64(t, filepath.Join(dir, NPYIndptr), ptr)
	writeNPYInt64(t, filepath.Join(dir, NPYIndices), src)
	got, err := LoadNPYDir(dir, "g", true)
	if err != nil {
		t.Fatal(err)
	}
	sameNodeDataset(t, want, got)

	for _, tc := range []struct {
		name  string
		edit  func(dir string)
		file  string
		words string
	}{
		{"missing features", func(d string) { os.Remove(filepath.Join(d, NPYFeatures)) }, NPYFeatures, "not found"},
		{"unsorted row", func(d string) {
			s := slices.Clone(src)
			s[0], s[1] = s[1], s[0]
			writeNPYInt64(t, filepath.Join(d, NPYIndices), s)
		}, NPYIndices, "not sorted"},
		{"source out of range", func(d string) {
			s := slices.Clone(src)
			s[len(s)-1] = int64(want.Graph.N)
			writeNPYInt64(t, filepath.Join(d, NPYIndices), s)
		}, NPYIndices, "outside"},
		{"short indices", func(d string) { writeNPYInt64(t, filepath.Join(d, NPYIndices), src[:3]) }, NPYIndices, "shape"},
		{"bad label", func(d string) {
			y := make([]int64, want.Graph.N)
			y[0] = -5
			writeNPYInt64(t, filepath.Join(d, NPYLabels), y)
		}, NPYLabels, "label -5"},
		{"one mask", func(d string) {
			os.WriteFile(filepath.Join(d, NPYTrain), append(npyHeader("|b1", []int{want.Graph.N}), make([]byte, want.Graph.N)...), 0o644)
		}, "", "all three or none"},
		{"not npy", func(d string) { os.WriteFile(filepath.Join(d, NPYLabels), []byte("labels"), 0o644) }, NPYLabels, "magic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			if err := SaveNPYDir(d, want); err != nil {
				t.Fatal(err)
			}
			tc.edit(d)
			_, err := LoadNPYDir(d, "g", true)
			var fe *FileError
			if !errors.As(err, &fe) || !strings.Contains(fe.File, tc.file) || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("error %v, want a FileError naming %q and saying %q", err, tc.file, tc.words)
			}
		})
	}
}

func writeGz(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	z.Write([]byte(text))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// writeOGB writes a 5-node dataset in OGB's raw layout: a directed path
// 0→1→2→3 with a self-loop and a duplicate, 2 features, 2 classes.
func writeOGB(t *testing.T, dir string) {
	writeGz(t, filepath.Join(dir, "raw/edge.csv.gz"), "0,1\n1,2\n2,3\n3,3\n0,1\n")
	writeGz(t, filepath.Join(dir, "raw/node-feat.csv.gz"), "0.5,1\n1,2\n-1,0\n3,3.25\n0,0\n")
	writeGz(t, filepath.Join(dir, "raw/node-label.csv.gz"), "0\n1\n1\nnan\n0.0\n")
	writeGz(t, filepath.Join(dir, "raw/num-node-list.csv.gz"), "5\n")
	writeGz(t, filepath.Join(dir, "split/time/train.csv.gz"), "0\n1\n")
	writeGz(t, filepath.Join(dir, "split/time/valid.csv.gz"), "2\n")
	writeGz(t, filepath.Join(dir, "split/time/test.csv.gz"), "4\n")
}

func TestLoadOGB(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ogb", "ogbn_arxiv")
	writeOGB(t, dir)
	ds, err := Load("ogbn-arxiv", Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	nd := ds.Node
	if nd.Graph.N != 5 || nd.Graph.NumArcs() != 6 || !nd.Graph.IsSymmetric() || nd.Graph.SelfLoops() != 0 {
		t.Fatalf("graph: %d nodes, %d arcs", nd.Graph.N, nd.Graph.NumArcs())
	}
	if !slices.Equal(nd.Y, []int32{0, 1, 1, -1, 0}) || nd.NumClasses != 2 {
		t.Fatalf("labels %v, %d classes", nd.Y, nd.NumClasses)
	}
	if !slices.Equal(nd.X.Dense.Data, []float32{0.5, 1, 1, 2, -1, 0, 3, 3.25, 0, 0}) {
		t.Fatalf("features %v", nd.X.Dense.Data)
	}
	if !slices.Equal(nd.Public.Train, []int32{0, 1}) || !slices.Equal(nd.Public.Val, []int32{2}) || !slices.Equal(nd.Public.Test, []int32{4}) {
		t.Fatalf("split %+v", nd.Public)
	}
	if ds2, err := Load(dir, Options{}); err != nil || ds2.Node.Graph.NumArcs() != 6 {
		t.Fatalf("Load(path): %v", err)
	}
	// Missing files are named.
	if _, err := Load("ogbn-arxiv", Options{Root: t.TempDir()}); !errors.Is(err, ErrNeedsData) || !strings.Contains(err.Error(), "ogbn_arxiv") {
		t.Fatalf("no files: %v", err)
	}
	for _, tc := range []struct{ file, text, words string }{
		{"raw/node-label.csv.gz", "", "not found"},
		{"raw/edge.csv.gz", "0,1\n1,9\n", "outside"},
		{"raw/edge.csv.gz", "0,1,2\n", "more than 2"},
		{"raw/node-feat.csv.gz", "1,2\n3\n", "the first row has 2"},
		{"raw/node-label.csv.gz", "0\n1\nx\n0\n0\n", "not an integer"},
		{"raw/num-node-list.csv.gz", "6\n", "nodes"},
		{"split/time/test.csv.gz", "7\n", "outside"},
	} {
		d := filepath.Join(t.TempDir(), "x")
		writeOGB(t, d)
		p := filepath.Join(d, tc.file)
		if tc.text == "" {
			os.Remove(p)
		} else {
			writeGz(t, p, tc.text)
		}
		_, err := LoadOGB(d, "x", "")
		var fe *FileError
		if !errors.As(err, &fe) || !strings.HasSuffix(filepath.ToSlash(fe.File), tc.file) || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%s %q: error %v, want one naming the file and saying %q", tc.file, tc.text, err, tc.words)
		}
	}
	// Not gzip.
	d := filepath.Join(t.TempDir(), "x")
	writeOGB(t, d)
	os.WriteFile(filepath.Join(d, "raw/edge.csv.gz"), []byte("0,1\n"), 0o644)
	if _, err := LoadOGB(d, "x", ""); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("plain text as .gz: %v", err)
	}
}
