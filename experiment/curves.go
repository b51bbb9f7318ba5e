package experiment

import (
	"fmt"

	"github.com/prcaps/prcaps/internal/atomicfile"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/train"
)

// Curves collects every run's per-epoch reports and writes them as a
// curves file (record.WriteCurves), ordered by run then epoch, when the
// protocol has finished. It is a train.Observer (Run adds it). The file
// is created when the run starts, so that a bad path fails before
// training.
type Curves struct {
	f              *atomicfile.File
	dataset, model string
	recs           []record.EpochRecord
}

// NewCurves starts the curves file at path for model on dataset; Close
// writes it whole (an interrupted run leaves an existing file as it was).
func NewCurves(path, dataset, model string) (*Curves, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("curves: %w", err)
	}
	return &Curves{f: f, dataset: dataset, model: model}, nil
}

// Epoch keeps run's epoch e (copying its curvatures: model.Curvature
// converts to record.Curvature, field for field, so a change to either
// fails to compile here).
func (c *Curves) Epoch(run int, e train.Epoch) {
	var curv []record.Curvature
	for _, k := range e.Curvatures {
		curv = append(curv, record.Curvature(k))
	}
	c.recs = append(c.recs, record.EpochRecord{Dataset: c.dataset, Model: c.model, Run: run, Epoch: e.Epoch, Loss: e.Loss,
		TrainAcc: e.TrainAcc, ValAcc: e.ValAcc, LR: e.LR, Best: e.Best, Curvatures: curv})
}

// Run does nothing: the epochs are the records.
func (c *Curves) Run(int, train.Result) {}

// Close writes the records and commits the file.
func (c *Curves) Close() error {
	err := record.WriteCurves(c.f, c.recs)
	if err == nil {
		err = c.f.Commit()
	} else {
		c.f.Abort()
	}
	if err != nil {
		return fmt.Errorf("curves: %w", err)
	}
	return nil
}

// Abort discards the records: an existing file keeps its content.
func (c *Curves) Abort() { c.f.Abort() }
