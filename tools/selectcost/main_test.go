package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The estimate is the fixed cell's mean fold times the folds times
// (K + 3), each point scaled by its epochs over the fixed cell's: DGCNN's
// fixed MUTAG row trains 300 epochs and its PROTEINS row 100, the grid's
// points the recipe's 200; GIN-0's grid halves the epochs of one point.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	log := write("folds.jsonl", `{"cell":"a","label":"t2: DGCNN on MUTAG","fold":0,"result":{"seconds":9}}
{"cell":"a","label":"t2: DGCNN on MUTAG","fold":0,"result":{"seconds":2}}
{"cell":"a","label":"t2: DGCNN on MUTAG","fold":1,"result":{"seconds":4}}
{"cell":"b","label":"t2: DGCNN on PROTEINS","fold":0,"result":{"seconds":1}}
{"cell":"c","label":"t2: GIN-0 on MUTAG","fold":0,"result":{"seconds":2}}
{"cell":"d","label":"t2: GCN on MUTAG","fold":0,"result":{"seconds":100}}
`)
	write("dgcnn-graph.json", `{"model": "dgcnn", "options": {"lr": [0.0001, 0.00001]}}`)
	write("gin-graph.json", `{"model": "gin", "options": {"epochs": [175, 350]}}`)
	var out strings.Builder
	if err := run(log, filepath.Join(dir, "*-graph.json"), 10, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// DGCNN: MUTAG 3 s × (2 + 3) × 2/3 × 10 folds = 100; PROTEINS 1 s ×
	// (2 + 3) × 2 × 10 = 100. GIN-0: 2 s × (0.5 + 1 + 3 × 0.75) × 10 = 75.
	for _, want := range []string{
		"| GIN-0 | 2 | 75 | - | - | - | - | 75 | 0.0 |",
		"| DGCNN | 2 | 100 | - | - | - | 100 | 200 | 0.1 |",
		"Total: 275 fold-seconds, 0.1 core-hours (2 grids, 4 points; 10 outer folds, 3 retrains each).",
		"Not estimated: DGCNN on NCI1: no fold of the fixed configuration in the log.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "GIN-0") > strings.Index(got, "DGCNN") {
		t.Errorf("rows not in Table 2's order:\n%s", got)
	}
	for _, c := range []struct{ log, grids, want string }{
		{log, filepath.Join(dir, "none-*.json"), "no grid file"},
		{filepath.Join(dir, "absent.jsonl"), filepath.Join(dir, "*-graph.json"), "absent.jsonl"},
		{write("bad.jsonl", "{\"label\":\"x\"\n"), filepath.Join(dir, "*-graph.json"), "bad.jsonl: line 1"},
		{log, write("typo-graph.json", `{"model": "gat", "options": {"lrr": [0.1]}}`), "lrr"},
	} {
		if err := run(c.log, c.grids, 10, &out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run(%s, %s): %v; want an error naming %q", c.log, c.grids, err, c.want)
		}
	}
}
