package experiment

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// RunTables runs every table, emitting each as it completes. A failing
// cell is a note in its table and a failure in Result, not an error; the
// error is the first that stops the bench (a dataset that cannot be read,
// or Emit's or Record's).
func (b *Bench) RunTables(tables []Table) error {
	for i, t := range tables {
		b.progress.Line("table %d/%d: %s (%s)", i+1, len(tables), t.Name, t.Title)
		tab, err := b.runTable(t)
		if err == nil && b.logErr != nil {
			err = fmt.Errorf("fold log: %w", b.logErr)
		}
		if err != nil {
			return err
		}
		if err := b.emit(tab); err != nil {
			return err
		}
		select {
		case <-b.opt.Stop:
			return fmt.Errorf("interrupted after table %s: %w", t.Name, train.ErrInterrupted)
		default:
		}
	}
	return nil
}

// stopped reports whether Options.Stop has been closed.
func (b *Bench) stopped() bool {
	select {
	case <-b.opt.Stop:
		return true
	default:
		return false
	}
}

// runTable runs every variant of t on every available dataset.
func (b *Bench) runTable(t Table) (*report.Table, error) {
	dss, notes, err := b.datasets(t)
	if err != nil {
		return nil, err
	}
	b.fromLog = map[string]int{}
	addLogNote := func() {
		if n := len(b.fromLog); n > 0 {
			var by []string
			total := 0
			for _, c := range slices.Sorted(maps.Keys(b.fromLog)) {
				by = append(by, fmt.Sprintf("%d at %s", b.fromLog[c], c))
				total += b.fromLog[c]
			}
			unit := "fold(s)"
			if !t.Graph {
				unit = "run(s)"
			}
			notes = append(notes, fmt.Sprintf("%d %s were read from %s (trained: %s), with the runtimes of the runs that trained them.",
				total, unit, b.logPhrase(), strings.Join(by, ", ")))
		}
	}
	if t.Graph {
		b.runGraphTableCells(t, dss)
		addLogNote()
	}
	res := make([][]cellResult, len(t.Variants))
	for vi, v := range t.Variants {
		res[vi] = make([]cellResult, len(dss))
		for di, d := range dss {
			if why, ok := v.Skip[d.key]; ok {
				res[vi][di] = cellResult{skipped: true}
				notes = append(notes, fmt.Sprintf("%s on %s: not run (%s).", v.Label, d.ds.Name, why))
				continue
			}
			s, origins, reused, err := b.memoVariant(t, v, d)
			if reused != "" {
				notes = append(notes, fmt.Sprintf("%s on %s: the same configuration as %s; its result is reused.", v.Label, d.ds.Name, reused))
			}
			res[vi][di] = cellResult{sum: s, err: err, origins: origins}
			if err == nil {
				b.finished++
			}
			if errors.Is(err, errNotInLog) {
				res[vi][di] = cellResult{skipped: true}
				notes = append(notes, fmt.Sprintf("%s on %s: %v.", v.Label, d.ds.Name, err))
				b.missing = append(b.missing, fmt.Sprintf("%s: %s on %s: %v", t.Name, v.Label, d.ds.Name, err))
				continue
			}
			if err != nil {
				msg := fmt.Sprintf("%s on %s failed: %v", v.Label, d.ds.Name, err)
				notes = append(notes, msg+".")
				b.failed = append(b.failed, t.Name+": "+msg)
				b.progress.Line("%s: %s", t.Name, msg)
			}
		}
	}
	note := b.protocolNote()
	if t.Graph {
		note = b.graphProtocolNote()
	} else {
		addLogNote()
	}
	return renderBench(t, dss, res, note, notes), nil
}

// memoVariant runs v on d unless an earlier table ran the identical
// configuration there, in which case it returns that result and where it
// came from. Either way it prints the JSON record.
func (b *Bench) memoVariant(t Table, v Variant, d benchDataset) (record.Summary, map[string]bool, string, error) {
	mc, tc, err := b.variantConfig(t, v, d.key)
	if err != nil {
		return record.Summary{}, nil, "", err
	}
	key := memoKey(v.Model, mc, tc, d.key, t.Graph)
	from := ""
	m, ok := b.memo[key]
	switch {
	case ok && m.fresh: // run ahead for this cell (runGraphTableCells)
		m.fresh = false
		b.memo[key] = m
	case ok:
		from = m.where
		b.progress.Line("%s: %s on %s: same configuration as %s, reusing its result", t.Name, v.Label, d.ds.Name, from)
	default:
		m.sum, m.origins, m.err = b.runVariant(t, v, mc, tc, d.ds)
		m.where = t.Name + "/" + v.Label
		b.memo[key] = m
	}
	rec := record.BenchRecord{Table: t.Name, Variant: v.Label, Summary: m.sum}
	if m.err != nil {
		rec.Error = m.err.Error()
	}
	if err := b.record(rec); err != nil {
		return m.sum, m.origins, from, err
	}
	return m.sum, m.origins, from, m.err
}

// runVariant runs the node protocol for v (configured as mc, tc) on ds.
// It also returns where its runs' seconds were measured (runOrigin).
func (b *Bench) runVariant(t Table, v Variant, mc model.Config, tc train.Config, ds *data.Dataset) (record.Summary, map[string]bool, error) {
	if t.Graph { // runTable runs every graph cell ahead, in runGraphTableCells
		return record.Summary{}, nil, fmt.Errorf("bench: %s/%s on %s was not run with its table's graph cells", t.Name, v.Label, ds.Name)
	}
	proto := b.nodeProtocol()
	label := fmt.Sprintf("%s %s %s", t.Name, v.Label, ds.Name)
	run := Run{Model: v.Model, Config: mc, Train: tc, Dataset: ds, Node: proto, Progress: b.progress, Label: label}
	key := nodeCellKey(memoKey(v.Model, mc, tc, ds.Name, false), ds, proto)
	if sum, origins, ok, err := b.nodeFromLog(run, key); ok || err != nil {
		return sum, origins, err
	}
	b.progress.Line("%s: %s on %s, %s, %d epochs", t.Name, v.Label, ds.Name, proto.Name(), tc.Epochs)
	logLabel := fmt.Sprintf("%s: %s on %s", t.Name, v.Label, ds.Name)
	if done := b.logged[key]; len(done) > 0 { // resume: train the runs missing from the log
		var todo []int
		for i := range proto.Seeds {
			if _, ok := done[i]; !ok {
				todo = append(todo, i)
			}
		}
		_, err := b.trainNodeSeeds(run, key, logLabel, todo)
		b.runs++
		if err != nil {
			return record.Summary{}, nil, err
		}
		sum, origins, _, err := b.nodeFromLog(run, key)
		return sum, origins, err
	}
	if b.opt.Log != "" {
		b.logRuns(&run.Observer, key, logLabel, ds.Fingerprint(), 0)
	}
	sum, err := run.Do()
	b.runs++
	if err == nil {
		b.progress.Line("%s: %s on %s: %s, %s params, %.2f s per run", t.Name, v.Label, ds.Name,
			report.MeanStd(sum.MeanAcc, sum.StdAcc), report.Params(sum.Params), sum.SecondsPerRun)
	}
	return sum, map[string]bool{hereOrigin(): true}, err
}

// nodeProtocol is the node protocol of the bench's node tables.
func (b *Bench) nodeProtocol() train.NodeProtocol {
	return train.NodeProtocol{Split: b.opt.Split, Seeds: b.opt.Seeds, FirstSeed: uint64(b.opt.FirstSeed), Parallel: b.opt.Parallel, Stop: b.opt.Stop}
}
