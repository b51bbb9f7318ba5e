package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadPlanetoidSynthetic(t *testing.T) {
	cases := []struct {
		name                                    string
		seed                                    uint64
		nTrain, nAll, nTest, gap, cols, classes int
	}{
		{"cora-like", 1, 14, 520, 30, 0, 12, 7},
		{"citeseer-like-gaps", 2, 12, 530, 40, 5, 9, 6},
		{"pubmed-shaped", 3, 6, 700, 100, 0, 5, 3},
		{"no-test", 4, 10, 510, 0, 0, 3, 2},
		{"memo-over-256", 5, 30, 600, 300, 20, 4, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := pkSynthesize(tc.seed, tc.nTrain, tc.nAll, tc.nTest, tc.gap, tc.cols, tc.classes)
			ds, err := LoadPlanetoid(Source{FS: s.fs("syn"), Root: "mem:"}, "syn")
			if err != nil {
				t.Fatal(err)
			}
			planetoidCheckSynth(t, ds, s)
		})
	}
}

func planetoidCheckSynth(t *testing.T, ds *NodeDataset, s *pkSynth) {
	t.Helper()
	if ds.Graph.N != s.n || len(ds.Y) != s.n || ds.X.Rows() != s.n || ds.X.Cols() != s.cols || ds.NumClasses != s.classes {
		t.Fatalf("shape: N %d, labels %d, X %d×%d, classes %d; want N %d, %d features, %d classes",
			ds.Graph.N, len(ds.Y), ds.X.Rows(), ds.X.Cols(), ds.NumClasses, s.n, s.cols, s.classes)
	}
	if !slices.Equal(ds.Y, s.y) {
		t.Errorf("labels differ:\n got %v\nwant %v", ds.Y, s.y)
	}
	x := ds.X.Sparse
	if err := x.Validate(); err != nil {
		t.Fatal(err)
	}
	for v := range s.n {
		if got := x.Indices[x.Indptr[v]:x.Indptr[v+1]]; !slices.Equal(got, s.rows[v]) && len(got)+len(s.rows[v]) > 0 {
			t.Errorf("node %d features %v, want %v", v, got, s.rows[v])
		}
	}
	if ds.Graph.NumArcs() != len(s.arcs) {
		t.Errorf("arcs = %d, want %d", ds.Graph.NumArcs(), len(s.arcs))
	}
	for a := range s.arcs {
		if !ds.Graph.HasArc(int(a[0]), int(a[1])) {
			t.Errorf("arc %v missing", a)
		}
	}
	sp := ds.Public
	if len(sp.Train) != s.train || len(sp.Val) != 500 || len(sp.Test) != len(s.test) {
		t.Errorf("split %d/%d/%d", len(sp.Train), len(sp.Val), len(sp.Test))
	}
	want := slices.Clone(s.test)
	slices.Sort(want)
	if !slices.Equal(sp.Test, want) {
		t.Errorf("test split is not test.index sorted")
	}
	if sp.Train[0] != 0 || int(sp.Train[len(sp.Train)-1]) != s.train-1 || int(sp.Val[0]) != s.train || int(sp.Val[499]) != s.train+499 {
		t.Errorf("train/val ranges wrong")
	}
}

// planetoidSmall is a valid synthetic set shared by the bad-input tests and
// the fuzzer.
func planetoidSmall() *pkSynth { return pkSynthesize(42, 7, 510, 20, 3, 6, 3) }

