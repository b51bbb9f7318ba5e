package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTuneCLI(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "gcn.json")
	if err := os.WriteFile(grid, []byte(`{"model": "gcn", "options": {"hidden": [4, 8], "epochs": [2]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("tune", "--grid", grid, "--seeds", "1", "--quiet", "--data", dir)
	if code != 0 || !strings.Contains(out, "chosen on validation: --epochs 2 --hidden ") || !strings.Contains(out, "test: ") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "gcn-cora.jsonl")); err != nil {
		t.Errorf("default log: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"model": "gcn", "options": {"hiden": [4]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tune"}, "--grid FILE is required"},
		{[]string{"tune", "--grid", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"tune", "--grid", grid, "--dataset", "mutag"}, "graph dataset"},
		{[]string{"tune", "--grid", grid, "--seeds", "0"}, "seeds"},
		{[]string{"tune", "--grid", bad, "--seeds", "1"}, `bad grid: option "hiden" is neither`},
	} {
		code, _, errOut := runCLI(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// A search in three shards, merged, chooses and scores as the unsharded
// search does; a merge missing a shard, or holding one trial twice, is an
// error naming the logs.
func TestTuneShardsCLI(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "gcn.json")
	if err := os.WriteFile(grid, []byte(`{"model": "gcn", "options": {"hidden": [4, 8, 16], "lr": [0.01, 0.05], "epochs": [2]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"tune", "--grid", grid, "--seeds", "2", "--quiet", "--data", dir}
	code, want, errOut := runCLI(append(common, "--log", filepath.Join(dir, "all.jsonl"))...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, errOut)
	}
	for i := 1; i <= 3; i++ {
		code, out, errOut := runCLI(append(common, "--shard", fmt.Sprintf("%d/3", i))...)
		if code != 0 || !strings.Contains(out, fmt.Sprintf("shard %d/3: 2 of 6 units", i)) {
			t.Fatalf("shard %d: exit %d\n%s%s", i, code, out, errOut)
		}
	}
	logs := filepath.Join(dir, "gcn-cora-shard-*-of-3.jsonl")
	code, got, errOut := runCLI(append(common, "--log", logs)...)
	// The merge reads every trial from the shards: its first line says 6
	// from the logs where the unsharded one says 0 from its log.
	// The runs' seconds are measured again by the final test run.
	_, wantRest, _ := strings.Cut(want, "\n")
	_, gotRest, _ := strings.Cut(got, "\n")
	wantRest, _, _ = strings.Cut(wantRest, " parameters, ")
	gotRest, _, _ = strings.Cut(gotRest, " parameters, ")
	if code != 0 || gotRest != wantRest || !strings.Contains(got, "6 configurations (6 from the 3 logs ") {
		t.Fatalf("merge: exit %d\n%s%s\nwant\n%s", code, got, errOut, want)
	}
	if code, _, errOut := runCLI(append(common, "--log", filepath.Join(dir, "gcn-cora-shard-[12]-of-3.jsonl"))...); code != 1 || !strings.Contains(errOut, "lack 2 of the 6 trials") {
		t.Errorf("merge without shard 3: exit %d, %s", code, errOut)
	}
	one := filepath.Join(dir, "gcn-cora-shard-1-of-3.jsonl")
	if code, _, errOut := runCLI(append(common, "--log", one+","+filepath.Join(dir, "all.jsonl"))...); code != 1 || !strings.Contains(errOut, "both hold") || !strings.Contains(errOut, "all.jsonl") {
		t.Errorf("merge with a trial twice: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(append(common, "--shard", "4/3")...); code != 2 || !strings.Contains(errOut, "--shard 4/3: I must be in [1, 3]") {
		t.Errorf("--shard 4/3: exit %d, %s", code, errOut)
	}
}
