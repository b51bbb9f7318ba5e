//go:build unix

package fileguard

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// Inputs are bounded: a regular file over the bound fails before it is
// read (a sparse file, so the test writes nothing), a pipe that never ends
// fails after limit+1 bytes, and devices and directories are refused at
// once (a character device reports size 0 and never ends).
func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("12345"), 0o644)
	if b, err := ReadFile(small, 5); err != nil || string(b) != "12345" {
		t.Errorf("a file of exactly the bound: %q, %v", b, err)
	}
	var le *LimitError
	if _, err := ReadFile(small, 4); !errors.As(err, &le) || !strings.HasPrefix(err.Error(), small+": more than 4 bytes") {
		t.Errorf("a file over the bound: %v", err)
	}
	huge := filepath.Join(dir, "huge")
	f, _ := os.Create(huge)
	f.Truncate(1 << 40) // sparse: a TiB that is never read
	f.Close()
	start := time.Now()
	if _, err := ReadFile(huge, 1<<30); !errors.As(err, &le) || !strings.Contains(err.Error(), "more than 1073741824 bytes (1 GiB)") {
		t.Errorf("a 1 TiB file: %v", err)
	}
	if _, err := Open(huge, 1<<30); !errors.As(err, &le) {
		t.Errorf("Open of a 1 TiB file: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("refusing a large file took %v", time.Since(start))
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		for _, read := range []func() error{
			func() error { _, err := ReadFile("/dev/zero", 1<<40); return err },
			func() error { _, err := Open("/dev/zero", 1<<40); return err },
		} {
			if err := read(); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero: is a character device") {
				t.Errorf("/dev/zero: %v", err)
			}
		}
	}
	if _, err := ReadFile(dir, 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	go func() { // an endless writer: only the bound ends the read
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		chunk := make([]byte, 4096)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	if _, err := ReadFile(fifo, 1<<16); !errors.As(err, &le) || le.Limit != 1<<16 {
		t.Errorf("an endless pipe: %v", err)
	}
}

// Open's reader stops at the bound.
func TestOpenStreamsUnderBound(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	r, err := Open(p, 10)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(r); err != nil || string(b) != "0123456789" {
		t.Errorf("within the bound: %q, %v", b, err)
	}
	r.Close()
	// A file that grows after it was opened is cut at the bound.
	r, _ = Open(p, 10)
	os.WriteFile(p, []byte("0123456789abc"), 0o644)
	b, err := io.ReadAll(r)
	var le *LimitError
	if !errors.As(err, &le) || string(b) != "0123456789" {
		t.Errorf("past the bound: %q, %v", b, err)
	}
	r.Close()
}

func TestReadFS(t *testing.T) {
	fsys := fstest.MapFS{"a": {Data: []byte("abc")}, "d": {Mode: fs.ModeDir}}
	if b, err := ReadFS(fsys, "a", 3); err != nil || string(b) != "abc" {
		t.Errorf("ReadFS: %q, %v", b, err)
	}
	var le *LimitError
	if _, err := ReadFS(fsys, "a", 2); !errors.As(err, &le) || !strings.HasPrefix(err.Error(), "a: more than 2 bytes") {
		t.Errorf("ReadFS over the bound: %v", err)
	}
	if _, err := ReadFS(fsys, "d", 2); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFS of a directory: %v", err)
	}
}

// An output may be a new path or a regular file, nothing else.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(file, link)
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "new"), ""}, {file, ""},
		{link, "is a symbolic link"}, {dir, "is a directory"}, {fifo, "is a named pipe (FIFO)"},
		{"/dev/null", "is a character device"},
	} {
		err := CheckOutput(c.path)
		if c.want == "" && err != nil || c.want != "" && (!errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckOutput(%s): %v, want %q", c.path, err, c.want)
		}
	}
}
