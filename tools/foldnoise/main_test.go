package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
)

// A perfect classifier has no spread; a 50% one on 10 folds of 100 has
// the hypergeometric spread, √(p(1−p)/n · (N−n)/(N−1)) per fold, shrunk
// by the population std of ten draws (about 0.95 of it at the median).
func TestSpreads(t *testing.T) {
	labels := make([]int32, 1000)
	for i := range labels {
		labels[i] = int32(i % 2)
	}
	splits, err := data.StratifiedKFoldVal(labels, 10, 0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range spreads(labels, 2, splits, 1, 50, rng) {
		if s != 0 {
			t.Fatalf("perfect classifier: spread %v", s)
		}
	}
	stds := spreads(labels, 2, splits, 0.5, 4000, rng)
	slices.Sort(stds)
	sigma := math.Sqrt(0.25 / 100 * 900 / 999)
	if med := stds[len(stds)/2]; math.Abs(med-0.95*sigma) > 0.05*sigma {
		t.Errorf("median spread %.4f, want about %.4f", med, 0.95*sigma)
	}
}

func TestRunMUTAG(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b, "", 200, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| MUTAG | 18-19 | 0.832 ± 0.023 |") {
		t.Errorf("no MUTAG row in\n%s", b.String())
	}
}
