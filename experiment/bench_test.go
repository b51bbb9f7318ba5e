package experiment

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/report"
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
	b, _ := NewBench(Options{}, nil)
	for suite, tables := range Suites() {
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
			checkVariants(t, b, tb, cora.Node, paperACC)
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
	checkVariants(t, b, Table{Name: "speed", Variants: SpeedVariants()}, cora.Node, paperACC)
}

func checkVariants(t *testing.T, b *Bench, tb Table, cora *data.NodeDataset, paperACC *regexp.Regexp) {
	t.Helper()
	var cfgs []model.Config
	labels := map[string]bool{}
	for _, v := range tb.Variants {
		if v.Label == "" || labels[v.Label] || len(v.keys()) != max(len(tb.KeyCols), 1) {
			t.Errorf("%s: variant %q: empty or duplicate label, or keys %v do not match columns %v", tb.Name, v.Label, v.keys(), tb.KeyCols)
		}
		labels[v.Label] = true
		mc, tc, err := b.variantConfig(tb, v, "")
		if err != nil {
			t.Errorf("%s: %s: %v", tb.Name, v.Label, err)
			continue
		}
		for _, d := range tb.Datasets { // per-dataset options apply cleanly
			if _, _, err := b.variantConfig(tb, v, d); err != nil {
				t.Errorf("%s: %v", tb.Name, err)
			}
		}
		if tc.Epochs < 1 || mc == nil {
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
		task := tableTask(tb)
		shape := model.NodeShape(cora)
		if task == data.GraphTask {
			mutag, err := data.Load("mutag", data.Options{})
			if err != nil {
				t.Fatal(err)
			}
			shape = model.GraphShape(mutag.Graph)
			if r, ok := mc.(model.GraphResolver); ok {
				r.ResolveGraphs(mutag.Graph) // as experiment.Run does
			}
		}
		if _, err := model.New(task, v.Model, mc, shape, 0); err != nil {
			t.Errorf("%s: %s: %v", tb.Name, v.Label, err)
		}
	}
}

// TestBenchRunnerFakeSuite runs a tiny GCN suite end to end: a skipped
// dataset, a paper column, the Markdown and CSV of the emitted table.
func TestBenchRunnerFakeSuite(t *testing.T) {
	fake := Table{
		Name: "fake", Title: "Fake", KeyCols: []string{"Variant", "Hidden"}, Reference: "GCN-8",
		Datasets: []string{"cora", "citeseer"},
		Variants: []Variant{
			gcn("GCN", "GCN", "64").paper("cora", "0.800 ± 0.010"),
			{Label: "GCN-16", Keys: []string{"GCN-16", "16"}, Model: "gcn", Apply: func(c model.Config) { c.(*model.GCNConfig).Hidden = 16 }},
			{Label: "GCN-8", Keys: []string{"GCN-8", "8"}, Model: "gcn", Options: map[string]map[string]string{"cora": {"hidden": "8", "lr": "0.02"}}},
			{Label: "GCN-skip", Keys: []string{"GCN-skip", "-"}, Model: "gcn", Skip: map[string]string{"cora": "not tuned there"}},
		},
		Notes: []string{"A fake table."},
	}
	b, err := NewBench(Options{Seeds: 1, Epochs: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var md string
	b.Emit = func(tab *report.Table) error { md += tab.Markdown() + "\n"; return nil }
	if err := b.RunTables([]Table{fake}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**Fake — Cora**", "| Variant  | Hidden |", "paper ACC", "0.800 ± 0.010", "Skipped CiteSeer", "A fake table.", "| GCN-16   |     16 |",
		"GCN-skip on Cora: not run (not tuned there).", "On Cora, GCN-16 (0.298) scores above GCN-8 (0.274).", "Best on Cora: GCN-16 (0.298), 2.4 points above the next (GCN, 0.274). GCN-8 ranks 3 of 3, 2.4 points below it.", "| GCN-skip |      - |      - |           - |                 - |", "| GCN-16   |     16 | 23,063 |",
		"Paired tests on Cora against the highest mean, GCN-16 (0.298), over the same seeds: Wilcoxon p (Holm-adjusted; paired t-test p): GCN 1.000 (1.000; -), tied; GCN-8 1.000 (1.000; -), tied.",
		"with one seed no difference can be significant"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	res := b.Result()
	if len(res.Tables) != 1 || res.ProtocolRuns != 3 || res.Failed != 0 {
		t.Fatalf("result %+v", res)
	}
	raw := []byte(res.Tables[0].CSV())
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"Variant", "Hidden", "Param", "Runtime (s)", "ACC", "paper ACC"}
	// GCN-8's options on Cora: 1433·8 + 8 + 8·7 + 7 parameters.
	if len(recs) != 5 || !slices.Equal(recs[0], wantHeader) || recs[2][2] == "-" || recs[2][5] != "-" || recs[3][2] != "11,535" {
		t.Errorf("CSV %q", recs)
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

// table3 and table2 name the node and graph suites.
func TestSelectPaperNames(t *testing.T) {
	for alias, name := range map[string]string{"table3": "t3", "table2": "t2"} {
		ts, err := Select(alias, nil, nil, nil)
		if err != nil || len(ts) != 1 || ts[0].Name != name {
			t.Errorf("suite %s: %v, %d tables", alias, err, len(ts))
		}
	}
	if ts, _ := Select("table3", nil, nil, nil); len(ts[0].Variants) < 7 {
		t.Errorf("table3 has %d rows of ours, want PR-CapsNet, GCN and the baselines", len(ts[0].Variants))
	}
}

// Accuracies that differ but print alike at three decimals get a fourth,
// and a gap that rounds to 0.0 points gets a second decimal.
func TestAccPairAndPointsApart(t *testing.T) {
	for _, tc := range []struct {
		a, b       float64
		wantA, wB  string
		wantPoints string
	}{
		{0.7904, 0.7626, "0.790", "0.763", "2.8"},
		{0.7613, 0.7611, "0.7613", "0.7611", "0.02"},
		{0.761, 0.761, "0.761", "0.761", "0.0"},
	} {
		a, b := accPair(tc.a, tc.b)
		if a != tc.wantA || b != tc.wB || pointsApart(tc.a, tc.b) != tc.wantPoints {
			t.Errorf("%v, %v: %s, %s, %s points; want %s, %s, %s", tc.a, tc.b, a, b, pointsApart(tc.a, tc.b), tc.wantA, tc.wB, tc.wantPoints)
		}
	}
}

// Complete tells Emit whether a table is a whole result: some run
// finished and no interrupt came while it ran. bench --out writes only
// complete tables, so an interrupted or failed rerun keeps the files of
// an earlier one.
func TestBenchComplete(t *testing.T) {
	diverges := Variant{Label: "GCN-lr", Keys: []string{"GCN-lr"}, Model: "gcn", Options: map[string]map[string]string{"cora": {"lr": "1e6"}}}
	fine := Variant{Label: "GCN", Keys: []string{"GCN"}, Model: "gcn"}
	table := func(vs ...Variant) Table {
		return Table{Name: "c", Title: "C", KeyCols: []string{"Variant"}, Datasets: []string{"cora"}, Variants: vs}
	}
	stop := make(chan struct{})
	for _, c := range []struct {
		name string
		tab  Table
		stop chan struct{}
		want bool
	}{
		{"every run failed", table(diverges), nil, false},
		{"one of two failed", table(diverges, fine), nil, true},
		{"interrupted", table(fine), stop, false},
	} {
		if c.stop != nil {
			close(c.stop)
		}
		b, err := NewBench(Options{Seeds: 1, Epochs: 5, Stop: c.stop}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []bool
		b.Emit = func(*report.Table) error { got = append(got, b.Complete()); return nil }
		b.RunTables([]Table{c.tab})
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: Complete %v, want %v", c.name, got, c.want)
		}
	}
}
