package data

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// npzNpy writes a version-1.0 .npy file as numpy does.
func npzNpy(descr string, shape []int, raw []byte) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	s := strings.Join(dims, ", ")
	if len(shape) == 1 {
		s += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, s)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(b[8:], uint16(len(h)))
	return append(append(b, h...), raw...)
}

func npzI64(v ...int64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

// npzMember is one archive entry.
type npzMember struct {
	name string
	data []byte
}

// npzZip writes members into a zip, stored or deflated.
func npzZip(t testing.TB, deflate bool, members []npzMember) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	method := zip.Store
	if deflate {
		method = zip.Deflate
	}
	for _, m := range members {
		f, err := w.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// npzSmallMembers is a 5-node graph stored one-directionally, with a
// self-loop, a duplicate arc and unsorted indices; features with unsorted
// and duplicate columns; an object-array member to be skipped.
func npzSmallMembers() []npzMember {
	// Rows: 0 → {2, 1}, 1 → {1 (self), 2, 2}, 2 → {}, 3 → {4}, 4 → {}.
	adjPtr := []int32{0, 2, 5, 5, 6, 6}
	adjIdx := []int32{2, 1, 1, 2, 2, 4}
	// Features 5×4: row 0 = {3: 1, 0: 2}, row 1 = {1: 1, 1: 4} (duplicate), row 2 empty, row 3 = {2: 7}, row 4 = {0: 1}.
	fPtr := []int32{0, 2, 4, 4, 5, 6}
	fIdx := []int32{3, 0, 1, 1, 2, 0}
	fDat := []float32{1, 2, 1, 4, 7, 1}
	return []npzMember{
		{"adj_data.npy", npzNpy("<f4", []int{6}, pkF32([]float32{1, 1, 1, 1, 1, 1}))},
		{"adj_indices.npy", npzNpy("<i4", []int{6}, pkI32(adjIdx))},
		{"adj_indptr.npy", npzNpy("<i4", []int{6}, pkI32(adjPtr))},
		{"adj_shape.npy", npzNpy("<i8", []int{2}, npzI64(5, 5))},
		{"attr_data.npy", npzNpy("<f4", []int{6}, pkF32(fDat))},
		{"attr_indices.npy", npzNpy("<i4", []int{6}, pkI32(fIdx))},
		{"attr_indptr.npy", npzNpy("<i4", []int{6}, pkI32(fPtr))},
		{"attr_shape.npy", npzNpy("<i8", []int{2}, npzI64(5, 4))},
		{"labels.npy", npzNpy("|i1", []int{5}, []byte{0, 2, 1, 2, 0})},
		{"node_names.npy", npzNpy("<U1", []int{5}, pkI32([]int32{'a', 'b', 'c', 'd', 'e'}))},
		{"class_names.npy", npzNpy("|O", []int{3}, []byte("\x80\x02garbage that is never read"))},
	}
}

func npzWith(members []npzMember, name string, data []byte) []npzMember {
	out := slices.Clone(members)
	for i, m := range out {
		if m.name == name {
			if data == nil {
				return slices.Delete(out, i, i+1)
			}
			out[i].data = data
			return out
		}
	}
	return append(out, npzMember{name, data})
}

func npzSource(b []byte) Source {
	return Source{FS: fstest.MapFS{"g.npz": &fstest.MapFile{Data: b}}, Root: "/data/npz"}
}

func TestLoadNPZSynthetic(t *testing.T) {
	base := npzSmallMembers()
	dense := npzWith(npzWith(npzWith(npzWith(base, "attr_data.npy", nil), "attr_indices.npy", nil), "attr_indptr.npy", nil), "attr_shape.npy", nil)
	dense = npzWith(dense, "attr_matrix.npy", npzNpy("<f8", []int{5, 4}, npzF64(
		2, 0, 0, 1,
		0, 5, 0, 0,
		0, 0, 0, 0,
		0, 0, 7, 0,
		1, 0, 0, 0)))
	cases := []struct {
		name    string
		members []npzMember
		deflate bool
	}{
		{"stored", base, false},
		{"deflated", base, true},
		{"dense-attr", dense, false},
		{"labels-i8-no-adj-data", npzWith(npzWith(base, "labels.npy", npzNpy("<i8", []int{5}, npzI64(0, 2, 1, 2, 0))), "adj_data.npy", nil), false},
		{"labels-u1", npzWith(base, "labels.npy", npzNpy("|u1", []int{5}, []byte{0, 2, 1, 2, 0})), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := LoadNPZ(npzSource(npzZip(t, tc.deflate, tc.members)), "g.npz", "small")
			if err != nil {
				t.Fatal(err)
			}
			g := ds.Graph
			wantPtr := []int32{0, 2, 4, 6, 7, 8}
			wantSrc := []int32{1, 2, 0, 2, 0, 1, 4, 3}
			if ds.Name != "small" || g.N != 5 || !slices.Equal(g.Ptr, wantPtr) || !slices.Equal(g.Src, wantSrc) {
				t.Errorf("graph %+v, want ptr %v src %v", g, wantPtr, wantSrc)
			}
			x := ds.X.Sparse
			if err := x.Validate(); err != nil {
				t.Fatal(err)
			}
			if x.Rows != 5 || x.Cols != 4 || !slices.Equal(x.Indptr, []int32{0, 2, 3, 3, 4, 5}) ||
				!slices.Equal(x.Indices, []int32{0, 3, 1, 2, 0}) || !slices.Equal(x.Data, []float32{2, 1, 5, 7, 1}) {
				t.Errorf("features %+v", x)
			}
			if !slices.Equal(ds.Y, []int32{0, 2, 1, 2, 0}) || ds.NumClasses != 3 || ds.Public != nil {
				t.Errorf("labels %v, %d classes, split %v", ds.Y, ds.NumClasses, ds.Public)
			}
		})
	}
}

func npzF64(v ...float64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func TestLoadNPZBadInput(t *testing.T) {
	base := npzSmallMembers()
	good := npzZip(t, false, base)
	corruptHeader := slices.Clone(npzNpy("<i4", []int{6}, pkI32([]int32{2, 1, 1, 2, 2, 4})))
	copy(corruptHeader[10:], "{'descr' ! '<i4'")
	cases := []struct {
		name string
		in   []byte
		msg  string
	}{
		{"not-zip", []byte("PK\x03\x04 this is not really a zip"), "not a .npz (zip) archive"},
		{"empty", nil, "not a .npz (zip) archive"},
		{"truncated-zip", good[:len(good)/2], "not a .npz (zip) archive"},
		{"corrupt-npy-header", npzZip(t, false, npzWith(base, "adj_indices.npy", corruptHeader)), "member adj_indices.npy: npy: header"},
		{"bad-magic", npzZip(t, false, npzWith(base, "labels.npy", []byte("NUMPY but not really"))), "member labels.npy: npy: not a .npy"},
		{"missing-labels", npzZip(t, false, npzWith(base, "labels.npy", nil)), "member labels.npy: missing from the archive"},
		{"missing-adj-indptr", npzZip(t, false, npzWith(base, "adj_indptr.npy", nil)), "member adj_indptr.npy: missing"},
		{"missing-attr", npzZip(t, false, npzWith(base, "attr_shape.npy", nil)), "attr_shape.npy (or attr_matrix.npy): missing"},
		{"missing-attr-data", npzZip(t, false, npzWith(base, "attr_data.npy", nil)), "member attr_data.npy: missing"},
		{"object-labels", npzZip(t, false, npzWith(base, "labels.npy", npzNpy("|O", []int{5}, nil))), "member labels.npy: npy: object array"},
		{"negative-label", npzZip(t, false, npzWith(base, "labels.npy", npzNpy("|i1", []int{5}, []byte{0, 0xff, 1, 2, 0}))), "node 1 has label -1"},
		{"huge-label", npzZip(t, false, npzWith(base, "labels.npy", npzNpy("<i8", []int{5}, npzI64(0, 1, 1<<40, 0, 0)))), "node 2 has label 1099511627776"},
		{"label-count", npzZip(t, false, npzWith(base, "labels.npy", npzNpy("|i1", []int{4}, []byte{0, 0, 1, 2}))), "labels.npy: shape [4], want (5,)"},
		{"float-labels", npzZip(t, false, npzWith(base, "labels.npy", npzNpy("<f4", []int{5}, pkF32(make([]float32, 5))))), "labels.npy: dtype <f4 is not an integer"},
		{"nan-feature", npzZip(t, false, npzWith(base, "attr_data.npy", npzNpy("<f4", []int{6}, pkF32([]float32{1, 2, float32(math.NaN()), 4, 7, 1})))), "attr: non-finite value NaN at row 1, column 1"},
		{"feature-column", npzZip(t, false, npzWith(base, "attr_indices.npy", npzNpy("<i4", []int{6}, pkI32([]int32{3, 0, 1, 1, 4, 0})))), "column 4, outside [0, 4)"},
		{"feature-rows", npzZip(t, false, npzWith(base, "attr_shape.npy", npzNpy("<i8", []int{2}, npzI64(6, 4)))), "6 feature rows for 5 nodes"},
		{"adj-not-square", npzZip(t, false, npzWith(base, "adj_shape.npy", npzNpy("<i8", []int{2}, npzI64(5, 6)))), "not square"},
		{"adj-shape-3", npzZip(t, false, npzWith(base, "adj_shape.npy", npzNpy("<i8", []int{3}, npzI64(5, 5, 5)))), "not a matrix shape"},
		{"adj-huge", npzZip(t, false, npzWith(base, "adj_shape.npy", npzNpy("<i8", []int{2}, npzI64(1<<30, 1<<30)))), "cannot fit"},
		{"adj-index", npzZip(t, false, npzWith(base, "adj_indices.npy", npzNpy("<i4", []int{6}, pkI32([]int32{2, 1, 1, 2, 2, 5})))), "adj_indices.npy: entry 5 is column 5"},
		{"adj-indptr-order", npzZip(t, false, npzWith(base, "adj_indptr.npy", npzNpy("<i4", []int{6}, pkI32([]int32{0, 3, 2, 5, 6, 6})))), "adj_indptr.npy: row pointer decreases"},
		{"adj-indptr-len", npzZip(t, false, npzWith(base, "adj_indptr.npy", npzNpy("<i4", []int{3}, pkI32([]int32{0, 3, 6})))), "adj_indptr.npy: 3 entries for 5 rows"},
		{"adj-data-len", npzZip(t, false, npzWith(base, "adj_data.npy", npzNpy("<f4", []int{2}, pkF32([]float32{1, 1})))), "adj_data.npy: 2 values for 6 indices"},
		{"adj-2d", npzZip(t, false, npzWith(base, "adj_indices.npy", npzNpy("<i4", []int{2, 3}, pkI32([]int32{2, 1, 1, 2, 2, 4})))), "adj_indices.npy: shape [2 3], want 1-D"},
		{"dense-attr-shape", npzZip(t, false, npzWith(base, "attr_matrix.npy", npzNpy("<f4", []int{4, 1}, pkF32(make([]float32, 4))))), "attr_matrix.npy: shape [4 1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := LoadNPZ(npzSource(tc.in), "g.npz", "g")
			if err == nil {
				t.Fatalf("loaded %d nodes", ds.Graph.N)
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.File != filepath.Join("/data/npz", "g.npz") {
				t.Fatalf("error %v (%T) is not a *FileError naming /data/npz/g.npz", err, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
		})
	}
	_, err := LoadNPZ(npzSource(good), "other.npz", "g")
	if !errors.Is(err, ErrMissing) {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzNPZ fuzzes either a whole archive or, so that the fuzzer gets past
// the zip CRCs, one member that the test then zips: which selects the member
// (which % 12 < 11) or the whole archive (which % 12 == 11).
func FuzzNPZ(f *testing.F) {
	base := npzSmallMembers()
	f.Add(uint8(len(base)), npzZip(f, false, base))
	f.Add(uint8(len(base)), npzZip(f, true, base))
	for i, m := range base {
		f.Add(uint8(i), m.data)
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		if k := int(which) % (len(base) + 1); k < len(base) {
			b = npzZip(t, false, npzWith(base, base[k].name, b))
		}
		ds, err := LoadNPZ(npzSource(b), "g.npz", "g")
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *FileError", err, err)
			}
			return
		}
		planetoidCheckInvariants(t, ds)
	})
}

func TestLoadNPZReal(t *testing.T) {
	root := planetoidDataRoot(t)
	ds, err := LoadNPZ(Dir(filepath.Join(root, "coauthor")), "ms_academic_cs.npz", "cs")
	if err != nil {
		t.Fatal(err)
	}
	g := ds.Graph
	if g.N != 18333 || g.UndirectedEdges() != 81894 || g.NumArcs() != 2*81894 || !g.IsSymmetric() || g.SelfLoops() != 0 {
		t.Errorf("graph: %d nodes, %d edges, %d arcs", g.N, g.UndirectedEdges(), g.NumArcs())
	}
	if ds.X.Rows() != 18333 || ds.X.Cols() != 6805 || ds.X.Sparse.NNZ() != 1092079 {
		t.Errorf("features %d×%d, nnz %d", ds.X.Rows(), ds.X.Cols(), ds.X.Sparse.NNZ())
	}
	if err := ds.X.Sparse.Validate(); err != nil {
		t.Error(err)
	}
	lo, hi := slices.Min(ds.X.Sparse.Data), slices.Max(ds.X.Sparse.Data)
	if lo != 1 || hi != 105 {
		t.Errorf("feature values in [%v, %v], want keyword counts 1..105", lo, hi)
	}
	if ds.NumClasses != 15 || len(ds.Y) != 18333 {
		t.Errorf("%d classes, %d labels", ds.NumClasses, len(ds.Y))
	}
	planetoidCheckInvariants(t, ds)
}

func BenchmarkLoadCS(b *testing.B) {
	root := planetoidDataRoot(b)
	src := Dir(filepath.Join(root, "coauthor"))
	for b.Loop() {
		if _, err := LoadNPZ(src, "ms_academic_cs.npz", "cs"); err != nil {
			b.Fatal(err)
		}
	}
}

// An npz dataset under <root>/npz/ loads by name whatever the case of its
// file name or of the name given, and Find says so without loading it;
// an unknown name is an error naming where it looked.
func TestNPZByNameAnyCase(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "npz"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "npz", "Amazon-Tiny.npz"), npzZip(t, false, npzSmallMembers()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Amazon-Tiny", "amazon-tiny", "AMAZON-TINY"} {
		if err := Find(name, root); err != nil {
			t.Errorf("Find(%q): %v", name, err)
		}
		ds, err := Load(name, Options{Root: root})
		if err != nil {
			t.Errorf("Load(%q): %v", name, err)
			continue
		}
		if ds.Name != "Amazon-Tiny" || ds.Node.Graph.N != 5 {
			t.Errorf("Load(%q): %s with %d nodes", name, ds.Name, ds.Node.Graph.N)
		}
	}
	if err := Find("nosuch", root); err == nil || !strings.Contains(err.Error(), filepath.Join(root, "npz", "nosuch.npz")) {
		t.Errorf("Find(nosuch): %v", err)
	}
	if err := Find("cora", ""); err != nil {
		t.Errorf("Find(cora): %v", err)
	}
}
