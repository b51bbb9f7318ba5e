package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/stats"
	"github.com/prcaps/prcaps/train"
)

// cell is a cellResult with the given test accuracies for seeds
// first, first+1, ...
func cell(first uint64, accs ...float64) cellResult {
	s := record.Summary{}
	for i, a := range accs {
		s.Results = append(s.Results, train.Result{Seed: first + uint64(i), TestAcc: a})
	}
	s.Summarise()
	return cellResult{sum: s}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestColumnStats: in one column, the best mean, a model below it on all
// ten seeds (not tied after Holm), one level with it (tied), one on other
// seeds (not compared, a note) and a failed one (no stats). The p-values
// are the stats package's on the same pairs.
func TestColumnStats(t *testing.T) {
	best := []float64{.90, .85, .88, .92, .87, .89, .91, .86, .90, .88}
	worse := make([]float64, 10)
	level := make([]float64, 10)
	for i, a := range best {
		worse[i] = a - 0.05 - 0.001*float64(i)
		level[i] = a + 0.01*float64(i%3-1)
	}
	tab := Table{Name: "x", Title: "X", Variants: []Variant{{Label: "A"}, {Label: "B"}, {Label: "C"}, {Label: "D"}, {Label: "E"}}}
	ds := &data.Dataset{Name: "Cora"}
	res := [][]cellResult{{cell(0, worse...)}, {cell(0, best...)}, {cell(0, level...)}, {cell(5, best...)}, {{err: errNotInLog}}}
	out := renderBench(tab, []benchDataset{{"cora", ds}}, res, "proto", nil)

	wantW, _ := stats.Wilcoxon(best, worse)
	wantT, _ := stats.PairedT(best, worse)
	lw, _ := stats.Wilcoxon(best, level)
	holm := stats.Holm([]float64{wantW.P, lw.P})
	if len(out.Stats) != 4 {
		t.Fatalf("stats %+v", out.Stats)
	}
	byModel := map[string]report.CellStats{}
	for _, c := range out.Stats {
		byModel[c.Model] = c
	}
	a, b, c, d := byModel["A"], byModel["B"], byModel["C"], byModel["D"]
	if !b.Best || !b.TiedBest || !math.IsNaN(b.PVsBest) || b.N != 10 || b.Row != 1 || b.Column != "ACC" {
		t.Errorf("best cell %+v", b)
	}
	if a.TiedBest || !a.Paired || !near(a.PVsBest, wantW.P, 1e-12) || !near(a.PTVsBest, wantT.P, 1e-12) || !near(a.PHolm, holm[0], 1e-12) ||
		!near(a.PVsBest, 2.0/1024, 1e-12) {
		t.Errorf("worse cell %+v, want Wilcoxon p %v (2/1024), t p %v, Holm %v, not tied", a, wantW.P, wantT.P, holm[0])
	}
	if !c.TiedBest || !near(c.PHolm, holm[1], 1e-12) {
		t.Errorf("level cell %+v, want tied", c)
	}
	if d.Paired || d.TiedBest || !math.IsNaN(d.PVsBest) {
		t.Errorf("unpaired cell %+v, want not compared", d)
	}
	md := out.Markdown()
	for _, want := range []string{"| B     |     0 |        0.00 | **0.886 ± 0.021** |", "| A     |", "Not compared on Cora, their runs not paired with B's by seed: D (seeds 5-14 against 0-9).",
		"Bold: in each ACC column the highest mean", "A 0.002 (0.004; <0.001), below; C "} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(row(md, "A"), "**") || strings.Contains(row(md, "D"), "**") || !strings.Contains(row(md, "C"), "**") {
		t.Errorf("bold cells wrong:\n%s", md)
	}
}
