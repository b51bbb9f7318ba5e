package data

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/prcaps/prcaps/internal/fileguard"
)

// Source is a directory that loaders read from: a file system plus the name
// under which its root is shown in error messages. The same loader code reads
// the embedded datasets and a user's --data directory.
type Source struct {
	FS   fs.FS
	Root string // shown in messages, e.g. "/data/planetoid" or "embedded:planetoid"
}

// Dir returns a Source reading the operating-system directory dir.
func Dir(dir string) Source { return Source{FS: os.DirFS(dir), Root: dir} }

// Sub returns the Source for the subdirectory dir of s.
func (s Source) Sub(dir string) (Source, error) {
	sub, err := fs.Sub(s.FS, dir)
	if err != nil {
		return Source{}, err
	}
	return Source{FS: sub, Root: s.Path(dir)}, nil
}

// Path is the name shown for file name inside s.
func (s Source) Path(name string) string {
	if s.Root == "" {
		return name
	}
	if filepath.IsAbs(s.Root) || !hasScheme(s.Root) {
		return filepath.Join(s.Root, filepath.FromSlash(name))
	}
	return path.Join(s.Root, name)
}

func hasScheme(root string) bool {
	for i := 0; i < len(root); i++ {
		if root[i] == ':' {
			return true
		}
		if root[i] == '/' || root[i] == '\\' {
			return false
		}
	}
	return false
}

// MaxFileBytes bounds every dataset file a loader reads (each is read
// whole): a device such as /dev/zero, or a file that is not the dataset,
// fails with a message instead of filling memory. Two GiB is far past the
// text of the largest benchmark (PubMed's Planetoid files, tens of MB) and
// is the bound of one npz member (npzMaxMember).
const MaxFileBytes = 2 << 30

// ReadFile reads file name from s; a failure is a *FileError naming the file.
func (s Source) ReadFile(name string) ([]byte, error) {
	b, err := fileguard.ReadFS(s.FS, name, MaxFileBytes)
	if err != nil {
		return nil, fileError(s.Path(name), err)
	}
	return b, nil
}

// readPath reads the operating-system file p under MaxFileBytes; a failure
// is a *FileError naming p.
func readPath(p string) ([]byte, error) {
	b, err := fileguard.ReadFile(p, MaxFileBytes)
	if err != nil {
		return nil, fileError(p, err)
	}
	return b, nil
}

// fileError is a read failure as a *FileError naming file once (the
// causes name the path themselves).
func fileError(file string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &FileError{File: file, Err: ErrMissing}
	}
	var ge *fileguard.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ge):
		err = ge.Err
	case errors.As(err, &pe):
		err = pe.Err
	}
	return &FileError{File: file, Err: err}
}

// Exists reports whether file name exists in s.
func (s Source) Exists(name string) bool {
	_, err := fs.Stat(s.FS, name)
	return err == nil
}

// ErrMissing is wrapped by a FileError for a file that does not exist.
var ErrMissing = errors.New("file not found")

// FileError is a problem with one input file. Line is 1-based; 0 means the
// problem is not tied to a line (a binary format, a missing file).
type FileError struct {
	File string
	Line int
	Err  error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// fileErrorf returns a *FileError for file (a display path) with a formatted message.
func fileErrorf(file string, line int, format string, args ...any) error {
	return &FileError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// trimBOM drops a UTF-8 byte-order mark, which spreadsheet programs write
// at the start of text files, so that it is not read as part of the first
// value.
func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) }
