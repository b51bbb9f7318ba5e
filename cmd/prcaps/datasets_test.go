package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
)

// ogbn-arxiv is a name of datasets download and verify: files unpacked by
// hand are reported as present but not verified (there is no manifest of
// a checked archive), and verify fails.
func TestDatasetsVerifyOGB(t *testing.T) {
	root := t.TempDir()
	files, err := data.DatasetFiles("ogbn-arxiv")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI("datasets", "verify", "ogbn-arxiv", "--data", root)
	if code != 1 || strings.Count(out, "missing") != len(files) {
		t.Errorf("empty root: exit %d, output\n%s", code, out)
	}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("by hand"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCLI("datasets", "verify", "ogbn-arxiv", "--data", root)
	if code != 1 || strings.Count(out, string(data.FileUnverified)) != len(files) || !strings.Contains(errOut, "problems") {
		t.Errorf("unpacked by hand: exit %d, output\n%s%s", code, out, errOut)
	}

	for _, args := range [][]string{{"datasets", "download"}, {"datasets", "download", "-h"}, {"datasets", "verify", "-h"}, {"datasets", "-h"}} {
		_, out, errOut := runCLI(args...)
		if !strings.Contains(out+errOut, "ogbn-arxiv") || strings.Contains(out+errOut, "ogbn-products") {
			t.Errorf("prcaps %v does not list the downloadable datasets:\n%s%s", args, out, errOut)
		}
	}
}
