package experiment

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

func TestChooseFold(t *testing.T) {
	for _, c := range []struct {
		vals []float64
		want int
	}{
		{[]float64{0.5}, 0},
		{[]float64{0.5, 0.7, 0.6}, 1},
		{[]float64{0.7, 0.7, 0.6}, 0}, // a tie: the first in grid order
		{[]float64{0.6, 0.7, 0.7}, 1},
		{[]float64{0.1, 0.2, 0.3, 0.9}, 3},
	} {
		if got := chooseFold(c.vals); got != c.want {
			t.Errorf("chooseFold(%v) = %d, want %d", c.vals, got, c.want)
		}
	}
}

// selectionGrids is the tests' grid: the MLP at two widths.
func selectionGrids(t *testing.T) []SelectGrid {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mlp.json")
	if err := os.WriteFile(path, []byte(`{"model": "mlp", "options": {"hidden": [8, 64]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := ReadSelectGrid(path)
	if err != nil {
		t.Fatal(err)
	}
	return []SelectGrid{g}
}

// runSelection runs the selection on MUTAG, 3 folds of 3 epochs, with
// log (and shard, or the merge of logs with LogOnly), returning its table
// (nil for a shard), its records and its plan.
func runSelection(t *testing.T, grids []SelectGrid, log string, shard Shard, merge []string) (*report.Table, []record.SelectRecord, ShardPlan) {
	t.Helper()
	opt := Options{Folds: 3, Epochs: 3, Parallel: 2, Log: log, Shard: shard, Logs: merge, LogOnly: len(merge) > 0}
	b, err := NewBench(opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	sel := SelectedTable([]string{"mutag"}, grids)
	if shard.Sharded() {
		p, err := b.RunSelectionShard(sel)
		if err != nil {
			t.Fatal(err)
		}
		return nil, nil, p
	}
	var tab *report.Table
	var recs []record.SelectRecord
	b.Emit = func(x *report.Table) error { tab = x; return nil }
	b.Record = func(v any) error { recs = append(recs, v.(record.SelectRecord)); return nil }
	if err := b.RunSelection(sel); err != nil {
		t.Fatal(err)
	}
	return tab, recs, ShardPlan{}
}

// readFolds reads a fold log as records.
func readFolds(t *testing.T, path string) []record.FoldRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record.FoldRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record.FoldRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func writeFolds(t *testing.T, path string, recs []record.FoldRecord) {
	t.Helper()
	var b []byte
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, line...), '\n')
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSelectionProtocol checks the protocol against its own fold log:
// every fold chose the grid point of the highest validation accuracy
// (ties: the first), retrained it three times from seeds first-seed +
// r·folds + fold, and scored the mean of their test accuracies; the cell
// is the mean ± std of the folds' scores. A rerun with the log trains
// nothing and renders the same table.
func TestSelectionProtocol(t *testing.T) {
	grids := selectionGrids(t)
	log := filepath.Join(t.TempDir(), "sel.jsonl")
	tab, recs, _ := runSelection(t, grids, log, Shard{}, nil)
	logged := readFolds(t, log)
	if want := 2*3 + Retrains*3; len(logged) != want {
		t.Fatalf("%d fold records; want %d (2 points × 3 folds of trials, 3 retrains × 3 folds)", len(logged), want)
	}
	byLabel := map[string]map[int]train.Result{}
	for _, r := range logged {
		if byLabel[r.Label] == nil {
			byLabel[r.Label] = map[int]train.Result{}
		}
		byLabel[r.Label][r.Fold] = r.Result
	}
	if len(recs) != 1 || len(recs[0].Folds) != 3 || recs[0].MeanAcc == nil {
		t.Fatalf("records %+v; want one whole record of 3 folds", recs)
	}
	rec := recs[0]
	label := func(k, r int) string {
		l := fmt.Sprintf("t2-selected: structure-agnostic MLP point %d (%s)", k+1, rec.Points[k])
		if r > 0 {
			l += fmt.Sprintf(" retrain %d", r)
		}
		return l + " on MUTAG"
	}
	var accs []float64
	for f, got := range rec.Folds {
		vals := []float64{byLabel[label(0, 0)][f].ValAcc, byLabel[label(1, 0)][f].ValAcc}
		k := 0
		if vals[1] > vals[0] {
			k = 1
		}
		if got.Fold != f || got.Chosen != k+1 || got.Options != rec.Points[k] || !slices.Equal(got.ValAccs, vals) {
			t.Errorf("fold %d: %+v; want point %d chosen on validation %v", f, got, k+1, vals)
		}
		var tests []float64
		for r := 1; r <= Retrains; r++ {
			res, ok := byLabel[label(k, r)][f]
			if !ok {
				t.Fatalf("fold %d: retrain %d of point %d not logged", f, r, k+1)
			}
			if want := uint64(r*3 + f); res.Seed != want {
				t.Errorf("fold %d retrain %d: seed %d, want %d", f, r, res.Seed, want)
			}
			tests = append(tests, res.TestAcc)
			if _, other := byLabel[label(1-k, r)][f]; other {
				t.Errorf("fold %d: the point not chosen was retrained", f)
			}
		}
		if !slices.Equal(got.TestAccs, tests) || got.TestAcc != mean(tests) {
			t.Errorf("fold %d: test %v (mean %v); want the retrains' %v", f, got.TestAccs, got.TestAcc, tests)
		}
		accs = append(accs, got.TestAcc)
	}
	m := mean(accs)
	if *rec.MeanAcc != m {
		t.Errorf("mean %v, want %v", *rec.MeanAcc, m)
	}
	if cell := tab.Rows[0][3]; cell != report.MeanStd(*rec.MeanAcc, *rec.StdAcc) || !strings.Contains(cell, "±") {
		t.Errorf("ACC cell %q", cell)
	}
	md := tab.Markdown()
	if !strings.Contains(md, "point chosen per fold (folds 0-2)") || !strings.Contains(md, "points 1: hidden=8; 2: hidden=64") {
		t.Errorf("table does not give the choices:\n%s", md)
	}
	again, _, _ := runSelection(t, grids, log, Shard{}, nil)
	if logLines(t, log) != len(logged) {
		t.Errorf("rerun with the log trained again: %d lines", logLines(t, log))
	}
	if got, want := withoutSelectionCost(again), withoutSelectionCost(tab); got != want {
		t.Errorf("rerun's table differs:\n%s\nwant\n%s", got, want)
	}
}

// withoutSelectionCost is the table's Markdown without what a rerun
// cannot reproduce: the cost (wall time) and the note naming the logs.
func withoutSelectionCost(tab *report.Table) string {
	c := *tab
	c.Rows = nil
	for _, r := range tab.Rows {
		r = slices.Clone(r)
		for i, col := range c.Columns {
			if strings.Contains(col, "Cost") {
				r[i] = "-"
			}
		}
		c.Rows = append(c.Rows, r)
	}
	c.Notes = slices.DeleteFunc(slices.Clone(tab.Notes), func(n string) bool { return strings.Contains(n, " were read from ") })
	return c.Markdown()
}

// TestSelectionShardsMerge: three shards, each rerun training nothing,
// merge to the unsharded table (but its cost); two of them leave the
// missing folds named.
func TestSelectionShardsMerge(t *testing.T) {
	grids := selectionGrids(t)
	dir := t.TempDir()
	want, wantRecs, _ := runSelection(t, grids, filepath.Join(dir, "all.jsonl"), Shard{}, nil)
	var logs []string
	lines := 0
	for i := 1; i <= 3; i++ {
		log := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
		_, _, p := runSelection(t, grids, log, Shard{i, 3}, nil)
		// A unit is an outer fold: its 2 trials and 3 retrains.
		if p.Units != 3 || p.Mine != 1 || p.Trained != 2+Retrains || p.FromLog != 0 {
			t.Errorf("shard %d: %+v; want 1 of 3 units, 5 runs trained", i, p)
		}
		if _, _, again := runSelection(t, grids, log, Shard{i, 3}, nil); again.Trained != 0 || again.FromLog != 2+Retrains {
			t.Errorf("shard %d rerun: %+v; want nothing trained, 5 from the log", i, again)
		}
		lines += logLines(t, log)
		logs = append(logs, log)
	}
	if lines != logLines(t, filepath.Join(dir, "all.jsonl")) {
		t.Errorf("the shards logged %d runs, the unsharded run %d", lines, logLines(t, filepath.Join(dir, "all.jsonl")))
	}
	merged, recs, _ := runSelection(t, grids, "", Shard{}, logs)
	if got, w := withoutSelectionCost(merged), withoutSelectionCost(want); got != w {
		t.Errorf("merged table differs from the unsharded one:\n%s\nwant\n%s", got, w)
	}
	if len(recs) != 1 || *recs[0].MeanAcc != *wantRecs[0].MeanAcc || *recs[0].StdAcc != *wantRecs[0].StdAcc {
		t.Errorf("merged record %+v, want %+v", recs, wantRecs)
	}
	part, _, _ := runSelection(t, grids, "", Shard{}, logs[:2])
	if md := part.Markdown(); !strings.Contains(md, "missing: fold") {
		t.Errorf("merge of two shards does not name what is missing:\n%s", md)
	}
}

// TestSelectionIgnoresTestLabels rewrites the trials' test accuracies in
// the log (as if the test labels were permuted): the choices and the
// result stay. Changing a trial's validation accuracy does change the
// choice, so the test can fail.
func TestSelectionIgnoresTestLabels(t *testing.T) {
	grids := selectionGrids(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "sel.jsonl")
	_, recs, _ := runSelection(t, grids, log, Shard{}, nil)
	logged := readFolds(t, log)
	isTrial := func(r record.FoldRecord) bool { return !strings.Contains(r.Label, " retrain ") }
	changed := slices.Clone(logged)
	for i, r := range changed {
		if isTrial(r) {
			r.Result.TestAcc = float64((i*7)%5) / 4 // anything but the test accuracy
			changed[i] = r
		}
	}
	alt := filepath.Join(dir, "alt.jsonl")
	writeFolds(t, alt, changed)
	_, got, _ := runSelection(t, grids, "", Shard{}, []string{alt})
	for f := range recs[0].Folds {
		if got[0].Folds[f].Chosen != recs[0].Folds[f].Chosen {
			t.Errorf("fold %d: point %d chosen with other test accuracies, %d before", f, got[0].Folds[f].Chosen, recs[0].Folds[f].Chosen)
		}
	}
	if *got[0].MeanAcc != *recs[0].MeanAcc {
		t.Errorf("result %v with other trial test accuracies, %v before", *got[0].MeanAcc, *recs[0].MeanAcc)
	}
	// Fold 0's other point made the best on validation: now it is chosen,
	// and its retrains, never trained, are missing.
	other := 2 - recs[0].Folds[0].Chosen // 0-based index of the point not chosen
	for i, r := range changed {
		if isTrial(r) && r.Fold == 0 && strings.Contains(r.Label, fmt.Sprintf(" point %d ", other+1)) {
			r.Result.ValAcc = 2
			changed[i] = r
		}
	}
	writeFolds(t, alt, changed)
	tab, got, _ := runSelection(t, grids, "", Shard{}, []string{alt})
	if len(got[0].Missing) == 0 || !strings.Contains(tab.Markdown(), "missing: fold 0: retrain 1") {
		t.Errorf("a higher validation accuracy did not change fold 0's choice: %+v\n%s", got[0], tab.Markdown())
	}
}

// A grid the protocol cannot run is an error naming its file.
func TestReadSelectGridErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"json", `{"model": "mlp", "options": {"hidden": [8,`, "unexpected EOF"},
		{"option", `{"model": "mlp", "options": {"widthh": [8]}}`, "widthh"},
		{"value", `{"model": "gin", "options": {"hidden": [0]}}`, "hidden"},
		{"model", `{"model": "gcn", "options": {"hidden": [8]}}`, "gcn"},
		{"empty", `{"model": "mlp", "options": {"hidden": []}}`, "no values"},
	} {
		path := filepath.Join(dir, c.name+".json")
		os.WriteFile(path, []byte(c.text), 0o644)
		_, err := ReadSelectGrid(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error naming %s and %q", c.name, err, path, c.want)
		}
	}
	if _, err := ReadSelectGrid(filepath.Join(dir, "absent.json")); err == nil || !strings.Contains(err.Error(), "absent.json") {
		t.Errorf("absent file: %v", err)
	}
}

// A model Table 2 does not run on a dataset (its Skip) is not run there
// by the selection either: no trial, a note with the reason. GraphGPS on
// DD is the real case; SelectedTable copies it from Table 2.
func TestSelectionSkips(t *testing.T) {
	if why := SelectedTable(nil, nil).Skip["graphgps"]["dd"]; why == "" {
		t.Errorf("SelectedTable does not carry Table 2's skip of GraphGPS on DD")
	}
	b, err := NewBench(Options{Folds: 3, Epochs: 3, Parallel: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sel := SelectedTable([]string{"mutag"}, selectionGrids(t))
	sel.Skip = map[string]map[string]string{"mlp": {"mutag": "a reason"}}
	var tab *report.Table
	var recs []record.SelectRecord
	b.Emit = func(x *report.Table) error { tab = x; return nil }
	b.Record = func(v any) error { recs = append(recs, v.(record.SelectRecord)); return nil }
	if err := b.RunSelection(sel); err != nil {
		t.Fatal(err)
	}
	if tab == nil || len(recs) != 0 || !strings.Contains(tab.Markdown(), "structure-agnostic MLP on MUTAG: not run (a reason).") {
		t.Errorf("%d records; table:\n%v", len(recs), tab)
	}
}
