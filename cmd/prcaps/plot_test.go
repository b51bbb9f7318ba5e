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

// train --embeddings then plot: one t-SNE figure per dataset with a panel
// per file and its scores printed; --embeddings on a graph task is a usage
// error.
func TestPlotTSNE(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, m := range []string{"gcn", "sgc"} {
		f := filepath.Join(dir, m+".json")
		if code, _, errOut := runCLI("train", "--data", "", "--model", m, "--epochs", "3", "--embeddings", f, "--quiet"); code != 0 {
			t.Fatalf("train %s: exit %d: %s", m, code, errOut)
		}
		files = append(files, f)
	}
	code, out, errOut := runCLI(append([]string{"plot", "--out", dir, "--perplexity", "10", "--iterations", "300"}, files...)...)
	if code != 0 {
		t.Fatalf("plot: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"gcn on Cora: silhouette", "sgc on Cora: silhouette", "tsne-cora.png", "tsne-cora.svg"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "tsne-cora.png")); err != nil || st.Size() == 0 {
		t.Errorf("tsne-cora.png: %v", err)
	}
	code, _, errOut = runCLI("train", "--data", "", "--dataset", "mutag", "--epochs", "1", "--embeddings", filepath.Join(dir, "g.json"))
	if code != 2 || !strings.Contains(errOut, "--embeddings applies to node classification") {
		t.Errorf("graph --embeddings: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "g.json")); err == nil {
		t.Error("a refused run wrote its embeddings file")
	}
}
