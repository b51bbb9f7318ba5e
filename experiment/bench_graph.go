package experiment

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/report"
	"github.com/prcaps/prcaps/train"
)

// graphProtocol is the graph protocol of the bench's graph tables (DESIGN
// §6): stratified --folds-fold CV, fold seed 0, --first-seed for fold 0.
func (b *Bench) graphProtocol() train.GraphProtocol {
	return train.GraphProtocol{Folds: b.opt.Folds, FirstSeed: uint64(b.opt.FirstSeed), Parallel: b.opt.Parallel, Stop: b.opt.Stop,
		MicroBatchSeeds: b.opt.MicroBatchSeeds, ItersPerEpoch: b.opt.ItersPerEpoch}
}

// runGraphTableCells runs, in one pool of --parallel folds
// (train.RunGraphProtocols), every cell of graph table t on dss that no
// earlier table ran, and memoises the results, which runTable's loop then
// reads in table order. Run one cell after another, each dataset's last
// fold would leave a core idle; pooled, the small datasets' folds fill it.
func (b *Bench) runGraphTableCells(t Table, dss []benchDataset) {
	type cell struct {
		key, where, label, model string
		origins                  map[string]bool
	}
	var cells []cell
	var jobs []train.GraphJob
	for _, v := range t.Variants {
		for _, d := range dss {
			if _, skip := v.Skip[d.key]; skip {
				continue
			}
			mc, tc, err := b.variantConfig(t, v, d.key)
			if err != nil {
				continue // runTable's loop reports it
			}
			key := memoKey(v.Model, mc, tc, d.key, t.Graph)
			if _, done := b.memo[key]; done || slices.ContainsFunc(cells, func(c cell) bool { return c.key == key }) {
				continue
			}
			c := cell{key: key, where: t.Name + "/" + v.Label, label: fmt.Sprintf("%s: %s on %s", t.Name, v.Label, d.ds.Name), model: v.Model}
			job, err := b.graphJob(fmt.Sprintf("%s %s %s", t.Name, v.Label, d.ds.Name), v.Model, mc, tc, d.ds)
			if err != nil {
				b.memo[key] = memoRun{err: err, where: c.where, fresh: true}
				continue
			}
			cell := cellKey(key, d.ds, job.Protocol)
			if b.opt.LogOnly {
				if n := len(b.logged[cell]); n < b.opt.Folds {
					b.memo[key] = memoRun{err: fmt.Errorf("%w: %d of %d folds there%s", errNotInLog, n, b.opt.Folds, missingText(b.logged[cell], b.opt.Folds, "fold")), where: c.where, fresh: true}
					continue
				}
			}
			c.origins = b.resume(&job, cell, c.label, d.ds.Fingerprint())
			if len(job.Done) < job.Protocol.Runs() {
				c.origins[hereOrigin()] = true
			}
			cells = append(cells, c)
			jobs = append(jobs, job)
			b.progress.Line("%s, %s, %d epochs", c.label, b.graphProtocol().Name(), tc.Epochs)
		}
	}
	if len(jobs) == 0 {
		return
	}
	parallel := b.opt.Parallel
	if parallel < 1 { // one fold per core, as many as every job's memory check allows
		parallel = runtime.GOMAXPROCS(0)
		for _, j := range jobs {
			parallel = min(parallel, j.Protocol.FoldsAtOnce())
		}
	}
	sums, errs := train.RunGraphProtocols(jobs, parallel)
	for i, c := range cells {
		sums[i].Model = c.model
		b.runs++
		if errs[i] == nil {
			b.progress.Line("%s: %s, %s params, %.2f s per fold", c.label,
				report.MeanStd(sums[i].MeanAcc, sums[i].StdAcc), report.Params(sums[i].Params), sums[i].SecondsPerRun)
		}
		b.memo[c.key] = memoRun{sum: sums[i], err: errs[i], where: c.where, fresh: true, origins: c.origins}
	}
}

// graphJob is the graph protocol for model name configured as mc, tc on
// ds, with progress lines under label.
func (b *Bench) graphJob(label, name string, mc model.Config, tc train.Config, ds *data.Dataset) (train.GraphJob, error) {
	run := Run{Model: name, Config: mc, Train: tc, Dataset: ds, Graph: b.graphProtocol(), Progress: b.progress, Label: label}
	return run.GraphJob()
}
