package experiment

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/option"
	"github.com/prcaps/prcaps/train"
)

// maxSelectPoints bounds the grids of docs/tune: each point costs the
// fixed configuration's folds again on every dataset (docs/cluster.md),
// so the shipped grids are small, as the write-ups say.
const maxSelectPoints = 6

// TestShippedSelectGrids checks the grid files the fair selection runs
// (docs/tune/*-graph.json, the whole-run command of docs/cluster.md): one
// per model of Table 2, each naming a graph model, every option one of
// that model's options or a training option, every value accepted (its
// range tags and the configurations' Validate), 2 to maxSelectPoints
// points and a "source" saying where the ranges come from. A typo in a
// grid file fails here instead of hours into a cluster run.
func TestShippedSelectGrids(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "docs", "tune", "*-graph.json"))
	if err != nil {
		t.Fatal(err)
	}
	var t2Models []string
	for _, v := range Suites()["graph"][0].Variants {
		t2Models = append(t2Models, v.Model)
	}
	seen := map[string]string{}
	for _, f := range files {
		g, err := ReadSelectGrid(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		name := g.Grid.Model
		if want := name + "-graph.json"; filepath.Base(f) != want {
			t.Errorf("%s: names model %q; the file for it is %s", f, name, want)
		}
		if !slices.Contains(t2Models, name) {
			t.Errorf("%s: model %q is not one of Table 2's %v", f, name, t2Models)
		}
		if s, dup := seen[name]; dup {
			t.Errorf("%s and %s: two grids for %s", s, f, name)
		}
		seen[name] = f
		if _, err := model.Lookup(data.GraphTask, name); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if n := len(g.Grid.Assignments()); n < 2 || n > maxSelectPoints {
			t.Errorf("%s: %d points; the shipped grids hold 2 to %d", f, n, maxSelectPoints)
		}
		if strings.TrimSpace(g.Grid.Source) == "" && !slices.Contains([]string{"prcapsnet", "gin", "mlp"}, name) {
			t.Errorf("%s: no \"source\" saying where its ranges come from", f)
		}
		for opt, vals := range g.Grid.Options {
			checkGridOption(t, f, name, opt, vals)
		}
	}
	for _, m := range t2Models {
		if seen[m] == "" {
			t.Errorf("no docs/tune/%s-graph.json: the whole selection has no grid for Table 2's %s", m, m)
		}
	}
}

// checkGridOption checks that opt is an option of the graph model name or
// a training option, and that each of its values, set alone on the
// model's default configuration and recipe, is in its range and leaves a
// valid configuration.
func checkGridOption(t *testing.T, file, name, opt string, vals []string) {
	t.Helper()
	mc, err := model.DefaultConfig(data.GraphTask, name)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	tc := train.Recipe(data.GraphTask, name)
	_, isModel := option.RangeOf(mc, opt)
	_, isTrain := option.RangeOf(&tc, opt)
	if !isModel && !isTrain {
		t.Errorf("%s: option %q is neither a %s option nor a training option", file, opt, name)
		return
	}
	for _, v := range vals {
		if _, _, err := Configs(data.GraphTask, name, map[string]string{opt: v}); err != nil {
			t.Errorf("%s: %s=%s: %v", file, opt, v, err)
		}
	}
}

// The check above fails on the mistakes it is there for: a misspelt
// option, a value out of range, a model Table 2 does not have.
func TestShippedSelectGridsCatch(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"typo", `{"model": "gat", "options": {"lr": [0.005], "wdd": [0.001]}}`, "wdd"},
		{"range", `{"model": "ssgc", "options": {"alpha": [0.05, 1.5]}}`, "alpha"},
		{"node", `{"model": "sgc", "options": {"lr": [0.1, 0.2]}}`, "sgc"},
	} {
		path := filepath.Join(dir, c.name+".json")
		writeFile(t, path, c.text)
		_, err := ReadSelectGrid(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error naming %q", c.name, err, c.want)
		}
	}
	// A grid with a source reads as the same grid without it: the
	// search never sees the text.
	a := filepath.Join(dir, "a.json")
	b := filepath.Join(dir, "b.json")
	writeFile(t, a, `{"model": "gat", "options": {"lr": [0.005, 0.01]}}`)
	writeFile(t, b, `{"model": "gat", "source": "Velickovic et al.", "options": {"lr": [0.005, 0.01]}}`)
	ga, errA := ReadGrid(a)
	gb, errB := ReadGrid(b)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if gb.Source != "Velickovic et al." || ga.Model != gb.Model || assignmentText(ga.Assignments()[1]) != assignmentText(gb.Assignments()[1]) {
		t.Errorf("source changed the grid: %+v against %+v", gb, ga)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
