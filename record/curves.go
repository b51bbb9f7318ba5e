package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Curvature is one learned curvature of a model, as the curves file keeps
// it: its parameter's name and the curvature β it encodes.
type Curvature struct {
	Name string  `json:"name"`
	Beta float64 `json:"beta"`
}

// EpochRecord is one line of a training-curves file (train --curves): one
// epoch of one run (seed or fold), what the trainer reports after it. The
// test accuracy is left out: curves are for looking at training, and the
// protocol's selection never reads it.
type EpochRecord struct {
	Dataset    string      `json:"dataset"`
	Model      string      `json:"model"`
	Run        int         `json:"run"` // 0-based seed or fold index
	Epoch      int         `json:"epoch"`
	Loss       float64     `json:"loss"`
	TrainAcc   float64     `json:"train_acc"`
	ValAcc     float64     `json:"val_acc"`
	LR         float64     `json:"lr"`
	Best       bool        `json:"best"` // the best validation accuracy so far
	Curvatures []Curvature `json:"curvatures,omitempty"`
}

// WriteCurves writes recs to w as a curves file: JSON lines ordered by run
// then epoch (recs is sorted in place, stably, since runs trained at once
// report their epochs interleaved).
func WriteCurves(w io.Writer, recs []EpochRecord) error {
	slices.SortStableFunc(recs, func(a, b EpochRecord) int {
		if a.Run != b.Run {
			return a.Run - b.Run
		}
		return a.Epoch - b.Epoch
	})
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadCurves parses the content of a curves file (WriteCurves); name (the
// file's path) prefixes its errors.
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
