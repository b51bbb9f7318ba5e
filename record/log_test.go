package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log is appended to regular files only: a symlink or a device given
// as the log is an error, never followed or written.
func TestAppendLogRegularOnly(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.jsonl")
	os.WriteFile(target, []byte("{}\n"), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	for _, path := range []string{link, dir, os.DevNull} {
		if err := AppendLog(path, map[string]int{"fold": 1}); err == nil {
			t.Errorf("AppendLog(%s) succeeded", path)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "{}\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if err := AppendLog(target, map[string]int{"fold": 1}); err != nil {
		t.Error(err)
	}
}

// A line cut short by a crash is cut off the file, so that the next
// append starts on a fresh line; a malformed line before the last one is
// an error naming the file and line; a missing file is an empty log.
func TestReadLogCutsPartialLastLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log.jsonl")
	whole := `{"cell":"a","fold":0,"result":{"seed":0}}` + "\n" + `{"cell":"a","fold":1,"result":{"seed":1}}` + "\n"
	if err := os.WriteFile(path, []byte(whole+`{"cell":"a","fo`), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadLog(path, "bench fold", ValidFold)
	if err != nil || len(recs) != 2 || recs[1].Result.Seed != 1 {
		t.Fatalf("ReadLog = %+v, %v; want the two whole records", recs, err)
	}
	if b, _ := os.ReadFile(path); string(b) != whole {
		t.Errorf("after ReadLog the file holds %q, want the whole records only", b)
	}
	if err := AppendLog(path, FoldRecord{Cell: "a", Fold: 2}); err != nil {
		t.Fatal(err)
	}
	if recs, err := ReadLog(path, "bench fold", ValidFold); err != nil || len(recs) != 3 {
		t.Errorf("after an append: %d records, %v; want 3", len(recs), err)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"fold":0}`+"\n"+whole), 0o644)
	if _, err := ReadLog(bad, "bench fold", ValidFold); err == nil || !strings.Contains(err.Error(), bad+":1") {
		t.Errorf("a record without a cell on line 1: %v, want an error naming %s:1", err, bad)
	}
	if recs, err := ReadLog(filepath.Join(dir, "none.jsonl"), "bench fold", ValidFold); err != nil || recs != nil {
		t.Errorf("a missing log: %v, %v; want empty", recs, err)
	}
}

// The committed fold logs read back, and each record written again is
// the line it was read from, byte for byte: the format has not moved.
func TestCommittedFoldLogsRoundTrip(t *testing.T) {
	for _, name := range []string{"table2-folds.jsonl", "table2-selected-mutag.jsonl", "table3-seeds.jsonl", "table3-cs-seeds.jsonl"} {
		src := filepath.Join("..", "docs", "results", name)
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), name) // ReadLog may cut a file: read a copy
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		recs, err := ReadLog(path, "bench fold", ValidFold)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(recs) != len(lines) || len(recs) == 0 {
			t.Fatalf("%s: %d records of %d lines", name, len(recs), len(lines))
		}
		for i, r := range recs {
			if got, _ := json.Marshal(r); string(got) != lines[i] {
				t.Fatalf("%s:%d: written again as\n%s\nwant\n%s", name, i+1, got, lines[i])
			}
		}
	}
}
