package experiment

import (
	"cmp"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

func (b *Bench) protocolNote() string {
	p := train.NodeProtocol{Split: b.opt.Split, Seeds: b.opt.Seeds}
	ep := "each model's default epochs"
	if b.opt.Epochs > 0 {
		ep = fmt.Sprintf("%d epoch(s)", b.opt.Epochs)
	}
	seeds := fmt.Sprintf("seed %d", b.opt.FirstSeed)
	if b.opt.Seeds > 1 {
		seeds = fmt.Sprintf("seeds %d-%d", b.opt.FirstSeed, b.opt.FirstSeed+b.opt.Seeds-1)
	}
	p.Parallel = b.opt.Parallel
	atOnce := "one run at a time, its kernels on every core"
	if n := p.RunsAtOnce(); n > 1 {
		atOnce = fmt.Sprintf("%d runs at once, each on one core", n)
		if b.opt.Parallel < 1 {
			atOnce += " (at most; fewer where memory is short)"
		}
	}
	return fmt.Sprintf("ACC: test accuracy at the best-validation epoch, mean ± std (population) over the runs of protocol %q, %s, %s. "+
		"Param: trainable parameters. Runtime: training wall time per run in seconds (evaluation every epoch; %s, GOMAXPROCS %d).",
		p.Name(), seeds, ep, atOnce, runtime.GOMAXPROCS(0))
}

// renderBench lays out a table: the key columns, then per dataset Param,
// Runtime, ACC and (where the paper has numbers) the paper's ACC.
func renderBench(t Table, dss []benchDataset, res [][]cellResult, protoNote string, notes []string) *report.Table {
	names := make([]string, len(dss))
	for i, d := range dss {
		names[i] = d.ds.Name
	}
	tab := &report.Table{Name: t.Name, Title: t.Title}
	if len(names) > 0 {
		tab.Title += " — " + strings.Join(names, ", ")
	}
	tab.Columns = slices.Clone(t.KeyCols)
	if tab.Columns == nil {
		tab.Columns = []string{"Model"}
	}
	paperCol := make([]bool, len(dss))
	for i, d := range dss {
		prefix := ""
		if len(dss) > 1 {
			prefix = d.ds.Name + " "
		}
		tab.Columns = append(tab.Columns, prefix+"Param", prefix+"Runtime (s)", prefix+"ACC")
		paperCol[i] = slices.ContainsFunc(t.Variants, func(v Variant) bool { return v.Paper[d.key] != "" })
		if paperCol[i] {
			tab.Columns = append(tab.Columns, prefix+"paper ACC")
		}
	}
	cellStats, statNotes := columnStats(t, dss, res)
	dropTime, timeNotes := runtimeOrigins(dss, res)
	for vi, v := range t.Variants {
		row := slices.Clone(v.keys())
		for di, d := range dss {
			cells := resultCells(res[vi][di])
			if dropTime[di] && cells[1] != report.Missing {
				cells[1] = report.Missing
			}
			if cs := cellStats[vi][di]; cs != nil {
				cs.Row, cs.Column = len(tab.Rows), tab.Columns[len(row)+2]
				if cs.TiedBest {
					cells[2] = report.Bold(cells[2])
				}
			}
			row = append(row, cells...)
			if paperCol[di] {
				row = append(row, orMissing(v.Paper[d.key]))
			}
		}
		tab.AddRow(row...)
	}
	for _, p := range t.Paper {
		row := slices.Clone(p.Keys)
		for di, d := range dss {
			c, ok := p.Cells[d.key]
			if !ok {
				c = PaperCell{report.Missing, report.Missing, report.Missing}
			}
			row = append(row, c.Params, c.Runtime, c.Acc)
			if paperCol[di] {
				row = append(row, report.Missing)
			}
		}
		tab.AddRow(row...)
	}
	tab.Notes = append(append(append([]string{protoNote}, timeNotes...), t.Notes...), notes...)
	tab.Notes = append(tab.Notes, beatsReference(t, dss, res)...)
	tab.Notes = append(tab.Notes, bestPerDataset(t, dss, res)...)
	tab.Notes = append(tab.Notes, statNotes...)
	for di := range dss {
		for vi := range t.Variants {
			if cs := cellStats[vi][di]; cs != nil {
				tab.Stats = append(tab.Stats, *cs)
			}
		}
	}
	return tab
}

// runtimeOrigins says, per dataset column, whether our rows' runtimes
// must be left out because their runs' seconds were measured at more than
// one commit or machine, or on a machine the fold log did not record
// (runOrigin), and the notes that say where each column's seconds come
// from: a time column compares like with like or is not shown.
func runtimeOrigins(dss []benchDataset, res [][]cellResult) ([]bool, []string) {
	drop := make([]bool, len(dss))
	byOrigin := map[string][]string{} // one origin: its columns
	var mixed []string
	mixedOrigins := map[string]bool{}
	for di, d := range dss {
		origins := map[string]bool{}
		for vi := range res {
			if r := res[vi][di]; !r.skipped && r.err == nil {
				for o := range r.origins {
					origins[o] = true
				}
			}
		}
		if len(origins) == 0 {
			continue
		}
		if len(origins) == 1 {
			o := slices.Collect(maps.Keys(origins))[0]
			if !strings.HasSuffix(o, " on "+unrecordedCPU) {
				byOrigin[o] = append(byOrigin[o], d.ds.Name)
				continue
			}
		}
		drop[di] = true
		mixed = append(mixed, d.ds.Name)
		for o := range origins {
			mixedOrigins[o] = true
		}
	}
	var notes []string
	for _, o := range slices.Sorted(maps.Keys(byOrigin)) {
		notes = append(notes, fmt.Sprintf("Runtime (s) of %s: every run of the column measured at %s; the machine's other load is not recorded.",
			strings.Join(byOrigin[o], ", "), o))
	}
	if len(mixed) > 0 {
		notes = append(notes, fmt.Sprintf("Runtime (s) is left out of %s: the column's runs were measured at %s "+
			"(more than one commit or machine, or a machine the fold log does not record: records written before they named their CPU), "+
			"so their seconds do not compare like with like; docs/performance.md compares speeds on one machine and commit.",
			strings.Join(mixed, ", "), strings.Join(slices.Sorted(maps.Keys(mixedOrigins)), "; ")))
	}
	return drop, notes
}

// bestPerDataset says, per dataset with two or more results, which variant
// has the highest mean accuracy, by how many points it leads the next, and
// where the reference variant ranks.
func bestPerDataset(t Table, dss []benchDataset, res [][]cellResult) []string {
	var notes []string
	for di, d := range dss {
		var ranked []int // variants with a result, best first
		for vi := range t.Variants {
			if c := res[vi][di]; c.err == nil && !c.skipped {
				ranked = append(ranked, vi)
			}
		}
		if len(ranked) < 2 {
			continue
		}
		acc := func(vi int) float64 { return res[vi][di].sum.MeanAcc }
		slices.SortStableFunc(ranked, func(a, b int) int { return cmp.Compare(acc(b), acc(a)) })
		best, next := ranked[0], ranked[1]
		ab, an := accPair(acc(best), acc(next))
		note := fmt.Sprintf("Best on %s: %s (%s), %s points above the next (%s, %s).", d.ds.Name,
			t.Variants[best].Label, ab, pointsApart(acc(best), acc(next)), t.Variants[next].Label, an)
		if ref := slices.IndexFunc(ranked, func(vi int) bool { return t.Variants[vi].Label == t.Reference }); ref > 0 {
			note += fmt.Sprintf(" %s ranks %d of %d, %s points below it.", t.Reference, ref+1, len(ranked), pointsApart(acc(best), acc(ranked[ref])))
		}
		notes = append(notes, note)
	}
	return notes
}

// accPair formats two mean accuracies with accDecimals(a, b) decimals.
func accPair(a, b float64) (string, string) {
	n := accDecimals(a, b)
	return fmt.Sprintf("%.*f", n, a), fmt.Sprintf("%.*f", n, b)
}

// accDecimals is 3, or 4 when three would show two different accuracies as
// a tie (0.761 above 0.761).
func accDecimals(a, b float64) int {
	if a != b && fmt.Sprintf("%.3f", a) == fmt.Sprintf("%.3f", b) {
		return 4
	}
	return 3
}

// pointsApart is a−b in percentage points, with one decimal, or two when
// one would show a difference as 0.0.
func pointsApart(a, b float64) string {
	d := 100 * (a - b)
	if s := fmt.Sprintf("%.1f", d); s != "0.0" || d == 0 {
		return s
	}
	return fmt.Sprintf("%.2f", d)
}

// beatsReference says, per dataset, which variants score a higher mean
// accuracy than the table's reference variant (with four decimals where
// three would show one of them level with the reference).
func beatsReference(t Table, dss []benchDataset, res [][]cellResult) []string {
	ref := slices.IndexFunc(t.Variants, func(v Variant) bool { return v.Label == t.Reference })
	if t.Reference == "" || ref < 0 {
		return nil
	}
	var notes []string
	for di, d := range dss {
		r := res[ref][di]
		if r.err != nil || r.skipped {
			continue
		}
		var better []int
		digits := 3
		for vi := range t.Variants {
			c := res[vi][di]
			if vi != ref && c.err == nil && !c.skipped && c.sum.MeanAcc > r.sum.MeanAcc {
				better = append(better, vi)
				digits = max(digits, accDecimals(c.sum.MeanAcc, r.sum.MeanAcc))
			}
		}
		if len(better) == 0 {
			notes = append(notes, fmt.Sprintf("On %s no other model scores above %s (%.3f).", d.ds.Name, t.Reference, r.sum.MeanAcc))
			continue
		}
		names := make([]string, len(better))
		for i, vi := range better {
			names[i] = fmt.Sprintf("%s (%.*f)", t.Variants[vi].Label, digits, res[vi][di].sum.MeanAcc)
		}
		verb := "score"
		if len(better) == 1 {
			verb = "scores"
		}
		notes = append(notes, fmt.Sprintf("On %s, %s %s above %s (%.*f).", d.ds.Name, strings.Join(names, ", "), verb, t.Reference, digits, r.sum.MeanAcc))
	}
	return notes
}

func resultCells(r cellResult) []string {
	if r.skipped {
		return []string{report.Missing, report.Missing, report.Missing}
	}
	if r.err != nil {
		return []string{report.Missing, report.Missing, report.Failed}
	}
	s := r.sum
	return []string{report.Params(s.Params), report.Seconds(s.SecondsPerRun), report.MeanStd(s.MeanAcc, s.StdAcc)}
}

func orMissing(s string) string {
	if s == "" {
		return report.Missing
	}
	return s
}

func (b *Bench) graphProtocolNote() string {
	atOnce := "one fold per core (fewer where memory is short)"
	if b.opt.Parallel > 0 {
		atOnce = fmt.Sprintf("%d fold(s)", b.opt.Parallel)
	}
	ep := "each model's recipe of epochs and mini-batch (PR-CapsNet: 100 epochs, batch 16)"
	if b.opt.Epochs > 0 {
		ep = fmt.Sprintf("%d epoch(s), each model's mini-batch (PR-CapsNet: 16)", b.opt.Epochs)
	}
	return fmt.Sprintf("ACC: test accuracy at the best-validation epoch (stratified 10%% validation split inside each training fold; ties: the later epoch), "+
		"mean ± std (population) over the folds of protocol %q, fold seed 0, model seeds %d-%d, %s "+
		"(in micro-batches of at most %d nodes, except models with batch norm%s). "+
		"Param: trainable parameters. Runtime: training wall time per fold in seconds (evaluation every epoch; each fold's kernels on one core, %s at once, GOMAXPROCS %d).",
		b.graphProtocol().Name(), b.opt.FirstSeed, b.opt.FirstSeed+b.opt.Folds-1, ep,
		train.DefaultMicroBatchNodes, seedsNote(b.opt.MicroBatchSeeds), atOnce, runtime.GOMAXPROCS(0))
}

// seedsNote says how the micro-batches draw their dropout masks when
// Options.MicroBatchSeeds overrides the recipes.
func seedsNote(v string) string {
	switch v {
	case "on":
		return "; seeded micro-batches for every model (--micro-batch-seeds on)"
	case "off":
		return "; no seeded micro-batches, PR-CapsNet's included (--micro-batch-seeds off)"
	}
	return ""
}