func TestLoadPlanetoidBadInput(t *testing.T) {
	base := planetoidSmall()
	s := base.files
	nan := func() []byte {
		b := bytes.Clone(s["tx"])
		// The last f4 of the data array sits just before TUPLE, BUILD, SETITEMS, BUILD, STOP.
		binary.LittleEndian.PutUint32(b[len(b)-9:], math.Float32bits(float32(math.NaN())))
		return b
	}
	inf := func() []byte {
		b := bytes.Clone(s["allx"])
		binary.LittleEndian.PutUint32(b[len(b)-9:], math.Float32bits(float32(math.Inf(1))))
		return b
	}
	setByte := func(part string, off int, v byte) []byte {
		b := bytes.Clone(s[part])
		b[off] = v
		return b
	}
	cases := []struct {
		name, part string // part names the file the error must name
		repl       map[string][]byte
		msg        string
		missing    bool
	}{
		{name: "missing-graph", part: "graph", repl: map[string][]byte{"graph": nil}, missing: true},
		{name: "missing-test-index", part: "test.index", repl: map[string][]byte{"test.index": nil}, missing: true},
		{name: "truncated-x", part: "x", repl: map[string][]byte{"x": s["x"][:len(s["x"])/2]}, msg: "unexpected end"},
		{name: "truncated-graph", part: "graph", repl: map[string][]byte{"graph": s["graph"][:len(s["graph"])-1]}, msg: "end of data"},
		{name: "empty-y", part: "y", repl: map[string][]byte{"y": {}}, msg: "protocol-2"},
		{name: "wrong-opcode", part: "graph", repl: map[string][]byte{"graph": setByte("graph", 2, 'Z')}, msg: "offset 2: unknown opcode (0x5a)"},
		{name: "wrong-proto", part: "ally", repl: map[string][]byte{"ally": setByte("ally", 1, 3)}, msg: "protocol 3"},
		{name: "trailing-data", part: "ty", repl: map[string][]byte{"ty": append(bytes.Clone(s["ty"]), 'N')}, msg: "trailing"},
		{name: "nan-feature", part: "tx", repl: map[string][]byte{"tx": nan()}, msg: "non-finite value NaN"},
		{name: "inf-feature", part: "allx", repl: map[string][]byte{"allx": inf()}, msg: "non-finite value +Inf"},
		{name: "label-value-2", part: "ty", repl: map[string][]byte{"ty": pkMatrix(20, 3, append([]int32{2, 0, 0}, make([]int32, 57)...))}, msg: "holds 2"},
		{name: "label-zero-row", part: "ty", repl: map[string][]byte{"ty": pkOneHotZero(20, 3, 5)}, msg: "all zeros"},
		{name: "label-multi-hot", part: "ally", repl: map[string][]byte{"ally": pkMatrix(510, 3, slices.Repeat([]int32{1, 1, 0}, 510))}, msg: "not one-hot"},
		{name: "label-1d", part: "y", repl: map[string][]byte{"y": pkMatrix1D()}, msg: "want 2-D"},
		{name: "labels-not-array", part: "y", repl: map[string][]byte{"y": pkGraph(nil)}, msg: "want a numpy.ndarray"},
		{name: "features-not-csr", part: "x", repl: map[string][]byte{"x": pkOneHot([]int32{0}, 2)}, msg: "want a scipy.sparse.csr_matrix"},
		{name: "y-disagrees-with-ally", part: "y", repl: map[string][]byte{"y": pkOneHot([]int32{0, 0, 0, 0, 0, 0, 0}, 3)}, msg: "of ind.syn.ally has label"},
		{name: "tx-cols", part: "tx", repl: map[string][]byte{"tx": pkCSR(20, 7, make([]int32, 21), nil, nil)}, msg: "7 feature columns"},
		{name: "x-cols", part: "x", repl: map[string][]byte{"x": pkCSR(7, 5, make([]int32, 8), nil, nil)}, msg: "5 feature columns"},
		{name: "y-rows", part: "y", repl: map[string][]byte{"y": pkOneHot([]int32{0}, 3)}, msg: "1 rows, but ind.syn.x has 7"},
		{name: "ty-classes", part: "ty", repl: map[string][]byte{"ty": pkOneHot(make([]int32, 20), 4)}, msg: "4 classes"},
		{name: "tx-rows-vs-index", part: "test.index", repl: map[string][]byte{"test.index": []byte("510\n511\n")}, msg: "2 entries"},
		{name: "too-few-allx-for-val", part: "allx", repl: map[string][]byte{
			"allx": pkCSR(100, 6, make([]int32, 101), nil, nil), "ally": pkOneHot(make([]int32, 100), 3)}, msg: "fewer than the 7 training + 500 validation"},
		{name: "csr-bad-column", part: "tx", repl: map[string][]byte{"tx": pkCSR(20, 6, append(make([]int32, 20), 1), []int32{6}, []float32{1})}, msg: "column 6, outside [0, 6)"},
		{name: "csr-bad-indptr", part: "tx", repl: map[string][]byte{"tx": pkCSR(20, 6, append(make([]int32, 20), 2), []int32{1}, []float32{1})}, msg: "row pointer ends at 2 but there are 1 entries"},
		{name: "csr-indptr-length", part: "x", repl: map[string][]byte{"x": pkCSR(7, 6, make([]int32, 3), nil, nil)}, msg: "indptr has 3 entries for 7 rows"},
		{name: "test-index-text", part: "test.index", repl: map[string][]byte{"test.index": []byte("510\nabc\n")}, msg: ":2: \"abc\""},
		{name: "test-index-negative", part: "test.index", repl: map[string][]byte{"test.index": []byte("-3\n")}, msg: ":1:"},
		{name: "test-index-dup", part: "test.index", repl: map[string][]byte{"test.index": []byte(strings.Repeat("511\n", 20))}, msg: "repeats line 1"},
		{name: "test-index-below-allx", part: "test.index", repl: map[string][]byte{"test.index": pkIndexText(5, 20)}, msg: "below 510"},
		{name: "test-index-huge", part: "test.index", repl: map[string][]byte{"test.index": append(pkIndexText(510, 19), "2000000000\n"...)}, msg: "would have no data"},
		{name: "graph-node-out-of-range", part: "graph", repl: map[string][]byte{"graph": pkGraph(pkAdjWith(533, 0, 533))}, msg: "neighbour 533"},
		{name: "graph-key-out-of-range", part: "graph", repl: map[string][]byte{"graph": pkGraph(make([][]int, 534))}, msg: "node id 533"},
		{name: "graph-not-dict", part: "graph", repl: map[string][]byte{"graph": pkOneHot([]int32{0}, 1)}, msg: "want a dict"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := planetoidReplace(t, Source{FS: base.fs("syn"), Root: "mem:"}, "syn", tc.repl)
			src.Root = "/data/planetoid"
			ds, err := LoadPlanetoid(src, "syn")
			if err == nil {
				t.Fatalf("loaded %d nodes, want an error", ds.Graph.N)
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *FileError", err, err)
			}
			if want := "/data/planetoid/ind.syn." + tc.part; fe.File != want {
				t.Errorf("error names %q, want %q: %v", fe.File, want, err)
			}
			if tc.missing != errors.Is(err, ErrMissing) {
				t.Errorf("errors.Is(ErrMissing) = %v: %v", !tc.missing, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
		})
	}
}

func pkOneHotZero(rows, classes, zeroRow int) []byte {
	v := make([]int32, rows*classes)
	for r := range rows {
		if r != zeroRow {
			v[r*classes] = 1
		}
	}
	return pkMatrix(rows, classes, v)
}

func pkMatrix1D() []byte {
	e := newPkEnc()
	e.ndarray("i4", []int{2}, pkI32([]int32{0, 1}))
	return e.stop()
}

func pkIndexText(from, n int) []byte {
	var b []byte
	for i := range n {
		b = strconv.AppendInt(b, int64(from+i), 10)
		b = append(b, '\n')
	}
	return b
}

// pkAdjWith is an n-node adjacency with one arc u→v.
func pkAdjWith(n, u, v int) [][]int {
	adj := make([][]int, n)
	adj[u] = []int{v}
	return adj
}

func TestLoadPlanetoidMissingNames(t *testing.T) {
	// Unknown datasets get no download hint; known ones do.
	_, err := LoadPlanetoid(Source{FS: fstest.MapFS{}, Root: "/d"}, "mydata")
	if !errors.Is(err, ErrMissing) || strings.Contains(err.Error(), "download") {
		t.Errorf("mydata: %v", err)
	}
	_, err = LoadPlanetoid(Source{FS: fstest.MapFS{}, Root: "/d"}, "CiteSeer")
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), PlanetoidURL+"ind.citeseer.x") ||
		!strings.Contains(err.Error(), "prcaps datasets download citeseer") {
		t.Errorf("citeseer: %v", err)
	}
	for _, bad := range []string{"", "../cora", `a\b`, ".."} {
		if _, err := LoadPlanetoid(Source{FS: fstest.MapFS{}}, bad); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
}

