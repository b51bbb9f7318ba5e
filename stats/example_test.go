package stats_test

import (
	"fmt"

	"github.com/prcaps/prcaps/stats"
)

// Two models' test accuracies (in points) on the same ten folds: the paired tests
// against the better one, and Holm's correction over a family of three
// comparisons.
func Example() {
	best := []float64{89, 84, 95, 79, 90, 84, 83, 94, 79, 95}
	other := []float64{84, 79, 89, 84, 90, 74, 83, 83, 68, 79}
	w, _ := stats.Wilcoxon(best, other)
	tt, _ := stats.PairedT(best, other)
	s, _ := stats.Sign(best, other)
	fmt.Printf("Wilcoxon: n %d (%d zero), W %.1f, exact %v, p %.4f\n", w.N, w.Zeros, w.Statistic, w.Exact, w.P)
	fmt.Printf("t-test: t %.3f, df %d, p %.4f\n", tt.T, tt.DF, tt.P)
	fmt.Printf("signs: %d+ %d- %d zero, p %.4f\n", s.Pos, s.Neg, s.Zeros, s.P)
	fmt.Printf("Holm: %.4f\n", stats.Holm([]float64{w.P, 0.2, 0.01}))
	// Output:
	// Wilcoxon: n 8 (2 zero), W 2.0, exact true, p 0.0312
	// t-test: t 2.946, df 9, p 0.0163
	// signs: 7+ 1- 2 zero, p 0.0703
	// Holm: [0.0625 0.2000 0.0300]
}
