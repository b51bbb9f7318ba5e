//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half")
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("before Commit the target reads %q", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after Abort the target reads %q", b)
	}
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("after WriteFile the target reads %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left in the directory, want 1", len(entries))
	}
	if _, err := Create(filepath.Join(dir, "missing", "x")); err == nil {
		t.Error("Create in a missing directory succeeded")
	}
}

// A device node, a FIFO, a symbolic link or a directory is never replaced:
// Create refuses it, and so does Commit when the target became one after
// Create.
func TestRefusesNonRegularTargets(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("kept"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, p := range []string{link, fifo, sub, "/dev/null"} {
		if err := WriteFile(p, []byte("x")); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("WriteFile(%s): %v", p, err)
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is now %v, %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "kept" {
		t.Errorf("the link's target reads %q", b)
	}
	// Commit checks again.
	late := filepath.Join(dir, "late")
	f, err := Create(late)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	syscall.Mkfifo(late, 0o644)
	if err := f.Commit(); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Commit over a FIFO made after Create: %v", err)
	}
	if st, err := os.Lstat(late); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v, %v", st.Mode(), err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".late.tmp*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// The temporary files of a killed writer (its PID no longer running) are
// removed by the next write of the same path; a live writer's, another
// path's and an unrelated file are kept.
func TestStaleTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	dead := 1 << 30 // above any pid_max: no such process
	stale := filepath.Join(dir, fmt.Sprintf(".out.json.tmp-%d-123", dead))
	live := filepath.Join(dir, fmt.Sprintf(".out.json.tmp-%d-456", os.Getppid()))
	own := filepath.Join(dir, fmt.Sprintf(".out.json.tmp-%d-789", os.Getpid()))
	other := filepath.Join(dir, fmt.Sprintf(".other.json.tmp-%d-123", dead))
	oldLegacy := filepath.Join(dir, ".out.json.tmp8812345")
	newLegacy := filepath.Join(dir, ".out.json.tmp9912345")
	unrelated := filepath.Join(dir, ".out.json.tmpfile")
	for _, p := range []string{stale, live, own, other, oldLegacy, newLegacy, unrelated} {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	long := time.Now().Add(-48 * time.Hour)
	os.Chtimes(oldLegacy, long, long)
	os.Chtimes(unrelated, long, long)
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{stale: false, oldLegacy: false, live: true, own: true, other: true, newLegacy: true, unrelated: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
	f, _ := Create(path)
	defer f.Abort()
	if base := filepath.Base(f.Name()); !strings.HasPrefix(base, fmt.Sprintf(".out.json.tmp-%d-", os.Getpid())) {
		t.Errorf("temporary file %s does not carry the PID", base)
	}
}
