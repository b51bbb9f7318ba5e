package experiment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/prcaps/prcaps/internal/atomicfile"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// EpochRecord is one line of a training-curves file (train --curves): one
// epoch of one run (seed or fold), what the trainer reports after it. The
// test accuracy is left out: curves are for looking at training, and the
// protocol's selection never reads it.
type EpochRecord struct {
	Dataset    string            `json:"dataset"`
	Model      string            `json:"model"`
	Run        int               `json:"run"` // 0-based seed or fold index
	Epoch      int               `json:"epoch"`
	Loss       float64           `json:"loss"`
	TrainAcc   float64           `json:"train_acc"`
	ValAcc     float64           `json:"val_acc"`
	LR         float64           `json:"lr"`
	Best       bool              `json:"best"` // the best validation accuracy so far
	Curvatures []model.Curvature `json:"curvatures,omitempty"`
}

// Curves collects every run's per-epoch reports and writes them as JSON
// lines, ordered by run then epoch, when the protocol has finished. It is
// a train.Observer (Run adds it). The file is created when the run starts,
// so that a bad path fails before training.
type Curves struct {
	f              *atomicfile.File
	dataset, model string
	recs           []EpochRecord
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

// Epoch keeps run's epoch e (copying its curvatures).
func (c *Curves) Epoch(run int, e train.Epoch) {
	c.recs = append(c.recs, EpochRecord{Dataset: c.dataset, Model: c.model, Run: run, Epoch: e.Epoch, Loss: e.Loss,
		TrainAcc: e.TrainAcc, ValAcc: e.ValAcc, LR: e.LR, Best: e.Best, Curvatures: slices.Clone(e.Curvatures)})
}

// Run does nothing: the epochs are the records.
func (c *Curves) Run(int, train.Result) {}

// Close writes the records and commits the file.
func (c *Curves) Close() error {
	slices.SortStableFunc(c.recs, func(a, b EpochRecord) int {
		if a.Run != b.Run {
			return a.Run - b.Run
		}
		return a.Epoch - b.Epoch
	})
	w := bufio.NewWriter(c.f)
	enc := json.NewEncoder(w)
	var err error
	for i := range c.recs {
		if err = enc.Encode(&c.recs[i]); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
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

// ReadCurves parses the content of a curves file written by Close; name
// (the file's path) prefixes its errors.
func ReadCurves(data []byte, name string) ([]EpochRecord, error) {
	var recs []EpochRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	for line := 1; dec.More(); line++ {
		var r EpochRecord
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", name, line, err)
		}
		if r.Epoch < 1 || r.Run < 0 {
			return nil, fmt.Errorf("%s: record %d: epoch %d of run %d is not a training epoch", name, line, r.Epoch, r.Run)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no epoch records", name)
	}
	return recs, nil
}
