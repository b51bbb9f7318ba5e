package record

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// BenchRecord is the JSON object `prcaps bench --json` prints per protocol
// run: the Summary contract (DESIGN §8) plus the table and the variant.
type BenchRecord struct {
	Table   string `json:"table"`
	Variant string `json:"variant"`
	Summary
	Error string `json:"error,omitempty"`
}

// MarshalJSON writes the record as its fields, except that an aggregate
// that is not a finite number (the mean of a cell none of whose runs
// finished, as when a bench is interrupted) is null: JSON has no NaN, and
// a 0 would read as a result.
func (r BenchRecord) MarshalJSON() ([]byte, error) {
	type plain BenchRecord
	s := r.Summary
	if finite(s.MeanAcc, s.StdAcc, s.MeanValAcc, s.TrainSeconds, s.SecondsPerRun) {
		return json.Marshal(plain(r))
	}
	num := func(x float64) *float64 {
		if !finite(x) {
			return nil
		}
		return &x
	}
	return json.Marshal(struct {
		plain
		MeanAcc       *float64 `json:"mean_acc"`
		StdAcc        *float64 `json:"std_acc"`
		MeanValAcc    *float64 `json:"mean_val_acc"`
		TrainSeconds  *float64 `json:"train_seconds"`
		SecondsPerRun *float64 `json:"seconds_per_run"`
	}{plain(r), num(s.MeanAcc), num(s.StdAcc), num(s.MeanValAcc), num(s.TrainSeconds), num(s.SecondsPerRun)})
}

// ReadBenchRecords parses the JSON lines `prcaps bench --json` prints
// (or a file of them): one BenchRecord per protocol run, the last line's
// suite summary skipped. name prefixes the errors.
func ReadBenchRecords(b []byte, name string) ([]BenchRecord, error) {
	var recs []BenchRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	for line := 1; dec.More(); line++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", name, line, err)
		}
		var head struct {
			Table string `json:"table"`
		}
		if err := json.Unmarshal(raw, &head); err != nil || head.Table == "" {
			continue // the suite summary (its "tables"), or not a record
		}
		var r BenchRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", name, line, err)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no bench records (prcaps bench --json output)", name)
	}
	return recs, nil
}

// FoldRecord is a line of a bench's fold log (`prcaps bench --log`): one
// finished fold of a graph-table cell, or one finished seed of a
// node-table cell. The log is appended with AppendLog and read with
// ReadLog (ValidFold).
type FoldRecord struct {
	Cell   string `json:"cell"`  // a digest of the configuration, data and protocol
	Label  string `json:"label"` // table, variant and dataset, for people
	Fold   int    `json:"fold"`
	Result Result `json:"result"`
	// Commit is the VCS revision the training binary was built from
	// ("+dirty" for a modified tree; empty when the build has none, as
	// with go run): the code is not part of Cell, so a table read from a
	// log says which commits trained it.
	Commit string `json:"commit,omitempty"`
	// CPU is the processor that trained the fold (empty in records
	// written before it was recorded): with Commit, it tells which
	// runtimes of a table compare.
	CPU string `json:"cpu,omitempty"`
	// Data is the dataset's fingerprint (also part of Cell), so that a
	// merge of shards' logs can say that two shards read different data
	// (empty in records written before it was recorded).
	Data string `json:"data,omitempty"`
}

// ValidFold reports whether r is a fold record: a line of another log
// decodes into a FoldRecord without a cell.
func ValidFold(r FoldRecord) bool { return r.Cell != "" && r.Fold >= 0 }
