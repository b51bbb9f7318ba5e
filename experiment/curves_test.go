package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/train"
)

// A run with Curves writes one record per epoch of every run, in order,
// with PR-CapsNet's curvatures (the network's β and four β_k); a failed
// run leaves an existing file as it was.
func TestCurvesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "curves.jsonl")
	ds := embedded(t, "cora")
	c, err := NewCurves(path, ds.Name, "prcapsnet")
	if err != nil {
		t.Fatal(err)
	}
	r := Run{Model: "prcapsnet", Dataset: ds, Node: train.NodeProtocol{Seeds: 2}, Train: train.Config{Epochs: 3, LR: 0.005}, Curves: c}
	if _, err := r.Do(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := record.ReadCurves(b, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 {
		t.Fatalf("%d records, want 2 runs × 3 epochs", len(recs))
	}
	for i, rec := range recs {
		if rec.Run != i/3 || rec.Epoch != i%3+1 || rec.Dataset != "Cora" || rec.Model != "prcapsnet" || len(rec.Curvatures) != 5 ||
			rec.Curvatures[0].Name != "beta" || !(rec.Curvatures[0].Beta < 0) || !(rec.LR > 0) {
			t.Fatalf("record %d: %+v", i, rec)
		}
	}
	if !recs[0].Best {
		t.Error("the first epoch is the best so far")
	}
	// A failing run (an invalid learning rate) leaves the file alone.
	c2, err := NewCurves(path, ds.Name, "prcapsnet")
	if err != nil {
		t.Fatal(err)
	}
	bad := Run{Model: "prcapsnet", Dataset: ds, Train: train.Config{Epochs: 1, LR: -1}, Curves: c2}
	if _, err := bad.Do(); err == nil {
		t.Fatal("lr −1 trained")
	}
	if b2, _ := os.ReadFile(path); string(b2) != string(b) {
		t.Error("a failed run changed the curves file")
	}
	if _, err := record.ReadCurves([]byte(`{"run":0,"epoch":0}`), "x.jsonl"); err == nil || !strings.Contains(err.Error(), "x.jsonl") {
		t.Errorf("epoch 0: %v", err)
	}
	if _, err := record.ReadCurves([]byte(`{"run":0,"epoch":1,"surprise":1}`), "x.jsonl"); err == nil {
		t.Error("an unknown field was read")
	}
}
