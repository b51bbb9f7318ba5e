package data

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// planetoidDataRoot returns $PRCAPS_DATA or skips the test.
func planetoidDataRoot(t testing.TB) string {
	t.Helper()
	root := os.Getenv("PRCAPS_DATA")
	if root == "" {
		t.Skip("PRCAPS_DATA is not set")
	}
	return root
}

// planetoidStats are the MANIFEST.md statistics of a Planetoid set.
type planetoidStats struct {
	name               string
	nodes, edges, arcs int
	features, classes  int
	nnz                int // allx + tx
	train, val, test   int
	unlabeled          int // placeholder test ids with no data
	testLo             int
}

var planetoidReal = []planetoidStats{
	{name: "cora", nodes: 2708, edges: 5278, arcs: 10556, features: 1433, classes: 7, nnz: 31261 + 17955,
		train: 140, val: 500, test: 1000, testLo: 1708},
	{name: "citeseer", nodes: 3327, edges: 4552, arcs: 9104, features: 3703, classes: 6, nnz: 73173 + 31992,
		train: 120, val: 500, test: 1000, unlabeled: 15, testLo: 2312},
}

func planetoidCheckStats(t *testing.T, ds *NodeDataset, want planetoidStats) {
	t.Helper()
	g := ds.Graph
	if g.N != want.nodes || len(ds.Y) != want.nodes || ds.X.Rows() != want.nodes {
		t.Errorf("nodes: graph %d, labels %d, feature rows %d; want %d", g.N, len(ds.Y), ds.X.Rows(), want.nodes)
	}
	if got := g.UndirectedEdges(); got != want.edges {
		t.Errorf("undirected edges = %d, want %d", got, want.edges)
	}
	if got := g.NumArcs(); got != want.arcs {
		t.Errorf("arcs = %d, want %d", got, want.arcs)
	}
	if !g.IsSymmetric() || g.SelfLoops() != 0 {
		t.Errorf("graph symmetric %v, self-loops %d; want symmetric without self-loops", g.IsSymmetric(), g.SelfLoops())
	}
	if ds.X.Sparse == nil || ds.X.Dense != nil {
		t.Fatalf("features are not sparse-only")
	}
	if err := ds.X.Sparse.Validate(); err != nil {
		t.Errorf("features: %v", err)
	}
	if got := ds.X.Cols(); got != want.features {
		t.Errorf("features = %d, want %d", got, want.features)
	}
	if got := ds.X.Sparse.NNZ(); got != want.nnz {
		t.Errorf("feature nnz = %d, want %d", got, want.nnz)
	}
	if ds.NumClasses != want.classes {
		t.Errorf("classes = %d, want %d", ds.NumClasses, want.classes)
	}
	unl := 0
	seen := make([]bool, want.classes)
	for v, y := range ds.Y {
		switch {
		case y == -1:
			unl++
			if n := ds.X.Sparse.Indptr[v+1] - ds.X.Sparse.Indptr[v]; n != 0 {
				t.Errorf("unlabelled node %d has %d features", v, n)
			}
		case y < 0 || int(y) >= want.classes:
			t.Fatalf("node %d label %d out of range", v, y)
		default:
			seen[y] = true
		}
	}
	if unl != want.unlabeled {
		t.Errorf("unlabelled nodes = %d, want %d", unl, want.unlabeled)
	}
	if slices.Contains(seen, false) {
		t.Errorf("some class has no node: %v", seen)
	}
	sp := ds.Public
	if sp == nil {
		t.Fatal("no public split")
	}
	if len(sp.Train) != want.train || len(sp.Val) != want.val || len(sp.Test) != want.test {
		t.Errorf("split sizes %d/%d/%d, want %d/%d/%d", len(sp.Train), len(sp.Val), len(sp.Test), want.train, want.val, want.test)
	}
	if !slices.IsSorted(sp.Test) || sp.Test[0] != int32(want.testLo) || int(sp.Test[len(sp.Test)-1]) != want.nodes-1 {
		t.Errorf("test ids not sorted or not in [%d, %d]", want.testLo, want.nodes-1)
	}
	in := map[int32]int{}
	for _, s := range [][]int32{sp.Train, sp.Val, sp.Test} {
		for _, v := range s {
			in[v]++
			if ds.Y[v] < 0 {
				t.Errorf("split node %d has no label", v)
			}
		}
	}
	for v, c := range in {
		if c != 1 {
			t.Errorf("node %d is in %d split sets", v, c)
		}
	}
	// Public train set: 20 nodes per class.
	per := make([]int, want.classes)
	for _, v := range sp.Train {
		per[ds.Y[v]]++
	}
	for c, n := range per {
		if n != 20 {
			t.Errorf("class %d has %d training nodes, want 20", c, n)
		}
	}
}

