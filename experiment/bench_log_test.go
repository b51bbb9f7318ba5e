package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// runLogged runs the MUTAG GIN and MLP cells of Table 2 (3 folds, 2
// epochs) with fold log path and returns the table's Markdown and the
// folds trained.
func runLogged(t *testing.T, path string, epochs int) (string, int) {
	return runLoggedOpt(t, Options{Folds: 3, Epochs: epochs, Parallel: 2, Log: path})
}

func runLoggedOpt(t *testing.T, opt Options) (string, int) {
	t.Helper()
	path := opt.Log
	tables, err := Select("graph", []string{"t2"}, []string{"mutag"}, []string{"gin", "mlp"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBench(opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	var md string
	b.Emit = func(tab *report.Table) error { md = tab.Markdown(); return nil }
	before := logLines(t, path)
	if err := b.RunTables(tables); err != nil {
		t.Fatal(err)
	}
	// The runtimes of folds read from the log are the first run's; the
	// accuracies must match to the last digit.
	return md, logLines(t, path) - before
}

func logLines(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// TestBenchFoldLogResumes interrupts a bench (its log cut after two folds
// and a half-written line) and reruns it: only the missing folds train,
// and the table equals the uninterrupted run's.
func TestBenchFoldLogResumes(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl")
	want, trained := runLogged(t, full, 2)
	if trained != 6 { // 2 models × 3 folds
		t.Fatalf("first run logged %d folds, want 6", trained)
	}
	if _, again := runLogged(t, full, 2); again != 0 {
		t.Errorf("rerun with a complete log trained %d folds, want 0", again)
	}

	// From the log alone: the full log gives the table, nothing trains.
	if got, n := runLoggedOpt(t, Options{Folds: 3, Epochs: 2, Log: full, LogOnly: true}); n != 0 || accs(got) != accs(want) {
		t.Errorf("log-only on the full log: %d folds trained, table\n%s", n, got)
	}

	raw, _ := os.ReadFile(full)
	lines := strings.SplitAfter(string(raw), "\n")
	cut := filepath.Join(dir, "cut.jsonl")
	if err := os.WriteFile(cut, []byte(lines[0]+lines[1]+lines[2][:len(lines[2])/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	// A cell with folds missing stays empty under log-only.
	if got, n := runLoggedOpt(t, Options{Folds: 3, Epochs: 2, Log: cut, LogOnly: true}); n != 0 || row(got, "GIN-0") == "" || strings.Contains(row(got, "GIN-0"), "±") ||
		!strings.Contains(got, "not run (--log-only), its folds are not all in the fold log: 2 of 3 folds there") {
		t.Errorf("log-only on a cut log: %d folds trained, table\n%s", n, got)
	}
	got, trained := runLogged(t, cut, 2)
	if trained != 4 {
		t.Errorf("resumed run trained %d folds, want 4", trained)
	}
	if !strings.Contains(got, "2 fold(s) were read from the fold log") || !strings.Contains(got, "(trained: 2 at unknown)") {
		t.Errorf("resumed table does not say which folds came from the log:\n%s", got)
	}
	if accs(got) != accs(want) {
		t.Errorf("resumed table differs:\n%s\nwant\n%s", got, want)
	}
	if _, other := runLogged(t, cut, 3); other != 6 {
		t.Errorf("a run with other epochs reused folds: trained %d, want 6", other)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"cell\":\"x\"}\nnot json\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewBench(Options{Log: bad}, nil); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("malformed log: %v, want an error naming bad.jsonl:2", err)
	}
}

// row is the Markdown table row of label.
func row(md, label string) string {
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| "+label+" ") {
			return line
		}
	}
	return ""
}

// accs keeps the ACC cells of a Markdown table ("0.xxx ± 0.xxx").
func accs(md string) string {
	var out []string
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		for _, f := range strings.Split(line, "|") {
			if f = strings.TrimSpace(f); strings.Contains(f, " ± ") {
				out = append(out, f)
			}
		}
	}
	return strings.Join(out, ",")
}

// TestCellKeyStable checks that every Table 2 cell's key is the same when
// its configuration is built again (no pointer or function in it).
func TestCellKeyStable(t *testing.T) {
	mutag, err := data.Load("mutag", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := Select("graph", []string{"t2"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewBench(Options{}, nil)
	seen := map[string]string{}
	for _, v := range tables[0].Variants {
		var keys [2]string
		for i := range keys {
			keys[i], _ = mutagCell(t, b, tables[0], v, mutag)
		}
		if keys[0] != keys[1] {
			t.Errorf("%s: cell key changes between builds", v.Label)
		}
		if o, dup := seen[keys[0]]; dup {
			t.Errorf("%s and %s share a cell key", v.Label, o)
		}
		seen[keys[0]] = v.Label
	}
}

// Options.MicroBatchSeeds overrides every Table 2 model's recipe, and a
// cell's key says which setting trained its folds: PR-CapsNet's key with
// "off" differs from its recipe's, a baseline's with "off" is its recipe's.
func TestBenchMicroBatchSeeds(t *testing.T) {
	mutag, err := data.Load("mutag", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := Select("graph", []string{"t2"}, nil, []string{"prcapsnet", "gat"})
	if err != nil || len(tables) != 1 || len(tables[0].Variants) != 2 {
		t.Fatalf("Table 2 with PR-CapsNet and GAT: %v", err)
	}
	key := func(setting string, v Variant) (string, string) {
		b, err := NewBench(Options{MicroBatchSeeds: setting}, nil)
		if err != nil {
			t.Fatal(err)
		}
		k, p := mutagCell(t, b, tables[0], v, mutag)
		return k, p.MicroBatchSeeds
	}
	for _, v := range tables[0].Variants {
		recipe, rs := key("", v)
		for _, setting := range []string{"on", "off"} {
			k, got := key(setting, v)
			if got != setting {
				t.Errorf("%s with %s: the protocol has %q", v.Label, setting, got)
			}
			if (k == recipe) != (setting == rs) {
				t.Errorf("%s with %s (recipe %s): key equal to the recipe's: %v", v.Label, setting, rs, k == recipe)
			}
		}
	}
	if _, err := NewBench(Options{MicroBatchSeeds: "yes"}, nil); err == nil {
		t.Error("micro-batch-seeds yes: no error")
	}
}

// mutagCell returns the cell key and the protocol of variant v of table on
// MUTAG as bench b would train it.
func mutagCell(t *testing.T, b *Bench, table Table, v Variant, mutag *data.Dataset) (string, train.GraphProtocol) {
	t.Helper()
	mc, tc, err := b.variantConfig(table, v, "mutag")
	if err != nil {
		t.Fatal(err)
	}
	job, err := b.graphJob("x", v.Model, mc, tc, mutag)
	if err != nil {
		t.Fatal(err)
	}
	return cellKey(memoKey(v.Model, mc, tc, "mutag", true), mutag, job.Protocol), job.Protocol
}

// TestBenchNodeLog runs a node table (GCN and SGC on the embedded Cora, 3
// seeds, 2 epochs) with a fold log: every run is logged, a log-only bench
// reprints the same table from it, training nothing, and a log missing a
// run leaves that cell empty under log-only.
func TestBenchNodeLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node.jsonl")
	run := func(opt Options) string {
		t.Helper()
		tables, err := Select("node", []string{"t3"}, []string{"cora"}, []string{"gcn", "sgc"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewBench(opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		var md string
		b.Emit = func(tab *report.Table) error { md = tab.Markdown(); return nil }
		if err := b.RunTables(tables); err != nil {
			t.Fatal(err)
		}
		return md
	}
	want := run(Options{Seeds: 3, Epochs: 2, Log: path})
	if n := logLines(t, path); n != 6 {
		t.Fatalf("node bench logged %d runs, want 6", n)
	}
	got := run(Options{Seeds: 3, Epochs: 2, Log: path, LogOnly: true})
	if logLines(t, path) != 6 || accs(got) != accs(want) || !strings.Contains(got, "6 run(s) were read from the fold log") {
		t.Errorf("log-only node table:\n%s\nwant the accuracies of\n%s", got, want)
	}
	raw, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(raw), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[1:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(Options{Seeds: 3, Epochs: 2, Log: path, LogOnly: true}); !strings.Contains(got, "2 of 3 runs there") {
		t.Errorf("log-only with a run missing:\n%s", got)
	}
}
