package data

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// plainWrite writes the named files into a temporary directory and returns
// their paths ("" for a name with no content given).
func plainWrite(t *testing.T, files map[string]string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	paths := map[string]string{}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

func TestLoadPlain(t *testing.T) {
	p := plainWrite(t, map[string]string{
		"karate.csv": "src,dst\n0,1\n1,0\n1,2 # comment\n\n# whole-line comment\n2,2\n3,1,0.5\r\n",
		"feat.tsv":   "id\tf1\tf2\n0\t1\t0\n1 0.5 -2\n2\t0\t0\n3\t1e-3\t7\n",
		"labels.csv": "id,label\n0,1\n3,0\n2, 2\n",
	})
	ds, err := LoadPlain(p["karate.csv"], p["feat.tsv"], p["labels.csv"])
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "karate" || ds.Graph.N != 4 || ds.NumClasses != 3 {
		t.Fatalf("name %q, N %d, classes %d", ds.Name, ds.Graph.N, ds.NumClasses)
	}
	g := ds.Graph
	if g.NumArcs() != 6 || !g.IsSymmetric() || g.SelfLoops() != 0 || !g.HasArc(3, 1) || !g.HasArc(1, 3) {
		t.Errorf("graph %v / %v", g.Ptr, g.Src)
	}
	if !slices.Equal(ds.Y, []int32{1, -1, 2, 0}) {
		t.Errorf("Y = %v", ds.Y)
	}
	x := ds.X.Dense
	if x == nil || x.Rows != 4 || x.Cols != 2 || !slices.Equal(x.Row(1), []float32{0.5, -2}) || x.At(3, 0) != 1e-3 {
		t.Errorf("X = %+v", x)
	}
	if ds.Public != nil {
		t.Error("plain dataset has a public split")
	}
}

func TestLoadPlainDefaults(t *testing.T) {
	// No features: one constant column. String labels: sorted classes.
	// Node 5 appears only in the labels: isolated.
	p := plainWrite(t, map[string]string{
		"e.txt": "0 1\n1\t2\n",
		"l.txt": "0 cat\n1 dog\n2 ant\n5 cat\n",
	})
	ds, err := LoadPlain(p["e.txt"], "", p["l.txt"])
	if err != nil {
		t.Fatal(err)
	}
	if ds.Graph.N != 6 || ds.Graph.InDegree(5) != 0 || ds.NumClasses != 3 {
		t.Fatalf("N %d, classes %d", ds.Graph.N, ds.NumClasses)
	}
	if !slices.Equal(ds.Y, []int32{1, 2, 0, -1, -1, 1}) {
		t.Errorf("Y = %v (ant=0, cat=1, dog=2)", ds.Y)
	}
	if x := ds.X.Dense; x.Cols != 1 || x.Rows != 6 || slices.ContainsFunc(x.Data, func(v float32) bool { return v != 1 }) {
		t.Errorf("default features %+v", x)
	}
}

// LoadPlainDataset wraps LoadPlain's dataset as a node-task Dataset read
// from the edges file, and passes its errors on.
func TestLoadPlainDataset(t *testing.T) {
	p := plainWrite(t, map[string]string{"e.txt": "0 1\n1 2\n", "l.txt": "0 a\n2 b\n"})
	ds, err := LoadPlainDataset(p["e.txt"], "", p["l.txt"])
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "e" || ds.Task != NodeTask || ds.Node == nil || ds.Graph != nil || ds.From != p["e.txt"] || ds.Node.Graph.N != 3 {
		t.Fatalf("dataset %+v", ds)
	}
	if _, err := LoadPlainDataset(p["e.txt"]+".missing", "", ""); !errors.Is(err, ErrMissing) {
		t.Errorf("a missing edges file: %v, want ErrMissing", err)
	}
}

func TestLoadPlainErrors(t *testing.T) {
	good := map[string]string{
		"e": "0,1\n1,2\n",
		"f": "0,1\n1,2\n2,3\n",
		"l": "0,0\n1,1\n",
	}
	cases := []struct {
		name   string
		change map[string]string
		file   string
		line   int
		msg    string
	}{
		{"bad edge id", map[string]string{"e": "0,1\n1,x\n"}, "e", 2, `target "x" is not an integer`},
		{"negative id", map[string]string{"e": "0,1\n-1,2\n"}, "e", 2, "outside"},
		{"one field", map[string]string{"e": "0,1\n1\n"}, "e", 2, "want at least 2"},
		{"huge id", map[string]string{"e": "0,1\n1,2000000000\n"}, "e", 2, "far beyond"},
		{"missing features", map[string]string{"f": "0,1\n2,3\n"}, "f", 0, "node 1 has no feature record"},
		{"duplicate features", map[string]string{"f": "0,1\n1,2\n2,3\n1,4\n"}, "f", 4, "already has features on line 2"},
		{"NaN feature", map[string]string{"f": "0,1\n1,NaN\n2,3\n"}, "f", 2, "not a finite"},
		{"huge feature", map[string]string{"f": "0,1\n1,1e300\n2,3\n"}, "f", 2, "not a finite"},
		{"bad feature", map[string]string{"f": "0,1\n1,abc\n2,3\n"}, "f", 2, "not a number"},
		{"ragged features", map[string]string{"f": "0,1\n1,2,3\n2,3\n"}, "f", 2, "2 features"},
		{"negative label", map[string]string{"l": "0,0\n1,-1\n"}, "l", 2, "negative"},
		{"duplicate label", map[string]string{"l": "0,0\n1,1\n0,1\n"}, "l", 3, "already labelled on line 1"},
		{"label fields", map[string]string{"l": "0,0\n1,1,2\n"}, "l", 2, "want 2"},
		{"no labels", map[string]string{"l": "# nothing\n"}, "l", 0, "no labels"},
		{"huge label", map[string]string{"l": "0,0\n1,99999\n"}, "l", 2, "far beyond"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range good {
				files[k] = v
			}
			for k, v := range c.change {
				files[k] = v
			}
			p := plainWrite(t, files)
			_, err := LoadPlain(p["e"], p["f"], p["l"])
			if err == nil {
				t.Fatal("no error")
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FileError", err)
			}
			if fe.File != p[c.file] || fe.Line != c.line {
				t.Errorf("error at %s:%d, want %s:%d (%v)", fe.File, fe.Line, p[c.file], c.line, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
		})
	}
	p := plainWrite(t, good)
	if _, err := LoadPlain(p["e"], "", filepath.Join(filepath.Dir(p["e"]), "nope")); !errors.Is(err, ErrMissing) {
		t.Errorf("missing labels file: %v", err)
	}
	// A UTF-8 byte-order mark is not part of the first record.
	bom := plainWrite(t, map[string]string{"e": good["e"], "l": "\ufeff0,3\n1,1\n"})
	if ds, err := LoadPlain(bom["e"], "", bom["l"]); err != nil || ds.Y[0] != 3 || ds.NumClasses != 4 {
		t.Errorf("labels with a BOM: %v, %+v", err, ds)
	}
	// Without a labels file every node is unlabelled (prediction input).
	if ds, err := LoadPlain(p["e"], "", ""); err != nil || ds.NumClasses != 0 || slices.ContainsFunc(ds.Y, func(y int32) bool { return y != -1 }) {
		t.Errorf("no labels file: %v, %d classes, labels %v", err, ds.NumClasses, ds.Y)
	}
	if _, err := LoadPlain("", "", p["l"]); err == nil {
		t.Error("no edges file accepted")
	}
}

// FuzzPlain feeds arbitrary edge, feature and label files through the plain
// parser: a dataset or a *FileError, never a panic.
func FuzzPlain(f *testing.F) {
	f.Add("src,dst\n0,1\n1,2 # c\n", "0,1\n1,2\n2,3\n", "id,label\n0,a\n2,b\n", true)
	f.Add("0 1\n1\t2\n2 2\n", "", "0 0\n1 1\n", false)
	f.Add("0,1\n", "0,NaN\n1,2\n", "0,-1\n", true)
	f.Fuzz(func(t *testing.T, e, feat, lab string, withFeat bool) {
		var ff *plainFile
		if withFeat {
			ff = &plainFile{path: "f", data: []byte(feat)}
		}
		ds, err := plainParse("x", plainFile{path: "e", data: []byte(e)}, ff, plainFile{path: "l", data: []byte(lab)})
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FileError", err)
			}
			return
		}
		n := ds.Graph.N
		if len(ds.Y) != n || ds.X.Rows() != n || ds.Graph.SelfLoops() != 0 || !ds.Graph.IsSymmetric() {
			t.Fatalf("malformed dataset: N %d, %d labels, %d feature rows", n, len(ds.Y), ds.X.Rows())
		}
		for _, y := range ds.Y {
			if y < -1 || int(y) >= ds.NumClasses {
				t.Fatalf("label %d of %d classes", y, ds.NumClasses)
			}
		}
	})
}
