package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withoutCost is a selection table's Markdown without its Cost column's
// cells (wall time) and the note naming the fold logs read.
func withoutCost(md string) string {
	var out []string
	for _, line := range strings.Split(md, "\n") {
		if line == "" || strings.Contains(line, " were read from ") {
			continue
		}
		if cells := strings.Split(line, "|"); len(cells) == 6 && !strings.Contains(line, "Cost") && !strings.HasPrefix(strings.TrimSpace(cells[3]), "-") {
			cells[3] = " - "
			line = strings.Join(cells, "|")
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// TestBenchSelectCLI: the selection protocol on MUTAG (the MLP's grid of
// two widths, 3 folds of 2 epochs) prints t2-selected with each fold's
// choice; three shards merged with --log-only print the same table (but
// the cost), and a rerun resumes from the log.
func TestBenchSelectCLI(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "mlp.json")
	os.WriteFile(grid, []byte(`{"model": "mlp", "options": {"hidden": [8, 64]}}`), 0o644)
	common := []string{"bench", "--data", "", "--quiet", "--parallel", "2", "--suite", "graph", "--dataset", "mutag",
		"--folds", "3", "--epochs", "2", "--select", grid}
	all := filepath.Join(dir, "all.jsonl")
	code, want, errOut := runCLI(append(common, "--log", all)...)
	if code != 0 || !strings.Contains(want, "t2-selected") && !strings.Contains(want, "selected per fold") || !strings.Contains(want, "point chosen per fold") {
		t.Fatalf("unsharded: exit %d\n%s%s", code, want, errOut)
	}
	logs := filepath.Join(dir, "shards")
	os.Mkdir(logs, 0o755)
	for i := 1; i <= 3; i++ {
		code, out, errOut := runCLI(append(common, "--shard", fmt.Sprintf("%d/3", i), "--log", filepath.Join(logs, fmt.Sprintf("s%d.jsonl", i)))...)
		if code != 0 || !strings.Contains(out, fmt.Sprintf("shard %d/3: 1 of 3 units", i)) {
			t.Fatalf("shard %d: exit %d\n%s%s", i, code, out, errOut)
		}
	}
	code, got, errOut := runCLI(append(common, "--log-only", "--log", logs)...)
	if code != 0 || withoutCost(got) != withoutCost(want) {
		t.Errorf("merge: exit %d %s\n%s\nwant\n%s", code, errOut, withoutCost(got), withoutCost(want))
	}
	code, _, errOut = runCLI(append(common, "--log-only", "--log", filepath.Join(logs, "s1.jsonl")+","+filepath.Join(logs, "s2.jsonl"))...)
	if code != 0 || !strings.Contains(errOut, "missing: fold") {
		t.Errorf("merge without shard 3: exit %d, stderr %s", code, errOut)
	}
}

func TestBenchSelectFlags(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "g.json")
	os.WriteFile(grid, []byte(`{"model": "mlp", "options": {"hidden": [8, 64]}}`), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"model": "mlp", "options": {"hiddn": [8]}}`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--suite", "node", "--select", grid}, "--select goes with --suite graph"},
		{[]string{"--suite", "graph", "--select", bad}, bad},
		{[]string{"--suite", "graph", "--select", filepath.Join(dir, "none.json")}, "none.json"},
		{[]string{"--suite", "graph", "--select", grid + "," + grid}, "both grids of mlp"},
		{[]string{"--suite", "graph", "--select", grid, "--models", "gin"}, "--models does not apply with --select"},
		{[]string{"--suite", "graph", "--select", grid, "--seeds", "3"}, "--seeds does not apply"},
		{[]string{"--suite", "graph", "--select", grid, "--log", grid}, "--log"},
		{[]string{"--suite", "graph", "--select", " , "}, "no grid file named"},
	} {
		args := append([]string{"bench", "--data", "", "--dataset", "mutag"}, tc.args...)
		code, _, errOut := runCLI(args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// --slurm with --select writes the same two jobs: the tasks run the
// selection with their shard (a unit is an outer fold, so one array
// suffices), the merge reads their logs.
func TestBenchSelectSlurmScripts(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "gin.json")
	os.WriteFile(grid, []byte(`{"model": "gin", "options": {"hidden": [16, 32]}}`), 0o644)
	sdir := filepath.Join(dir, "jobs")
	code, stdout, errOut := runCLI("bench", "--data", "", "--suite", "graph", "--dataset", "mutag", "--select", grid,
		"--slurm", "4", "--slurm-dir", sdir)
	if code != 0 || !strings.Contains(stdout, "4 tasks") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	array, _ := os.ReadFile(filepath.Join(sdir, "shards.sbatch"))
	merge, _ := os.ReadFile(filepath.Join(sdir, "merge.sbatch"))
	if !strings.Contains(string(array), "--select="+grid) || !strings.Contains(string(array), "--shard \"${SLURM_ARRAY_TASK_ID}/4\"") {
		t.Errorf("array script:\n%s", array)
	}
	if !strings.Contains(string(merge), "--select="+grid) || !strings.Contains(string(merge), "--log-only --log="+filepath.Join(sdir, "logs")) {
		t.Errorf("merge script:\n%s", merge)
	}
}