// TestLoadPlanetoidTruncated feeds every prefix of each small synthetic file
// through the whole loader.
func TestLoadPlanetoidTruncated(t *testing.T) {
	base := planetoidSmall()
	for _, part := range []string{"x", "y", "ty", "graph", "test.index"} {
		full := base.files[part]
		step := 1
		if len(full) > 4000 {
			step = 7
		}
		for n := 0; n < len(full); n += step {
			src := planetoidReplace(t, Source{FS: base.fs("syn")}, "syn", map[string][]byte{part: full[:n]})
			ds, err := LoadPlanetoid(src, "syn")
			if err == nil && part == "test.index" && n == len(full)-1 {
				continue // only the final line break is missing: still the same list
			}
			if err == nil {
				t.Fatalf("%s prefix of %d/%d bytes loaded (%d nodes)", part, n, len(full), ds.Graph.N)
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("%s prefix %d: %v is not a *FileError", part, n, err)
			}
		}
	}
}

// planetoidFuzzParts is the order in which FuzzPlanetoid's selector picks a file.
var planetoidFuzzParts = []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"}

func FuzzPlanetoid(f *testing.F) {
	base := planetoidSmall()
	for i, part := range planetoidFuzzParts {
		f.Add(uint8(i), base.files[part])
	}
	f.Add(uint8(6), pkGraph([][]int{{1, 1, 0}, {2}, {}}))
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		part := planetoidFuzzParts[int(which)%len(planetoidFuzzParts)]
		m := base.fs("syn")
		m["ind.syn."+part] = &fstest.MapFile{Data: b}
		ds, err := LoadPlanetoid(Source{FS: m, Root: "mem:"}, "syn")
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || !strings.HasPrefix(fe.File, "mem:") {
				t.Fatalf("error %v (%T) is not a *FileError naming a file", err, err)
			}
			return
		}
		planetoidCheckInvariants(t, ds)
	})
}

