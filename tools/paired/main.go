// Command paired compares two `prcaps train --json` outputs run for run:
// the test accuracies of the runs of equal seed, their mean difference
// (A − B) and the paired t and Wilcoxon signed-rank tests (package stats).
//
//	go run ./tools/paired A.jsonl B.jsonl
//
// Each file holds the JSON lines `prcaps train --json` prints: one object
// per run (with "seed" and "test_acc") and the summary on the last line,
// which is skipped. docs/notes/sampling.md compares sampled and full-batch
// training this way.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/prcaps/prcaps/internal/fileguard"
	"github.com/prcaps/prcaps/stats"
)

// maxInput bounds each input file.
const maxInput = 64 << 20

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "paired:", err)
		os.Exit(2)
	}
}

func run(args []string, w io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: paired A.jsonl B.jsonl")
	}
	a, err := readRuns(args[0])
	if err != nil {
		return err
	}
	b, err := readRuns(args[1])
	if err != nil {
		return err
	}
	var seeds []uint64
	for s := range a {
		if _, ok := b[s]; ok {
			seeds = append(seeds, s)
		}
	}
	slices.Sort(seeds)
	if len(seeds) < 2 {
		return fmt.Errorf("%d seeds in common: need at least two pairs", len(seeds))
	}
	var xa, xb []float64
	for _, s := range seeds {
		xa, xb = append(xa, a[s]), append(xb, b[s])
	}
	t, err := stats.PairedT(xa, xb)
	if err != nil {
		return err
	}
	wt, err := stats.Wilcoxon(xa, xb)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "pairs %d (seeds %d..%d)\nA %s: mean test accuracy %.4f\nB %s: mean test accuracy %.4f\n",
		len(seeds), seeds[0], seeds[len(seeds)-1], args[0], mean(xa), args[1], mean(xb))
	fmt.Fprintf(w, "A − B: %+.4f (%+.2f points); paired t = %.3f, df %d, p = %.4f; Wilcoxon W = %.1f (%d non-zero pairs), p = %.4f\n",
		t.MeanDiff, 100*t.MeanDiff, t.T, t.DF, t.P, wt.Statistic, wt.N, wt.P)
	return nil
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// readRuns reads the per-run records of a --json output: seed → test
// accuracy. A seed twice is an error.
func readRuns(path string) (map[uint64]float64, error) {
	b, err := fileguard.ReadFile(path, maxInput)
	if err != nil {
		return nil, err
	}
	out := map[uint64]float64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxInput)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			Seed    *uint64  `json:"seed"`
			TestAcc *float64 `json:"test_acc"`
		}
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if r.Seed == nil || r.TestAcc == nil {
			continue // the summary
		}
		if _, dup := out[*r.Seed]; dup {
			return nil, fmt.Errorf("%s:%d: seed %d appears twice", path, line, *r.Seed)
		}
		out[*r.Seed] = *r.TestAcc
	}
	return out, sc.Err()
}
