package experiment

import (
	"strings"
	"testing"

	"github.com/prcaps/prcaps/report"
)

// The scale suite times PR-CapsNet on two small generated graphs, which it
// learns (5 classes, chance 0.2), and skips a size that cannot fit.
func TestRunScale(t *testing.T) {
	b, err := NewBench(Options{Epochs: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []scaleRecord
	b.Record = func(v any) error { recs = append(recs, v.(scaleRecord)); return nil }
	var tab *report.Table
	b.Emit = func(x *report.Table) error { tab = x; return nil }
	if err := b.RunScale([]int{8000, 3000}); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Edges > recs[1].Edges || len(tab.Rows) != 2 {
		t.Fatalf("records %+v, %d rows: want two, smallest first", recs, len(tab.Rows))
	}
	for _, r := range recs {
		if r.Error != "" || r.EpochSeconds <= 0 || r.NsPerLink <= 0 || r.Links != 2*r.Edges+r.Nodes || r.TestAcc < 0.4 {
			t.Errorf("record %+v: want a timed run that learns the planted classes", r)
		}
	}
	if md := tab.Markdown(); !strings.Contains(md, "Time per link varies by") {
		t.Errorf("table lacks the per-link spread:\n%s", md)
	}

	defer func(f func() int64) { machineMemory = f }(machineMemory)
	machineMemory = func() int64 { return 1 << 20 }
	recs = nil
	if err := b.RunScale([]int{3000}); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || !strings.Contains(recs[0].Error, "would need about") || !strings.Contains(tab.Markdown(), "Not run at 3,000 edges") || len(b.Result().Failures) != 0 {
		t.Errorf("a size beyond memory: record %+v, failures %v", recs, b.Result().Failures)
	}
}

func TestParseEdges(t *testing.T) {
	got, err := ParseEdges(" 1e5, 250000,,1E6 ")
	if err != nil || len(got) != 3 || got[0] != 100_000 || got[1] != 250_000 || got[2] != 1_000_000 {
		t.Errorf("ParseEdges = %v, %v", got, err)
	}
	if got, err := ParseEdges(""); err != nil || got != nil {
		t.Errorf("empty list: %v, %v", got, err)
	}
	for _, bad := range []string{"1.5", "0", "-3", "x", "1e12", "NaN"} {
		if _, err := ParseEdges(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