func TestLoadPlanetoidReal(t *testing.T) {
	root := planetoidDataRoot(t)
	src := Dir(filepath.Join(root, "planetoid"))
	for _, want := range planetoidReal {
		t.Run(want.name, func(t *testing.T) {
			ds, err := LoadPlanetoid(src, want.name)
			if err != nil {
				t.Fatal(err)
			}
			if ds.Name != want.name {
				t.Errorf("name %q", ds.Name)
			}
			planetoidCheckStats(t, ds, want)
		})
	}
}

func TestLoadPlanetoidRealPubMedMissingAllx(t *testing.T) {
	root := planetoidDataRoot(t)
	src := Dir(filepath.Join(root, "planetoid"))
	if src.Exists("ind.pubmed.allx") {
		t.Skip("ind.pubmed.allx is present")
	}
	_, err := LoadPlanetoid(src, "PubMed")
	var fe *FileError
	if !errors.As(err, &fe) || !errors.Is(err, ErrMissing) {
		t.Fatalf("err = %v, want a *FileError wrapping ErrMissing", err)
	}
	for _, s := range []string{filepath.Join(root, "planetoid", "ind.pubmed.allx"),
		"https://github.com/kimiyoung/planetoid/raw/master/data/ind.pubmed.allx", "prcaps datasets download pubmed"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

// TestLoadPlanetoidRealPubMedParts decodes the PubMed files that are here.
func TestLoadPlanetoidRealPubMedParts(t *testing.T) {
	root := planetoidDataRoot(t)
	src := Dir(filepath.Join(root, "planetoid"))
	// Stand in for the missing allx: 18717 rows of 500 TF-IDF-like columns.
	const na, cols = 18717, 500
	ptr, idx, val := make([]int32, na+1), make([]int32, na), make([]float32, na)
	for i := range na {
		ptr[i+1], idx[i], val[i] = int32(i+1), int32(i%cols), 0.5
	}
	ds, err := LoadPlanetoid(planetoidReplace(t, src, "pubmed", map[string][]byte{"allx": pkCSR(na, cols, ptr, idx, val)}), "pubmed")
	if err != nil {
		t.Fatal(err)
	}
	if ds.Graph.N != 19717 || ds.Graph.UndirectedEdges() != 44324 || ds.Graph.NumArcs() != 88648 {
		t.Errorf("pubmed graph: %d nodes, %d edges, %d arcs; want 19717, 44324, 88648",
			ds.Graph.N, ds.Graph.UndirectedEdges(), ds.Graph.NumArcs())
	}
	if ds.NumClasses != 3 || ds.X.Cols() != 500 || len(ds.Public.Train) != 60 || len(ds.Public.Test) != 1000 {
		t.Errorf("pubmed: %d classes, %d features, %d train, %d test", ds.NumClasses, ds.X.Cols(), len(ds.Public.Train), len(ds.Public.Test))
	}
}

func TestEmbeddedCoraMatchesDataDir(t *testing.T) {
	emb, err := Embedded().Sub("planetoid")
	if err != nil {
		t.Fatal(err)
	}
	a, err := LoadPlanetoid(emb, "cora")
	if err != nil {
		t.Fatal(err)
	}
	planetoidCheckStats(t, a, planetoidReal[0])
	// Class sizes as PyG's Planetoid('Cora') reports them.
	counts := make([]int, 7)
	for _, y := range a.Y {
		counts[y]++
	}
	if want := []int{351, 217, 418, 818, 426, 298, 180}; !slices.Equal(counts, want) {
		t.Errorf("class sizes %v, want %v", counts, want)
	}
	root := os.Getenv("PRCAPS_DATA")
	if root == "" {
		return
	}
	b, err := LoadPlanetoid(Dir(filepath.Join(root, "planetoid")), "cora")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Y, b.Y) || !slices.Equal(a.Graph.Ptr, b.Graph.Ptr) || !slices.Equal(a.Graph.Src, b.Graph.Src) ||
		!slices.Equal(a.X.Sparse.Indptr, b.X.Sparse.Indptr) || !slices.Equal(a.X.Sparse.Indices, b.X.Sparse.Indices) ||
		!slices.Equal(a.X.Sparse.Data, b.X.Sparse.Data) || !slices.Equal(a.Public.Test, b.Public.Test) {
		t.Error("embedded Cora differs from the data directory's")
	}
}

func BenchmarkLoadCora(b *testing.B) {
	src, err := Embedded().Sub("planetoid")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := LoadPlanetoid(src, "cora"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadCiteSeer(b *testing.B) {
	src := Dir(filepath.Join(planetoidDataRoot(b), "planetoid"))
	for b.Loop() {
		if _, err := LoadPlanetoid(src, "citeseer"); err != nil {
			b.Fatal(err)
		}
	}
}
