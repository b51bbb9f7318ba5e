// Command selection compares epoch-selection rules of the graph protocol on
// validation logits alone, written by `prcaps train --val-logits DIR`.
//
//	go run ./tools/selection DIR
//
// A rule picks a run's epoch from per-epoch validation accuracy and loss.
// To score a rule without test labels, each fold's validation graphs are
// split many times into two stratified halves A and B: the rule picks an
// epoch on A, and it scores the accuracy of that epoch on B. The table gives
// each rule's mean B accuracy and its paired difference from the first rule
// with the standard error over folds. docs/notes/epoch-selection.md has the study
// that chose the graph protocol's rule this way.
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prcaps/prcaps/internal/fileguard"
)

// splits is the number of random halvings per fold.
const splits = 400

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/selection DIR  (DIR from prcaps train --val-logits DIR)")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "selection:", err)
		os.Exit(1)
	}
}

func run(dir string, w io.Writer) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*-fold*.tsv"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s: no <dataset>-foldNN.tsv files", dir)
	}
	slices.Sort(paths)
	byDataset := map[string][]string{}
	var names []string
	for _, p := range paths {
		b := filepath.Base(p)
		name := b[:strings.LastIndex(b, "-fold")]
		if _, ok := byDataset[name]; !ok {
			names = append(names, name)
		}
		byDataset[name] = append(byDataset[name], p)
	}
	grand := make([]float64, len(rules))
	for _, name := range names {
		var folds [][]float64 // per fold, each rule's mean B accuracy
		for i, p := range byDataset[name] {
			r, err := readRun(p)
			if err != nil {
				return err
			}
			folds = append(folds, r.splitHalf(rand.New(rand.NewPCG(uint64(i), 7))))
		}
		fmt.Fprintf(w, "%s (%d folds)\n", name, len(folds))
		for k, ru := range rules {
			mean, diff, se := pairedStats(folds, k)
			grand[k] += mean / float64(len(names))
			fmt.Fprintf(w, "  %-40s B acc %.4f  vs %s %+.4f ± %.4f\n", ru.name, mean, rules[0].name[:2], diff, se)
		}
	}
	fmt.Fprintln(w, "mean over datasets")
	for k, ru := range rules {
		fmt.Fprintf(w, "  %-40s %.4f  %+.4f\n", ru.name, grand[k], grand[k]-grand[0])
	}
	return nil
}

// pairedStats returns rule k's mean over folds and its mean difference from
// rule 0 with the standard error of that mean.
func pairedStats(folds [][]float64, k int) (mean, diff, se float64) {
	n := float64(len(folds))
	var d2 float64
	for _, f := range folds {
		mean += f[k] / n
		d := f[k] - f[0]
		diff += d / n
		d2 += d * d
	}
	return mean, diff, math.Sqrt(math.Max(0, d2/n-diff*diff) / math.Max(1, n-1))
}

// valRun holds one fold's validation results: for each epoch and graph,
// whether the graph was classified correctly and its cross-entropy.
type valRun struct {
	labels  []int32 // per graph, in first-seen order
	correct [][]bool
	loss    [][]float64
}

// maxRunBytes bounds one --val-logits file (an epoch's logits of a fold's
// validation graphs, a few hundred epochs: megabytes).
const maxRunBytes = 1 << 30

// readRun reads one --val-logits file.
func readRun(path string) (*valRun, error) {
	f, err := fileguard.Open(path, maxRunBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &valRun{}
	index := map[int]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		epoch, graph, label, logits, err := parseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if epoch > len(r.correct)+1 || epoch < len(r.correct) {
			return nil, fmt.Errorf("%s:%d: epoch %d after epoch %d", path, line, epoch, len(r.correct))
		}
		if epoch == len(r.correct)+1 {
			r.correct, r.loss = append(r.correct, nil), append(r.loss, nil)
		}
		if epoch == 1 {
			index[graph] = len(r.labels)
			r.labels = append(r.labels, int32(label))
		}
		if i, ok := index[graph]; !ok || i != len(r.correct[epoch-1]) || r.labels[i] != int32(label) {
			return nil, fmt.Errorf("%s:%d: graph %d (label %d) is not the next validation graph of epoch 1", path, line, graph, label)
		}
		ok, loss := score(logits, label)
		r.correct[epoch-1] = append(r.correct[epoch-1], ok)
		r.loss[epoch-1] = append(r.loss[epoch-1], loss)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.correct) == 0 {
		return nil, fmt.Errorf("%s: no epochs", path)
	}
	for e, c := range r.correct {
		if len(c) != len(r.labels) {
			return nil, fmt.Errorf("%s: epoch %d has %d graphs, epoch 1 has %d", path, e+1, len(c), len(r.labels))
		}
	}
	return r, nil
}

func parseLine(s string) (epoch, graph, label int, logits []float64, err error) {
	f := strings.Split(s, "\t")
	if len(f) < 5 {
		return 0, 0, 0, nil, fmt.Errorf("%d fields, want epoch, graph, label and at least two logits", len(f))
	}
	var ints [3]int
	for i := range ints {
		if ints[i], err = strconv.Atoi(f[i]); err != nil || ints[i] < 0 {
			return 0, 0, 0, nil, fmt.Errorf("field %d: %q is not a count", i+1, f[i])
		}
	}
	for _, x := range f[3:] {
		v, err := strconv.ParseFloat(x, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, 0, nil, fmt.Errorf("logit %q is not a finite number", x)
		}
		logits = append(logits, v)
	}
	if ints[0] < 1 || ints[2] >= len(logits) {
		return 0, 0, 0, nil, fmt.Errorf("epoch %d or label %d out of range", ints[0], ints[2])
	}
	return ints[0], ints[1], ints[2], logits, nil
}

// score returns whether the logits' first maximum is label, and the
// softmax cross-entropy of label.
func score(logits []float64, label int) (bool, float64) {
	m := slices.Max(logits)
	z := 0.0
	for _, v := range logits {
		z += math.Exp(v - m)
	}
	return slices.Index(logits, m) == label, m + math.Log(z) - logits[label]
}

// curves returns the accuracy and mean loss of each epoch on the graphs sub.
func (r *valRun) curves(sub []int) (acc, loss []float64) {
	acc, loss = make([]float64, len(r.correct)), make([]float64, len(r.correct))
	for e := range r.correct {
		for _, i := range sub {
			if r.correct[e][i] {
				acc[e]++
			}
			loss[e] += r.loss[e][i]
		}
		acc[e] /= float64(len(sub))
		loss[e] /= float64(len(sub))
	}
	return acc, loss
}

// splitHalf returns each rule's B accuracy averaged over random stratified
// halvings A | B of the validation graphs.
func (r *valRun) splitHalf(rng *rand.Rand) []float64 {
	byClass := map[int32][]int{}
	var classes []int32
	for i, y := range r.labels {
		if _, ok := byClass[y]; !ok {
			classes = append(classes, y)
		}
		byClass[y] = append(byClass[y], i)
	}
	slices.Sort(classes)
	means := make([]float64, len(rules))
	for s := range splits {
		var a, b []int
		for _, c := range classes {
			members := byClass[c]
			for k, j := range rng.Perm(len(members)) {
				if k%2 == s%2 {
					a = append(a, members[j])
				} else {
					b = append(b, members[j])
				}
			}
		}
		accA, lossA := r.curves(a)
		accB, _ := r.curves(b)
		for k, ru := range rules {
			means[k] += accB[ru.pick(accA, lossA)] / splits
		}
	}
	return means
}
