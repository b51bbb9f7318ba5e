package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// TestBenchSuitesWellFormed checks every table of every suite: unique
// names, keys matching the key columns, known datasets and models, distinct
// configurations per table, paper values in the paper's format, and that
// every variant's configuration builds a model.
func TestBenchSuitesWellFormed(t *testing.T) {
	cora, err := data.Load("cora", data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	paperACC := regexp.MustCompile(`^0\.\d{3}( ± 0\.\d{3})?$`)
	seen := map[string]bool{}
	var b bencher
	for suite, tables := range benchSuites() {
		for _, tb := range tables {
			if tb.Name == "" || seen[tb.Name] || tb.Title == "" || len(tb.Datasets) == 0 || len(tb.Variants) == 0 {
				t.Errorf("%s: table %q: empty or duplicate name, title, datasets or variants", suite, tb.Name)
			}
			seen[tb.Name] = true
			for _, d := range tb.Datasets {
				if _, ok := data.Lookup(d); !ok {
					t.Errorf("%s: unknown dataset %q", tb.Name, d)
				}
			}
			checkVariants(t, &b, tb, cora.Node, paperACC)
			for _, p := range tb.Paper {
				if len(p.Keys) != max(len(tb.KeyCols), 1) {
					t.Errorf("%s: paper row %v has %d keys for columns %v", tb.Name, p.Keys, len(p.Keys), tb.KeyCols)
				}
				for d, c := range p.Cells {
					if !slices.Contains(tb.Datasets, d) || !paperACC.MatchString(c.Acc) {
						t.Errorf("%s: paper row on %q: %+v", tb.Name, d, c)
					}
				}
			}
		}
	}
	checkVariants(t, &b, benchTable{Name: "speed", Variants: speedVariants()}, cora.Node, paperACC)
}

func checkVariants(t *testing.T, b *bencher, tb benchTable, cora *data.NodeDataset, paperACC *regexp.Regexp) {
	t.Helper()
	var cfgs []model.NodeConfig
	labels := map[string]bool{}
	for _, v := range tb.Variants {
		if v.Label == "" || labels[v.Label] || len(v.keys()) != max(len(tb.KeyCols), 1) {
			t.Errorf("%s: variant %q: empty or duplicate label, or keys %v do not match columns %v", tb.Name, v.Label, v.keys(), tb.KeyCols)
		}
		labels[v.Label] = true
		mc, tc, err := b.variantConfig(tb, v)
		if err != nil {
			t.Errorf("%s: %s: %v", tb.Name, v.Label, err)
			continue
		}
		if tc.Epochs < 1 || mc.Model != v.Model {
			t.Errorf("%s: %s: config %+v, training %+v", tb.Name, v.Label, mc, tc)
		}
		for _, c := range cfgs {
			if reflect.DeepEqual(c, mc) {
				t.Errorf("%s: %s: the same configuration as another variant", tb.Name, v.Label)
			}
		}
		cfgs = append(cfgs, mc)
		for d, p := range v.Paper {
			if !slices.Contains(tb.Datasets, d) || !paperACC.MatchString(p) {
				t.Errorf("%s: %s: paper value %q on %q", tb.Name, v.Label, p, d)
			}
		}
		// Every configuration must build.
		if _, err := model.NewNodeModel(cora, mc, 0); err != nil {
			t.Errorf("%s: %s: %v", tb.Name, v.Label, err)
		}
	}
}

// TestBenchRunnerFakeSuite runs a tiny GCN suite end to end: a skipped
// dataset, a paper column, Markdown on stdout, files under --out.
func TestBenchRunnerFakeSuite(t *testing.T) {
	fake := benchTable{
		Name: "fake", Title: "Fake", KeyCols: []string{"Variant", "Hidden"},
		Datasets: []string{"cora", "citeseer"},
		Variants: []benchVariant{
			gcn("GCN", "GCN", "64").paper("cora", "0.800 ± 0.010"),
			{Label: "GCN-16", Keys: []string{"GCN-16", "16"}, Model: "gcn", Apply: func(c *model.NodeConfig) { c.GCN.Hidden = 16 }},
		},
		Notes: []string{"A fake table."},
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	f := benchFlags{suite: "ablation", split: "random", seeds: 1, epochs: 2, out: out, quiet: true}
	b := newBencher(f, &stdout, &stderr)
	if err := b.runTables([]benchTable{fake}); err != nil {
		t.Fatal(err)
	}
	md := stdout.String()
	for _, want := range []string{"**Fake — Cora**", "| Variant | Hidden |", "paper ACC", "0.800 ± 0.010", "Skipped CiteSeer", "A fake table.", "| GCN-16  |     16 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "fake.md")); err != nil || string(b)+"\n" != md {
		t.Errorf("fake.md: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(filepath.Join(out, "fake.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"Variant", "Hidden", "Param", "Runtime (s)", "ACC", "paper ACC"}
	if len(recs) != 3 || !slices.Equal(recs[0], wantHeader) || recs[2][2] == "-" || recs[2][5] != "-" {
		t.Errorf("CSV %q", recs)
	}
}

// TestBenchCLIJSON runs `prcaps bench` on the embedded Cora with GCN only:
// one object per protocol run, then the summary with the tables.
func TestBenchCLIJSON(t *testing.T) {
	code, out, errOut := runCLI("bench", "--data", "", "--models", "gcn", "--tables", "t3,t4", "--dataset", "cora", "--epochs", "2", "--seeds", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 2 run objects and a summary, got %q", out)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"table", "variant", "dataset", "task", "model", "protocol", "runs", "mean_acc", "std_acc", "params", "train_seconds", "seconds_per_run", "epochs"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("record lacks %q: %s", k, lines[0])
		}
	}
	if rec["table"] != "t3" || rec["model"] != "gcn" || rec["runs"] != 2.0 || rec["epochs"] != 2.0 {
		t.Errorf("record %s", lines[0])
	}
	var sum benchSummary
	if err := json.Unmarshal([]byte(lines[2]), &sum); err != nil {
		t.Fatal(err)
	}
	// t4's GCN row is t3's GCN run: it is run once and reused, with a note.
	if sum.ProtocolRuns != 1 || sum.Failed != 0 || len(sum.Tables) != 2 || sum.Tables[1].Name != "t4" || len(sum.Tables[1].Rows) != 1 ||
		!strings.Contains(strings.Join(sum.Tables[1].Notes, " "), "same configuration as t3/GCN") {
		t.Errorf("summary %s", lines[2])
	}
	var rec2 map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &rec2); err != nil || rec2["table"] != "t4" || rec2["mean_acc"] != rec["mean_acc"] {
		t.Errorf("t4 record %s (%v)", lines[1], err)
	}
}

func TestBenchSpeed(t *testing.T) {
	code, out, errOut := runCLI("bench", "--speed", "--data", "", "--models", "gcn", "--epochs", "2", "--repeat", "3", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "median of 3") || !regexp.MustCompile(`\| GCN +\| +2 \|`).MatchString(out) {
		t.Errorf("speed table:\n%s", out)
	}
}

func TestBenchUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--suite", "bogus"}, "--suite must be"},
		{[]string{"--tables", "t9"}, `unknown table "t9"`},
		{[]string{"--suite", "node", "--tables", "t4"}, `unknown table "t4"`},
		{[]string{"--seeds", "0"}, "--seeds must be at least 1"},
		{[]string{"--models", "nope"}, `unknown model "nope"`},
		{[]string{"--split", "x"}, "--split must be"},
	} {
		code, out, errOut := runCLI(append([]string{"bench"}, tc.args...)...)
		if code != 2 || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("bench %v: exit %d, %q; want exit 2 and %q", tc.args, code, out+errOut, tc.want)
		}
	}
}