// planetoidCheckInvariants checks what every loaded NodeDataset must satisfy.
func planetoidCheckInvariants(t *testing.T, ds *NodeDataset) {
	t.Helper()
	n := ds.Graph.N
	if len(ds.Y) != n || ds.X.Rows() != n {
		t.Fatalf("N %d, %d labels, %d feature rows", n, len(ds.Y), ds.X.Rows())
	}
	if err := ds.X.Sparse.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, v := range ds.X.Sparse.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatal("non-finite feature loaded")
		}
	}
	if !ds.Graph.IsSymmetric() || ds.Graph.SelfLoops() != 0 {
		t.Fatal("graph not symmetric or has self-loops")
	}
	for _, y := range ds.Y {
		if y < -1 || int(y) >= ds.NumClasses {
			t.Fatalf("label %d outside [-1, %d)", y, ds.NumClasses)
		}
	}
	if ds.Public != nil {
		seen := map[int32]bool{}
		for _, s := range [][]int32{ds.Public.Train, ds.Public.Val, ds.Public.Test} {
			for _, v := range s {
				if v < 0 || int(v) >= n || seen[v] || ds.Y[v] < 0 {
					t.Fatalf("split node %d invalid, repeated or unlabelled", v)
				}
				seen[v] = true
			}
		}
	}
}
