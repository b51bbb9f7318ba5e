// Command selectpaired compares, fold by fold, the fair model selection
// protocol's results (`prcaps bench --select ... --json`) with the fixed
// configurations' Table 2 cells: for every model and dataset in both, the
// folds' test accuracies paired by outer fold (the same stratified
// split), with a two-sided paired t-test and a Wilcoxon signed-rank test
// (package stats).
//
//	prcaps bench --suite graph --dataset mutag --models prcapsnet,gin,mlp --log-only \
//	    --log docs/results/table2-folds.jsonl --json > fixed.json
//	go run ./tools/selectpaired -fixed fixed.json -log docs/results/table2-folds.jsonl -selected selected.json
//
// The fixed folds come from the fold log; the bench's records say which of
// its cells the table used (a label may have cells of older settings):
// the one of the label whose folds' mean test accuracy is the record's.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/prcaps/prcaps/internal/fileguard"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/stats"
)

// maxBytes bounds an input: bench --json output of a few tables.
const maxBytes = 64 << 20

func main() {
	fixed := flag.String("fixed", "", "`file` of prcaps bench --json output: the fixed configurations")
	log := flag.String("log", "", "the fold `log` the fixed bench read (--log-only --log)")
	selected := flag.String("selected", "", "`file` of prcaps bench --select --json output")
	flag.Parse()
	if err := run(*fixed, *log, *selected, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "selectpaired:", err)
		os.Exit(1)
	}
}

// readFolds reads a fold log into test accuracies by label, cell and fold.
func readFolds(path string) (map[string]map[string]map[int]float64, error) {
	b, err := fileguard.ReadFile(path, maxBytes)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]map[int]float64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxBytes)
	for line := 1; sc.Scan(); line++ {
		var r record.FoldRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
		}
		if out[r.Label] == nil {
			out[r.Label] = map[string]map[int]float64{}
		}
		if out[r.Label][r.Cell] == nil {
			out[r.Label][r.Cell] = map[int]float64{}
		}
		out[r.Label][r.Cell][r.Fold] = r.Result.TestAcc
	}
	return out, nil
}

// fixedFolds are the test accuracies, in fold order, of the cell of label
// with n folds whose mean is meanAcc.
func fixedFolds(folds map[string]map[string]map[int]float64, label string, n int, meanAcc float64) ([]float64, error) {
	var found []float64
	for cell, byFold := range folds[label] {
		if len(byFold) != n {
			continue
		}
		accs := make([]float64, n)
		for f := range n {
			accs[f] = byFold[f]
		}
		if d := mean(accs) - meanAcc; d > 1e-12 || d < -1e-12 {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%s: two cells (one %s) of %d folds with mean %v", label, cell, n, meanAcc)
		}
		found = accs
	}
	if found == nil {
		return nil, fmt.Errorf("%s: no cell of %d folds with mean %v in the log", label, n, meanAcc)
	}
	return found, nil
}

func run(fixedPath, logPath, selPath string, w io.Writer) error {
	if fixedPath == "" || logPath == "" || selPath == "" {
		return fmt.Errorf("give -fixed, -log and -selected")
	}
	folds, err := readFolds(logPath)
	if err != nil {
		return err
	}
	fb, err := fileguard.ReadFile(fixedPath, maxBytes)
	if err != nil {
		return err
	}
	fixed, err := record.ReadBenchRecords(fb, fixedPath)
	if err != nil {
		return err
	}
	sb, err := fileguard.ReadFile(selPath, maxBytes)
	if err != nil {
		return err
	}
	var sels []record.SelectRecord
	sc := bufio.NewScanner(bytes.NewReader(sb))
	sc.Buffer(nil, maxBytes)
	for line := 1; sc.Scan(); line++ {
		var r record.SelectRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s: line %d: %w", selPath, line, err)
		}
		if r.Model != "" && len(r.Folds) > 0 {
			sels = append(sels, r)
		}
	}
	if len(sels) == 0 {
		return fmt.Errorf("%s: no selection records (prcaps bench --select --json output)", selPath)
	}
	fmt.Fprintln(w, "| Model | Dataset | folds | fixed ACC | selected ACC | mean difference (selected − fixed) | paired t p | Wilcoxon p |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, s := range sels {
		for _, f := range fixed {
			if f.Model != s.Model || f.Dataset != s.Dataset {
				continue
			}
			b, err := fixedFolds(folds, fmt.Sprintf("%s: %s on %s", f.Table, f.Variant, f.Dataset), len(s.Folds), f.MeanAcc)
			if err != nil {
				return fmt.Errorf("%s: %w", logPath, err)
			}
			var a []float64
			for i, x := range s.Folds {
				if x.Fold != i {
					return fmt.Errorf("%s: %s on %s: folds out of order", selPath, s.Model, s.Dataset)
				}
				a = append(a, x.TestAcc)
			}
			t, err := stats.PairedT(a, b)
			if err != nil {
				return err
			}
			wx, err := stats.Wilcoxon(a, b)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "| %s | %s | %d | %.3f | %.3f | %+.3f | %.3f | %.3f |\n", f.Variant, s.Dataset, t.N, mean(b), mean(a), t.MeanDiff, t.P, wx.P)
		}
	}
	return nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
