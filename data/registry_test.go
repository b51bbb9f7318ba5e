package data

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckRoot accepts "" and an existing directory and names a missing one
// or a file, wrapping ErrNoRoot.
func TestCheckRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		root string
		ok   bool
	}{{"", true}, {dir, true}, {filepath.Join(dir, "missing"), false}, {file, false}} {
		err := CheckRoot(c.root)
		if (err == nil) != c.ok || (err != nil && (!errors.Is(err, ErrNoRoot) || !strings.Contains(err.Error(), c.root))) {
			t.Errorf("CheckRoot(%q) = %v", c.root, err)
		}
	}
}

// ParseTask reads back what Task.String writes, and nothing else.
func TestParseTask(t *testing.T) {
	for _, task := range []Task{NodeTask, GraphTask} {
		if got, err := ParseTask(task.String()); err != nil || got != task {
			t.Errorf("ParseTask(%q) = %v, %v", task, got, err)
		}
	}
	for _, bad := range []string{"", "Node", "graphs", "edge"} {
		if _, err := ParseTask(bad); err == nil {
			t.Errorf("ParseTask(%q): no error", bad)
		}
	}
}