func TestBenchList(t *testing.T) {
	code, out, errOut := runCLI("bench", "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range append(tableNames(nodeSuite()), tableNames(ablationSuite())...) {
		if !strings.Contains(out, "  "+name+" ") {
			t.Errorf("--list lacks table %q:\n%s", name, out)
		}
	}
}

func TestMedian(t *testing.T) {
	if m := median([]float64{1, 2, 9}); m != 2 {
		t.Errorf("median odd = %v", m)
	}
	if m := median([]float64{1, 2, 4, 9}); m != 3 {
		t.Errorf("median even = %v", m)
	}
}

// bench --cpuprofile writes a pprof profile, as train's does.
func TestBenchCPUProfile(t *testing.T) {
	checkCPUProfile(t, "bench", "--data", "", "--models", "gcn", "--tables", "t3", "--dataset", "cora", "--epochs", "2",
		"--seeds", "1", "--quiet")
}

// The graph suite runs its cells in one pool of folds; its record of a
// dataset is the summary `prcaps train` gives under the same protocol.
func TestBenchGraphMatchesTrain(t *testing.T) {
	proto := []string{"--data", "", "--folds", "3", "--epochs", "2", "--parallel", "2", "--json", "--quiet"}
	code, out, errOut := runCLI(append([]string{"bench", "--suite", "graph", "--dataset", "mutag"}, proto...)...)
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var rec benchRecord
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec.Table != "t2" || rec.Dataset != "MUTAG" || rec.Runs != 3 {
		t.Fatalf("first line %q (%v): want t2's MUTAG record over 3 folds", lines[0], err)
	}
	var bs benchSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &bs); err != nil || bs.ProtocolRuns != 1 || bs.Failed != 0 {
		t.Errorf("last line %q (%v): want one protocol run, none failed", lines[len(lines)-1], err)
	}
	code, out, errOut = runCLI(append([]string{"train", "--dataset", "mutag"}, proto...)...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	var sum benchRecord
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if rec.MeanAcc != sum.MeanAcc || rec.StdAcc != sum.StdAcc || rec.MeanValAcc != sum.MeanValAcc || rec.Params != sum.Params || rec.Model != sum.Model {
		t.Errorf("bench record %+v, train summary %+v", rec.Summary, sum.Summary)
	}
}
