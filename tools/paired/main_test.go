package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPaired(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte(`{"seed":0,"test_acc":0.8}
{"seed":1,"test_acc":0.9}
{"seed":2,"test_acc":0.7}
{"dataset":"x","mean_acc":0.8}
`), 0o644)
	os.WriteFile(b, []byte(`{"seed":2,"test_acc":0.6}
{"seed":1,"test_acc":0.85}
{"seed":0,"test_acc":0.8}
{"seed":9,"test_acc":0.1}
`), 0o644)
	var out strings.Builder
	if err := run([]string{a, b}, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "pairs 3") || !strings.Contains(s, "A − B: +0.0500") {
		t.Fatalf("output:\n%s", s)
	}
	os.WriteFile(b, []byte(`{"seed":0,"test_acc":0.8}
{"seed":0,"test_acc":0.8}
`), 0o644)
	if err := run([]string{a, b}, &out); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("duplicate seed: %v", err)
	}
	if err := run([]string{a}, &out); err == nil {
		t.Fatal("one file accepted")
	}
}
