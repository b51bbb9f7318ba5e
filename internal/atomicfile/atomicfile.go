// Package atomicfile writes files that are either absent, as they were, or
// whole: the content goes to a temporary file in the same directory, which
// Commit syncs and renames over the target. An interrupted or failed write
// leaves the target untouched.
//
// Only a regular file (or a new path) is ever replaced: renaming over a
// device node, a FIFO, a socket or a symbolic link would destroy it, so
// Create and Commit refuse such a target (package fileguard says which).
//
// A process killed between Create and Commit (SIGKILL, a power cut) leaves
// its temporary file behind. Temporary files are named
// ".NAME.tmp-PID-RANDOM", so that the next Create of the same path can
// tell the leftovers of dead processes (whose PID is not running) from the
// file another live writer is still filling, and removes them.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/prcaps/prcaps/internal/fileguard"
)

// File is a file being written in place of Path.
type File struct {
	*os.File
	Path string
	done bool
}

// ErrNotRegular is wrapped by the error of Create or Commit for a target
// that exists and is not a regular file.
var ErrNotRegular = fileguard.ErrNotRegular

// Create starts writing path: it fails now, not at Commit, when the
// directory cannot hold the file or path is not a regular file. It
// removes the temporary files that dead processes left for path.
func Create(path string) (*File, error) {
	if err := fileguard.CheckOutput(path); err != nil {
		return nil, fmt.Errorf("atomicfile: refusing to replace %w", err)
	}
	dir, prefix := filepath.Dir(path), tempPrefix(path)
	removeStale(dir, prefix)
	f, err := os.CreateTemp(dir, prefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, Path: path}, nil
}

// tempPrefix is the start of the names of path's temporary files.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// legacyAge is how old a temporary file of the naming before PIDs
// (".NAME.tmpRANDOM", no PID to check) must be to count as stale: older
// than any write, so that a rerun by a newer prcaps cleans them without
// touching a live writer's.
const legacyAge = 24 * time.Hour

// removeStale removes the temporary files of prefix in dir whose writer is
// no longer running. Failures are ignored: a leftover that cannot be
// removed is harmless to this write.
func removeStale(dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	legacy := strings.TrimSuffix(prefix, "-")
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, legacy) {
			continue
		}
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			pidText, _, ok := strings.Cut(rest, "-")
			pid, err := strconv.Atoi(pidText)
			if !ok || err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
				continue
			}
		} else if digits := name[len(legacy):]; digits == "" || strings.Trim(digits, "0123456789") != "" {
			continue // not a temporary file of ours
		} else if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < legacyAge {
			continue
		}
		os.Remove(filepath.Join(dir, name))
	}
}

// Commit syncs the file and renames it over Path.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("atomicfile: %s already committed or aborted", f.Path)
	}
	f.done = true
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Again here: the target may have been replaced since Create.
		if cerr := fileguard.CheckOutput(f.Path); cerr != nil {
			os.Remove(f.Name())
			return fmt.Errorf("atomicfile: refusing to replace %w", cerr)
		}
		err = os.Rename(f.Name(), f.Path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", f.Path, err)
	}
	return nil
}

// Abort discards what was written; Path keeps its old content. It does
// nothing after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// WriteFile writes b to path atomically.
func WriteFile(path string, b []byte) error {
	f, err := Create(path)
	if err != nil {
		var ge *fileguard.Error
		if errors.As(err, &ge) {
			return err // names path already
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}
