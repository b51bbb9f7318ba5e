package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// train --save writes a checkpoint that predict reads back: one CSV row
// per graph (or chosen node) with the class and its probabilities, JSON
// lines with --json, and the accuracy against the data's labels on stderr.
func TestTrainSavePredict(t *testing.T) {
	dir := t.TempDir()
	graph, node := filepath.Join(dir, "mutag.safetensors"), filepath.Join(dir, "cora.safetensors")
	if code, _, errOut := runCLI("train", "--dataset", "mutag", "--data", "", "--epochs", "3", "--only-folds", "2", "--save", graph, "--quiet"); code != 0 {
		t.Fatalf("train --save (graph): exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI("predict", "--model", graph, "--data", "")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 189 || lines[0] != "id,class,label,data_label,p_-1,p_1" || !strings.Contains(errOut, "188 graph(s) classified; accuracy") {
		t.Fatalf("predict (graph): exit %d, %d lines, header %q, stderr %q", code, len(lines), lines[0], errOut)
	}
	code, out, _ = runCLI("predict", "--model", graph, "--data", "", "--json")
	var rec struct {
		ID    int       `json:"id"`
		Label string    `json:"label"`
		Probs []float64 `json:"probs"`
	}
	first := strings.SplitN(out, "\n", 2)[0]
	if err := json.Unmarshal([]byte(first), &rec); code != 0 || err != nil || rec.ID != 0 || len(rec.Probs) != 2 || (rec.Label != "1" && rec.Label != "-1") {
		t.Errorf("predict --json: exit %d, first line %q (%v)", code, first, err)
	}

	if code, _, errOut := runCLI("train", "--data", "", "--epochs", "2", "--seeds", "2", "--save", node, "--quiet"); code != 0 {
		t.Fatalf("train --save (node): exit %d: %s", code, errOut)
	}
	code, out, _ = runCLI("predict", "--model", node, "--data", "", "--nodes", "3,1")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[1], "3,") || !strings.HasPrefix(lines[2], "1,") {
		t.Errorf("predict --nodes 3,1: exit %d, %q", code, out)
	}

	bad := filepath.Join(dir, "bad.safetensors")
	raw, _ := os.ReadFile(graph)
	os.WriteFile(bad, raw[:len(raw)/2], 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"predict"}, 2, "--model FILE is required"},
		{[]string{"predict", "--model", bad}, 1, bad},
		{[]string{"predict", "--model", node, "--dataset", "mutag", "--data", ""}, 2, "is a node-classification model"},
		{[]string{"predict", "--model", node, "--data", "", "--nodes", "x"}, 2, "not a node id"},
		{[]string{"predict", "--model", node, "--data", "", "--nodes", "99999"}, 1, "outside"},
		{[]string{"train", "--data", "", "--epochs", "1", "--save", filepath.Join(dir, "no", "such", "x")}, 2, "no such directory"},
	} {
		code, _, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
