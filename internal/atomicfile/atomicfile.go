// Package atomicfile writes files that are either absent, as they were, or
// whole: the content goes to a temporary file in the same directory, which
// Commit syncs and renames over the target. An interrupted or failed write
// leaves the target untouched.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is a file being written in place of Path.
type File struct {
	*os.File
	Path string
	done bool
}

// Create starts writing path: it fails now, not at Commit, when the
// directory cannot hold the file.
func Create(path string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, Path: path}, nil
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
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}
