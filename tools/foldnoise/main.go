// Command foldnoise asks whether a reported "mean ± std" can be the mean
// and standard deviation of the ten test-fold accuracies of stratified
// 10-fold cross-validation, the protocol of DESIGN §6.
//
//	go run ./tools/foldnoise [-data DIR] [-sims N] [-seed S]
//
// Even a classifier whose every prediction is fixed in advance has
// test-fold accuracies that vary from fold to fold, because the folds
// hold different graphs. For each dataset the tool takes the folds the
// graph protocol uses (fold seed 0), and a classifier that classifies a
// fraction p of each class correctly, p being the reported mean. It
// places the correctly classified graphs of each class among that class's
// graphs at random, N times, and computes the population standard
// deviation of the ten fold accuracies each time. This is the spread the
// protocol shows for that mean before any variation of training: a real
// network's errors add that of ten trainings on different data. The table
// gives the median and the 1st percentile of that spread, and the
// fraction of draws at or below the reported std.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/stats"
)

// reported is PR-CapsNet's row of the paper's Table 2 (ACC, mean ± std).
var reported = []struct {
	name      string
	mean, std float64
}{
	{"mutag", 0.832, 0.023},
	{"nci1", 0.711, 0.003},
	{"nci109", 0.732, 0.033},
	{"dd", 0.733, 0.089},
	{"proteins", 0.768, 0.010},
}

func main() {
	root := flag.String("data", os.Getenv("PRCAPS_DATA"), "data root (default $PRCAPS_DATA; MUTAG is embedded)")
	sims := flag.Int("sims", 20000, "random placements per dataset")
	seed := flag.Uint64("seed", 1, "seed of the placements")
	flag.Parse()
	if *sims < 100 {
		fmt.Fprintln(os.Stderr, "foldnoise: -sims must be at least 100")
		os.Exit(2)
	}
	if err := run(os.Stdout, *root, *sims, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "foldnoise:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, root string, sims int, seed uint64) error {
	fmt.Fprintln(w, "| dataset | test graphs per fold | reported | spread of a fixed classifier: median (1st percentile) | draws at or below the reported std |")
	fmt.Fprintln(w, "|---|---|---|---|---:|")
	for _, r := range reported {
		ds, err := data.Load(r.name, data.Options{Root: root})
		if err != nil {
			fmt.Fprintf(w, "| %s | | %.3f ± %.3f | not loaded: %v | |\n", r.name, r.mean, r.std, err)
			continue
		}
		labels := make([]int32, len(ds.Graph.Graphs))
		for i, g := range ds.Graph.Graphs {
			labels[i] = g.Label
		}
		splits, err := data.StratifiedKFoldVal(labels, 10, data.DefaultInnerVal, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", ds.Graph.Name, err)
		}
		stds := spreads(labels, ds.Graph.NumClasses, splits, r.mean, sims, rand.New(rand.NewPCG(seed, 7)))
		slices.Sort(stds)
		below, _ := slices.BinarySearch(stds, r.std+1e-12)
		lo, hi := len(splits[0].Test), len(splits[0].Test)
		for _, s := range splits {
			lo, hi = min(lo, len(s.Test)), max(hi, len(s.Test))
		}
		fmt.Fprintf(w, "| %s | %d-%d | %.3f ± %.3f | %.3f (%.3f) | %s |\n", ds.Graph.Name, lo, hi, r.mean, r.std,
			stds[len(stds)/2], stds[len(stds)/100], fraction(below, len(stds)))
	}
	return nil
}

// spreads returns sims draws of the population std of the folds' test
// accuracies of a classifier that is right on round(p·n_c) random graphs
// of each class c.
func spreads(labels []int32, classes int, splits []data.Split, p float64, sims int, rng *rand.Rand) []float64 {
	byClass := make([][]int32, classes)
	for i, y := range labels {
		byClass[y] = append(byClass[y], int32(i))
	}
	right := make([]bool, len(labels))
	accs := make([]float64, len(splits))
	out := make([]float64, sims)
	for s := range out {
		for _, members := range byClass {
			k := int(math.Round(p * float64(len(members))))
			rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
			for i, g := range members {
				right[g] = i < k
			}
		}
		for f, sp := range splits {
			n := 0
			for _, g := range sp.Test {
				if right[g] {
					n++
				}
			}
			accs[f] = float64(n) / float64(len(sp.Test))
		}
		_, out[s] = stats.MeanStd(accs)
	}
	return out
}

func fraction(k, n int) string {
	if k == 0 {
		return fmt.Sprintf("0 of %d", n)
	}
	return fmt.Sprintf("%.4f", float64(k)/float64(n))
}
