package experiment

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// ErrSelection is wrapped by the errors of Select: the selection names no
// table, or one that does not exist.
var ErrSelection = errors.New("bad selection")

// Select returns the tables of suite (of every suite when tables are named
// and suite is empty), narrowed to the named tables, with their datasets
// replaced by datasets when given and their variants narrowed to models.
func Select(suite string, tables, datasets, models []string) ([]Table, error) {
	suites := Suites()
	switch suite { // the paper's names for the suites of one table
	case "table3":
		suite = "node"
	case "table2":
		suite = "graph"
	}
	pool, ok := suites[suite]
	switch {
	case suite == "" && len(tables) > 0:
		pool = append(append(slices.Clone(suites["node"]), suites["ablation"]...), suites["graph"]...)
	case !ok:
		return nil, fmt.Errorf("%w: unknown suite %q (want node or table3, ablation, graph or table2, speed, or scale)", ErrSelection, suite)
	}
	for _, m := range models {
		if !slices.Contains(model.Names(data.NodeTask), m) && !slices.Contains(model.Names(data.GraphTask), m) {
			return nil, fmt.Errorf("%w: unknown model %q", ErrSelection, m)
		}
	}
	sel := pool
	if len(tables) > 0 {
		sel = nil
		for _, n := range tables {
			i := slices.IndexFunc(pool, func(t Table) bool { return t.Name == n })
			if i < 0 {
				return nil, fmt.Errorf("%w: unknown table %q (available: %s)", ErrSelection, n, strings.Join(tableNames(pool), ", "))
			}
			sel = append(sel, pool[i])
		}
	}
	var out []Table
	for _, t := range sel {
		if len(datasets) > 0 {
			t.Datasets = datasets
		}
		if t.Variants = FilterModels(t.Variants, models); len(t.Variants) > 0 {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no table has a variant of the models %q", ErrSelection, models)
	}
	return out, nil
}

func tableNames(ts []Table) []string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return names
}

// FilterModels keeps the variants of the given models (all when none).
func FilterModels(vs []Variant, models []string) []Variant {
	if len(models) == 0 {
		return vs
	}
	var out []Variant
	for _, v := range vs {
		if slices.Contains(models, v.Model) {
			out = append(out, v)
		}
	}
	return out
}

// List writes every table of every suite with its datasets and variants.
func List(w io.Writer) error {
	for _, suite := range []string{"node", "ablation", "graph"} {
		fmt.Fprintf(w, "suite %s:\n", suite)
		for _, t := range Suites()[suite] {
			fmt.Fprintf(w, "  %-10s %s\n  %-10s datasets: %s\n", t.Name, t.Title, "", strings.Join(t.Datasets, ", "))
			var labels []string
			for _, v := range t.Variants {
				labels = append(labels, v.Label)
			}
			fmt.Fprintf(w, "  %-10s variants: %s\n", "", strings.Join(labels, "; "))
		}
	}
	var labels []string
	for _, v := range SpeedVariants() {
		labels = append(labels, v.Label)
	}
	_, err := fmt.Fprintf(w, "suite speed:\n  %-10s whole default runs on Cora: %s\n", "speed", strings.Join(labels, "; "))
	return err
}
