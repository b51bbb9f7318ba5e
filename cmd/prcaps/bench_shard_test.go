package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withoutRuntimes is a bench's Markdown output without what a rerun
// cannot reproduce: the cells of the Runtime (s) columns (wall time), the
// notes that say where the runtimes were measured and the note naming
// the fold logs read.
func withoutRuntimes(md string) string {
	var out []string
	var runtimeCols []int
	for _, line := range strings.Split(md, "\n") {
		if line == "" || strings.HasPrefix(line, "Runtime (s)") || strings.Contains(line, " were read from the ") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			runtimeCols = nil
			out = append(out, line)
			continue
		}
		cells := strings.Split(line, "|")
		if runtimeCols == nil {
			for i, c := range cells {
				if strings.Contains(c, "Runtime (s)") {
					runtimeCols = append(runtimeCols, i)
				}
			}
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		for _, i := range runtimeCols {
			if !strings.HasPrefix(cells[i], "Runtime") && !strings.HasPrefix(cells[i], "--") {
				cells[i] = "-"
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return strings.Join(out, "\n")
}

// TestBenchShardsCLI: Table 2 (GIN-0 and the MLP on MUTAG, 3 folds of 2
// epochs) and Table 3 (GCN and SGC on Cora, 3 seeds of 2 epochs) in three
// shards, merged with --log-only over a glob, a directory and a list,
// print the unsharded tables but for the runtimes.
func TestBenchShardsCLI(t *testing.T) {
	for _, c := range [][]string{
		{"--suite", "graph", "--dataset", "mutag", "--models", "gin,mlp", "--folds", "3", "--epochs", "2"},
		{"--suite", "node", "--dataset", "cora", "--models", "gcn,sgc", "--seeds", "3", "--epochs", "2"},
	} {
		dir := t.TempDir()
		common := append([]string{"bench", "--data", "", "--quiet", "--parallel", "2"}, c...)
		code, want, errOut := runCLI(append(common, "--log", filepath.Join(t.TempDir(), "all.jsonl"))...)
		if code != 0 {
			t.Fatalf("unsharded: exit %d: %s", code, errOut)
		}
		var list []string
		for i := 1; i <= 3; i++ {
			log := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
			list = append(list, log)
			code, out, errOut := runCLI(append(common, "--shard", fmt.Sprintf("%d/3", i), "--log", log)...)
			if code != 0 || !strings.Contains(out, fmt.Sprintf("shard %d/3: 2 of 6 units", i)) {
				t.Fatalf("shard %d: exit %d\n%s%s", i, code, out, errOut)
			}
		}
		code, _, errOut = runCLI(append(common, "--log-only", "--log", list[0]+","+list[2])...)
		if code != 0 || !strings.Contains(errOut, "cell(s) left empty, their units not all in the log(s):") || !strings.Contains(errOut, "; missing: ") {
			t.Errorf("merge without shard 2: exit %d, stderr %s", code, errOut)
		}
		for _, logs := range []string{filepath.Join(dir, "shard-*.jsonl"), dir, strings.Join(list, ",")} {
			code, got, errOut := runCLI(append(common, "--log-only", "--log", logs)...)
			if code != 0 || withoutRuntimes(got) != withoutRuntimes(want) {
				t.Errorf("merge of %s: exit %d %s\n%s\nwant\n%s", logs, code, errOut, withoutRuntimes(got), withoutRuntimes(want))
			}
		}
	}
}

func TestBenchShardFlags(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "s.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/3", "--log", log}, "--shard 0/3: I must be in [1, 3]"},
		{[]string{"--shard", "3", "--log", log}, "--shard \"3\": want I/N"},
		{[]string{"--shard", "1/3"}, "--shard 1/3 needs a fold log"},
		{[]string{"--shard", "1/3", "--log", log, "--out", dir}, "--out does not apply with --shard"},
		{[]string{"--shard", "1/3", "--log", log, "--log-only"}, "--log-only does not apply with --shard"},
		{[]string{"--shard", "1/3", "--speed"}, "--shard does not apply to the speed suite"},
		{[]string{"--log-only", "--log", filepath.Join(dir, "none-*.jsonl")}, "no file matches"},
		{[]string{"--log-only", "--log", dir}, "a directory without *.jsonl fold logs"},
		{[]string{"--submit"}, "--submit goes with --slurm N"},
		{[]string{"--sbatch", "--time=1:00"}, "--sbatch goes with --slurm N"},
		{[]string{"--slurm", "2", "--log", log}, "--log does not apply with --slurm"},
		{[]string{"--slurm", "2", "--shard", "1/2"}, "--shard does not apply with --slurm"},
		{[]string{"--slurm", "2", "--speed"}, "--slurm does not apply to the speed suite"},
		{[]string{"--slurm", "2", "--slurm-dir", dir, "--sbatch", "--array=1-4"}, "is the job's own"},
		{[]string{"--slurm", "2", "--slurm-dir", dir, "--sbatch", "partition=x"}, "want one option"},
	} {
		args := append([]string{"bench", "--data", "", "--dataset", "mutag", "--suite", "graph"}, tc.args...)
		code, _, errOut := runCLI(args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// Without --submit, --slurm writes the two scripts: the array's tasks run
// this binary with the bench's flags, their shard and their log; the
// merge reads the logs' directory and writes --out.
func TestBenchSlurmScripts(t *testing.T) {
	dir := t.TempDir()
	sdir, out := filepath.Join(dir, "jobs"), filepath.Join(dir, "tables")
	code, stdout, errOut := runCLI("bench", "--data", "", "--suite", "graph", "--dataset", "mutag", "--models", "gin", "--folds", "4",
		"--parallel", "2", "--slurm", "5", "--slurm-dir", sdir, "--out", out, "--sbatch", "--partition=short")
	if code != 0 || !strings.Contains(stdout, "submit with: jid=$(sbatch --parsable "+filepath.Join(sdir, "shards.sbatch")) {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	array, _ := os.ReadFile(filepath.Join(sdir, "shards.sbatch"))
	merge, _ := os.ReadFile(filepath.Join(sdir, "merge.sbatch"))
	exe, _ := os.Executable()
	for _, want := range []string{"#SBATCH --array=1-5\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --partition=short\n", "#SBATCH --mem=",
		exe + " bench --data= --dataset=mutag --folds=4 --models=gin --parallel=2 --suite=graph --shard \"${SLURM_ARRAY_TASK_ID}/5\" --log " + filepath.Join(sdir, "logs")} {
		if !strings.Contains(string(array), want) {
			t.Errorf("array script lacks %q:\n%s", want, array)
		}
	}
	if !strings.Contains(string(merge), "--log-only --log="+filepath.Join(sdir, "logs")+" --out="+out+"\n") {
		t.Errorf("merge script:\n%s", merge)
	}
}
