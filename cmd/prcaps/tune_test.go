package main

import (
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
