package record

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cell none of whose runs finished (an interrupted bench) has NaN
// aggregates; its record still encodes, with nulls and its error, and a
// finished cell's record is its plain fields.
func TestBenchRecordJSON(t *testing.T) {
	nan := math.NaN()
	r := BenchRecord{Table: "t2", Variant: "GIN-0", Summary: Summary{Dataset: "MUTAG", MeanAcc: nan, StdAcc: nan, MeanValAcc: nan},
		Error: "interrupted"}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back["mean_acc"] != nil || back["std_acc"] != nil || back["error"] != "interrupted" || back["dataset"] != "MUTAG" || back["runs"] != 0.0 {
		t.Errorf("record of an unfinished cell: %s", b)
	}
	if _, ok := back["mean_acc"]; !ok {
		t.Errorf("mean_acc missing, want null: %s", b)
	}
	r.MeanAcc, r.StdAcc, r.MeanValAcc, r.Error = 0.8, 0.1, 0.85, ""
	type plain BenchRecord
	got, _ := json.Marshal(r)
	want, _ := json.Marshal(plain(r))
	if string(got) != string(want) {
		t.Errorf("finished cell: %s, want %s", got, want)
	}
}

// The committed bench outputs read back (the suite summary skipped), and
// each record written again is the line it was read from, byte for byte.
func TestCommittedBenchRecordsRoundTrip(t *testing.T) {
	for _, name := range []string{"ablation-cora.jsonl", "table3-cora-citeseer.jsonl", "table3-cs.jsonl", "table2-gin-nci1.jsonl"} {
		path := filepath.Join("..", "docs", "results", name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := ReadBenchRecords(b, path)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if strings.HasPrefix(l, `{"table":`) {
				lines = append(lines, l)
			}
		}
		if len(recs) != len(lines) || len(recs) == 0 {
			t.Fatalf("%s: %d records of %d record lines", name, len(recs), len(lines))
		}
		for i, r := range recs {
			if got, _ := json.Marshal(r); string(got) != lines[i] {
				t.Fatalf("%s: record %d written again as\n%s\nwant\n%s", name, i+1, got, lines[i])
			}
		}
	}
	if _, err := ReadBenchRecords([]byte(`{"suite":"x","tables":[]}`+"\n"), "only-summary.jsonl"); err == nil || !strings.Contains(err.Error(), "only-summary.jsonl") {
		t.Errorf("a file without records: %v, want an error naming it", err)
	}
	if _, err := ReadBenchRecords([]byte(`{"table":"t","runs":"ten"}`), "bad.jsonl"); err == nil || !strings.Contains(err.Error(), "bad.jsonl: record 1") {
		t.Errorf("a malformed record: %v, want an error naming its file and record", err)
	}
}
