package record

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Package record is a leaf: its files import the standard library, the
// project's file helpers and package stats only (see the package doc), so
// that reading a result never links the trainer or the models.
func TestRecordIsALeaf(t *testing.T) {
	allowed := map[string]bool{"internal/atomicfile": true, "internal/fileguard": true, "stats": true}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files: %v", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(path, "github.com/prcaps/prcaps/"); ok && !allowed[rest] {
				t.Errorf("%s imports %s: record imports only %v of the project", f, path, allowed)
			}
		}
	}
}
