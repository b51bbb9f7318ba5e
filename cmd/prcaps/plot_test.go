package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// train --curves then plot: the curves and curvature figures as PNG and
// SVG; no file, a missing directory or a file that is not a curves file is
// an error naming it.
func TestPlotCurves(t *testing.T) {
	dir := t.TempDir()
	curves := filepath.Join(dir, "cora.jsonl")
	if code, _, errOut := runCLI("train", "--data", "", "--epochs", "3", "--curves", curves, "--quiet"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI("plot", curves, "--out", dir)
	if code != 0 {
		t.Fatalf("plot: exit %d: %s", code, errOut)
	}
	for _, name := range []string{"cora-curves.png", "cora-curves.svg", "cora-curvature.png", "cora-curvature.svg"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 || !strings.Contains(out, name) {
			t.Errorf("%s: %v (output %q)", name, err, out)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plot"}, 2, "no results to plot"},
		{[]string{"plot", curves, "--out", filepath.Join(dir, "missing")}, 2, "no such directory"},
		{[]string{"plot", filepath.Join(dir, "cora-curves.svg"), "--out", dir}, 1, "cora-curves.svg"},
	} {
		code, _, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
