package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixed cell is the one of the label whose mean is the bench
// record's (the log also holds an older cell), paired fold by fold.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	fixed := write("fixed.json", `{"table":"t2","variant":"GIN-0","dataset":"MUTAG","model":"gin","mean_acc":0.5}`+"\n")
	log := write("log.jsonl", `{"cell":"old","label":"t2: GIN-0 on MUTAG","fold":0,"result":{"test_acc":0.9}}
{"cell":"old","label":"t2: GIN-0 on MUTAG","fold":1,"result":{"test_acc":0.9}}
{"cell":"new","label":"t2: GIN-0 on MUTAG","fold":0,"result":{"test_acc":0.4}}
{"cell":"new","label":"t2: GIN-0 on MUTAG","fold":1,"result":{"test_acc":0.6}}
`)
	sel := write("sel.json", `{"table":"t2-selected","model":"gin","dataset":"MUTAG","folds":[{"fold":0,"test_acc":0.5},{"fold":1,"test_acc":0.8}]}`+"\n")
	var out strings.Builder
	if err := run(fixed, log, sel, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| GIN-0 | MUTAG | 2 | 0.500 | 0.650 | +0.150 |") {
		t.Errorf("output:\n%s", out.String())
	}
	bad := write("bad.json", `{"table":"t2","variant":"GIN-0","dataset":"MUTAG","model":"gin","mean_acc":0.7}`+"\n")
	if err := run(bad, log, sel, &out); err == nil || !strings.Contains(err.Error(), "no cell") {
		t.Errorf("no matching cell: %v", err)
	}
}
