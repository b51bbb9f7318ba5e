// Command selectcost estimates what the fair model selection of Table 2
// (`prcaps bench --suite graph --select GRIDS`, docs/cluster.md) costs
// from the grids and the measured seconds of the fixed-configuration
// Table 2 in its fold log:
//
//	go run ./tools/selectcost -log docs/results/table2-folds.jsonl -grids 'docs/tune/*-graph.json'
//
// For every grid (a model) and Table 2 dataset, S is the mean seconds of
// a fold of that model's fixed Table 2 cell in the log (every record of
// the cell's label, each fold counted once) times the outer folds. Every
// outer fold trains each of the K grid points and retrains the chosen one
// experiment.Retrains times, so the cell costs S × (K + Retrains) when
// the points train for the fixed cell's epochs; a point whose epochs
// differ (a grid or a per-dataset setting of the fixed row) is scaled by
// its epochs over the fixed cell's, and a retrain counts at the mean of
// the points (which one a fold chooses is not known beforehand). It
// prints a Markdown table of fold-seconds per model and dataset, each
// model's and the whole run's core-hours (a fold trains on one core), and
// the cells the log lacks.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/experiment"
	"github.com/prcaps/prcaps/internal/fileguard"
)

// maxBytes bounds the fold log: a record is a few hundred bytes.
const maxBytes = 256 << 20

func main() {
	log := flag.String("log", "docs/results/table2-folds.jsonl", "the fixed Table 2's fold `log`")
	grids := flag.String("grids", "docs/tune/*-graph.json", "the selection's grid files (a `glob`)")
	folds := flag.Int("folds", 10, "outer `folds` of the graph protocol")
	flag.Parse()
	if err := run(*log, *grids, *folds, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "selectcost:", err)
		os.Exit(1)
	}
}

// foldRec is what this tool reads of a fold log's record.
type foldRec struct {
	Cell   string `json:"cell"`
	Label  string `json:"label"`
	Fold   int    `json:"fold"`
	Result struct {
		Seconds float64 `json:"seconds"`
	} `json:"result"`
}

// readSeconds reads a fold log into each label's fold seconds, one per
// cell and fold (a later record of a unit replaces an earlier one, as a
// resumed log's does).
func readSeconds(path string) (map[string][]float64, error) {
	b, err := fileguard.ReadFile(path, maxBytes)
	if err != nil {
		return nil, err
	}
	type unit struct {
		cell string
		fold int
	}
	byLabel := map[string]map[unit]float64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxBytes)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r foldRec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
		}
		if r.Label == "" || !(r.Result.Seconds >= 0) {
			return nil, fmt.Errorf("%s: line %d: not a fold record (no label or seconds)", path, line)
		}
		if byLabel[r.Label] == nil {
			byLabel[r.Label] = map[unit]float64{}
		}
		byLabel[r.Label][unit{r.Cell, r.Fold}] = r.Result.Seconds
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string][]float64{}
	for l, us := range byLabel {
		for _, s := range us {
			out[l] = append(out[l], s)
		}
	}
	return out, nil
}

// cellCost is one model's selection on one dataset.
type cellCost struct {
	foldSeconds float64 // the fixed cell's mean fold
	cost        float64 // the selection's fold-seconds
	missing     string  // why there is no estimate
}

func run(logPath, gridGlob string, folds int, w io.Writer) error {
	if folds < 2 {
		return fmt.Errorf("-folds %d: need at least 2", folds)
	}
	files, err := filepath.Glob(gridGlob)
	if err != nil {
		return fmt.Errorf("-grids %q: %w", gridGlob, err)
	}
	if len(files) == 0 {
		return fmt.Errorf("-grids %q: no grid file", gridGlob)
	}
	secs, err := readSeconds(logPath)
	if err != nil {
		return err
	}
	t2 := experiment.Suites()["graph"][0]
	order := map[string]int{}
	for i, v := range t2.Variants {
		order[v.Model] = i
	}
	var grids []experiment.SelectGrid
	for _, f := range files {
		g, err := experiment.ReadSelectGrid(f)
		if err != nil {
			return err
		}
		if _, ok := order[g.Grid.Model]; !ok {
			return fmt.Errorf("%s: model %q is not in Table 2", f, g.Grid.Model)
		}
		grids = append(grids, g)
	}
	sort.SliceStable(grids, func(i, j int) bool { return order[grids[i].Grid.Model] < order[grids[j].Grid.Model] })

	fmt.Fprintf(w, "| Model | Points | %s | Fold-seconds | Core-hours |\n", strings.Join(upper(t2.Datasets), " | "))
	fmt.Fprintf(w, "| --- | ---: |%s ---: | ---: |\n", strings.Repeat(" ---: |", len(t2.Datasets)))
	var total, totalPoints float64
	var notes []string
	for _, g := range grids {
		v := t2.Variants[order[g.Grid.Model]]
		points := g.Grid.Assignments()
		row := []string{v.Label, fmt.Sprint(len(points))}
		var sum float64
		for _, ds := range t2.Datasets {
			c, err := estimate(g, v, ds, points, secs, folds)
			if err != nil {
				return err
			}
			if c.missing != "" {
				row = append(row, "-")
				notes = append(notes, fmt.Sprintf("%s on %s: %s", v.Label, strings.ToUpper(ds), c.missing))
				continue
			}
			row = append(row, fmt.Sprintf("%.0f", c.cost))
			sum += c.cost
		}
		total += sum
		totalPoints += float64(len(points))
		row = append(row, fmt.Sprintf("%.0f", sum), fmt.Sprintf("%.1f", sum/3600))
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintf(w, "\nTotal: %.0f fold-seconds, %.1f core-hours (%d grids, %d points; %d outer folds, %d retrains each).\n",
		total, total/3600, len(grids), int(totalPoints), folds, experiment.Retrains)
	for _, n := range notes {
		fmt.Fprintf(w, "Not estimated: %s.\n", n)
	}
	return nil
}

// estimate is grid g's selection on dataset ds from the fixed Table 2
// cell of variant v in the log.
func estimate(g experiment.SelectGrid, v experiment.Variant, ds string, points []map[string]string, secs map[string][]float64, folds int) (cellCost, error) {
	var s []float64
	for label, xs := range secs {
		if l, d, ok := strings.Cut(label, " on "); ok && l == "t2: "+v.Label && strings.EqualFold(d, ds) {
			s = append(s, xs...)
		}
	}
	if len(s) == 0 {
		why := "no fold of the fixed configuration in the log"
		if r := v.Skip[ds]; r != "" {
			why += " (Table 2 skips it: " + r + ")"
		}
		return cellCost{missing: why}, nil
	}
	var mean float64
	for _, x := range s {
		mean += x
	}
	mean /= float64(len(s))
	_, fixed, err := experiment.Configs(data.GraphTask, v.Model, v.Options[ds])
	if err != nil {
		return cellCost{}, fmt.Errorf("the fixed row %s on %s: %w", v.Label, ds, err)
	}
	var ratios float64
	for _, a := range points {
		_, tc, err := experiment.Configs(data.GraphTask, g.Grid.Model, a)
		if err != nil {
			return cellCost{}, fmt.Errorf("%s: %w", g.File, err)
		}
		ratios += float64(tc.Epochs) / float64(fixed.Epochs)
	}
	perFold := mean * (ratios + float64(experiment.Retrains)*ratios/float64(len(points)))
	return cellCost{foldSeconds: mean, cost: perFold * float64(folds)}, nil
}

func upper(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strings.ToUpper(x)
	}
	return out
}
