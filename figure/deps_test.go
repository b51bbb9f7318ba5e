package figure

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// moduleImports returns the packages of module (rooted at dir root) that
// package pkg imports, directly or not, with pkg itself, read from the
// import clauses of every non-test Go file (whatever its build
// constraints: a superset of what any one platform links).
func moduleImports(t *testing.T, root, module, pkg string) []string {
	t.Helper()
	seen := map[string]bool{pkg: true}
	todo := []string{pkg}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(p, module)))
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s: no Go files in %s (%v)", p, dir, err)
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
				if (path == module || strings.HasPrefix(path, module+"/")) && !seen[path] {
					seen[path] = true
					todo = append(todo, path)
				}
			}
		}
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Drawing a figure reads saved results (package record) and never links
// the runner, the trainer or the models: a plot binary stays small and a
// change of the training engine cannot change how a saved file is drawn.
func TestFigureLinksNoTrainer(t *testing.T) {
	root := ".."
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := ""
	for _, line := range strings.Split(string(mod), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			module = strings.TrimSpace(m)
		}
	}
	if module == "" {
		t.Fatal("go.mod names no module")
	}
	deps := moduleImports(t, root, module, module+"/figure")
	if !slices.Contains(deps, module+"/record") {
		t.Fatalf("figure's dependencies %v lack record: the walk read nothing", deps)
	}
	for _, banned := range []string{"experiment", "train", "model", "autodiff", "capsule", "nn", "optim", "data"} {
		if slices.Contains(deps, module+"/"+banned) {
			t.Errorf("figure depends on %s/%s (all: %v): it must read results through package record only", module, banned, deps)
		}
	}
}
