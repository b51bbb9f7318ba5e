package report

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := PrepareDir(dir); err != nil {
		t.Fatal(err)
	}
	tab := &Table{Name: "t1", Title: "T", Columns: []string{"a"}}
	tab.AddRow("1")
	base, err := tab.WriteFiles(dir)
	if err != nil || base != filepath.Join(dir, "t1") {
		t.Fatalf("%s, %v", base, err)
	}
	md, _ := os.ReadFile(base + ".md")
	csv, _ := os.ReadFile(base + ".csv")
	if string(md) != tab.Markdown() || string(csv) != tab.CSV() {
		t.Errorf("files %q and %q", md, csv)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the directory, want 2", len(entries))
	}
	if err := PrepareDir(filepath.Join(base+".md", "sub")); err == nil {
		t.Error("a directory under a file was prepared")
	}
}
