package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/stats"
	"github.com/prcaps/prcaps/train"
)

// TiedLevel is the significance level of the tables' tied-best sets.
const TiedLevel = 0.05

// columnStats compares, per dataset column of a table, every result cell
// with the one of the highest mean (DESIGN §6): a two-sided Wilcoxon
// signed-rank test and a paired t-test over the runs both cells have,
// paired by seed (a graph fold's seed is its fold's), Holm's correction
// over the column's comparisons, and the tied-best set at TiedLevel by the
// Holm-adjusted Wilcoxon p-value. Cells whose runs are not the same seeds
// as the best's are not compared. It returns the stats by variant and
// dataset (nil where a cell has no result) and the notes under the table.
func columnStats(t Table, dss []benchDataset, res [][]cellResult) ([][]*report.CellStats, []string) {
	out := make([][]*report.CellStats, len(t.Variants))
	for vi := range out {
		out[vi] = make([]*report.CellStats, len(dss))
	}
	var notes []string
	compared := false
	fewest := math.MaxInt // runs of the smallest comparison
	unit := "seed"
	if t.Graph {
		unit = "fold"
	}
	for di, d := range dss {
		var cells []int
		for vi := range t.Variants {
			if c := res[vi][di]; c.err == nil && !c.skipped && len(c.sum.Results) > 0 {
				cells = append(cells, vi)
			}
		}
		if len(cells) < 2 {
			continue
		}
		best := cells[0]
		for _, vi := range cells[1:] {
			if res[vi][di].sum.MeanAcc > res[best][di].sum.MeanAcc {
				best = vi
			}
		}
		bestAcc, _ := bySeed(res[best][di].sum.Results)
		var family []int // variants compared with the best
		var pw, pt []float64
		var unpaired []string
		for _, vi := range cells {
			s := res[vi][di].sum
			cs := &report.CellStats{Model: t.Variants[vi].Label, Dataset: d.ds.Name, Mean: s.MeanAcc, Std: s.StdAcc, N: len(s.Results),
				PVsBest: math.NaN(), PTVsBest: math.NaN(), PHolm: math.NaN()}
			out[vi][di] = cs
			if vi == best {
				cs.Best, cs.Paired, cs.TiedBest = true, true, true
				continue
			}
			acc, dup := bySeed(s.Results)
			a, b, ok := pairUp(bestAcc, acc)
			if !ok || dup {
				unpaired = append(unpaired, fmt.Sprintf("%s (%s %s against %s)", t.Variants[vi].Label, unit+"s", seedList(acc), seedList(bestAcc)))
				continue
			}
			w, err1 := stats.Wilcoxon(a, b)
			tt, err2 := stats.PairedT(a, b)
			if err1 != nil || err2 != nil {
				unpaired = append(unpaired, fmt.Sprintf("%s (%v)", t.Variants[vi].Label, cmpErr(err1, err2)))
				continue
			}
			cs.Paired, cs.PVsBest, cs.PTVsBest = true, w.P, tt.P
			fewest = min(fewest, len(a))
			family = append(family, vi)
			pw, pt = append(pw, w.P), append(pt, tt.P)
		}
		holm := stats.Holm(pw)
		var parts []string
		for i, vi := range family {
			cs := out[vi][di]
			cs.PHolm = holm[i]
			cs.TiedBest = holm[i] >= TiedLevel
			verdict := "below"
			if cs.TiedBest {
				verdict = "tied"
			}
			parts = append(parts, fmt.Sprintf("%s %s (%s; %s), %s", t.Variants[vi].Label, report.PValue(pw[i]), report.PValue(holm[i]), report.PValue(pt[i]), verdict))
		}
		if len(family) > 0 {
			compared = true
			notes = append(notes, fmt.Sprintf("Paired tests on %s against the highest mean, %s (%.3f), over the same %ss: Wilcoxon p (Holm-adjusted; paired t-test p): %s.",
				d.ds.Name, t.Variants[best].Label, res[best][di].sum.MeanAcc, unit, strings.Join(parts, "; ")))
		}
		if len(unpaired) > 0 {
			notes = append(notes, fmt.Sprintf("Not compared on %s, their runs not paired with %s's by %s: %s.", d.ds.Name, t.Variants[best].Label, unit, strings.Join(unpaired, "; ")))
		}
	}
	if compared {
		notes = append([]string{fmt.Sprintf("Bold: in each ACC column the highest mean and every result not significantly below it, by a two-sided Wilcoxon signed-rank test "+
			"against the highest mean paired by %s (exact up to 25 non-zero differences; zero differences dropped, ties mid-ranked), "+
			"Holm-corrected over the column's comparisons, at %g%%. \"tied\" is not \"equal\": it says that these %ss cannot tell the two apart. "+
			"The p-values per column follow; the JSON and the -stats.csv file carry them for every cell.", unit, 100*TiedLevel, unit)}, notes...)
		if fewest < 6 { // the smallest two-sided exact p is 2/2^n
			few := fmt.Sprintf("with %d %ss no difference can be significant at %g%% (the smallest two-sided Wilcoxon p is 2/2^%d = %.3g)", fewest, unit, 100*TiedLevel, fewest, 2/math.Ldexp(1, fewest))
			if fewest == 1 {
				few = fmt.Sprintf("with one %s no difference can be significant", unit)
			}
			notes[0] += " Here " + few + ": bold is not evidence of a tie."
		}
	}
	return out, notes
}

// bySeed maps each run's seed to its test accuracy and reports a seed
// that occurs twice.
func bySeed(rs []train.Result) (map[uint64]float64, bool) {
	m := make(map[uint64]float64, len(rs))
	dup := false
	for _, r := range rs {
		if _, ok := m[r.Seed]; ok {
			dup = true
		}
		m[r.Seed] = r.TestAcc
	}
	return m, dup
}

// pairUp returns, when both cells have exactly the same seeds, the
// accuracy differences best−other in seed order and as many zeros: the
// paired tests' two samples. The differences are rounded to 1e-12, so that
// equal accuracy differences computed in floating point (k/n − j/n for
// different k, j) tie as they should.
func pairUp(best, other map[uint64]float64) ([]float64, []float64, bool) {
	if len(best) != len(other) {
		return nil, nil, false
	}
	seeds := make([]uint64, 0, len(best))
	for s := range best {
		if _, ok := other[s]; !ok {
			return nil, nil, false
		}
		seeds = append(seeds, s)
	}
	slices.Sort(seeds)
	a := make([]float64, len(seeds))
	b := make([]float64, len(seeds))
	for i, s := range seeds {
		a[i] = math.Round((best[s]-other[s])*1e12) / 1e12
	}
	return a, b, true
}

// seedList is a short form of a set of seeds: "0-9", or the list.
func seedList(m map[uint64]float64) string {
	seeds := make([]uint64, 0, len(m))
	for s := range m {
		seeds = append(seeds, s)
	}
	slices.Sort(seeds)
	if len(seeds) == 0 {
		return "none"
	}
	if seeds[len(seeds)-1]-seeds[0] == uint64(len(seeds)-1) {
		if len(seeds) == 1 {
			return fmt.Sprint(seeds[0])
		}
		return fmt.Sprintf("%d-%d", seeds[0], seeds[len(seeds)-1])
	}
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ",")
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
