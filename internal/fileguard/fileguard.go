// Package fileguard is how prcaps opens the files a user names: every input
// is read with a size bound, and every output is checked to be something
// prcaps may replace, so that a mistyped path (a device, a FIFO, one of the
// command's own inputs) is an error instead of a process that reads until it
// dies or a file that is destroyed.
//
// Inputs may be regular files or pipes (process substitution,
// `--edges /dev/stdin` fed by a pipe); pipes are bounded by counting the
// bytes read. Devices, sockets and directories are refused when opened: a
// character device such as /dev/zero reports size 0 and never ends, so no
// size check made before reading can bound it.
package fileguard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Error is a problem with the file at Path: it prints as "Path: Err".
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// LimitError is an input longer than the bound it is read under.
type LimitError struct{ Limit int64 }

func (e *LimitError) Error() string {
	return fmt.Sprintf("more than %d bytes (%s), the most prcaps reads from such a file", e.Limit, human(e.Limit))
}

// ErrNotRegular is wrapped by the errors for a path that is not a regular
// file (or, for inputs, a pipe).
var ErrNotRegular = errors.New("not a regular file")

// kindError is a file of the wrong kind; it wraps ErrNotRegular.
type kindError struct{ kind, want string }

func (e *kindError) Error() string { return fmt.Sprintf("is %s, not %s", e.kind, e.want) }
func (e *kindError) Unwrap() error { return ErrNotRegular }

// Kind describes a file mode for messages: "a regular file", "a directory",
// "a symbolic link", "a character device", ...
func Kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t == 0:
		return "a regular file"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	default:
		return "not a regular file"
	}
}

// readable says whether an input of mode m may be read: regular files
// and pipes.
func readable(m fs.FileMode) error {
	if t := m.Type(); t == 0 || t&fs.ModeNamedPipe != 0 {
		return nil
	}
	return &kindError{Kind(m), "a file prcaps reads (a regular file or a pipe)"}
}

// ReadFile reads the file at path, which must be a regular file or a pipe
// of at most limit bytes. Errors name the file: a *Error for a file of the
// wrong kind or size, the operating system's *fs.PathError otherwise (so
// errors.Is(err, fs.ErrNotExist) works).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, limit)
}

// ReadFS is ReadFile for the file name of fsys (an os.DirFS, an embedded
// file system); errors name the file as name.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, name, limit)
}

// read reads f whole under the bound, checking its kind and, for a
// regular file, its size first, so that a file too large fails at once.
func read(f fs.File, path string, limit int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{path, err}
	}
	if err := readable(st.Mode()); err != nil {
		return nil, &Error{path, err}
	}
	if st.Mode().IsRegular() && st.Size() > limit {
		return nil, &Error{path, &LimitError{limit}}
	}
	var buf bytes.Buffer
	if st.Mode().IsRegular() {
		buf.Grow(int(st.Size()) + bytes.MinRead) // one allocation, as os.ReadFile
	}
	// limit+1: reading one byte past the bound tells a file of exactly
	// limit bytes from a longer one (a regular file can grow after Stat).
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, &Error{path, err}
	}
	if int64(buf.Len()) > limit {
		return nil, &Error{path, &LimitError{limit}}
	}
	return buf.Bytes(), nil
}

// Reader is an input opened with Open: reads past its bound fail with a
// *Error wrapping *LimitError.
type Reader struct {
	f     *os.File
	path  string
	limit int64
	n     int64 // bytes read so far
}

// Open opens the file at path for streaming under the same rules as
// ReadFile: a regular file or a pipe, at most limit bytes.
func Open(path string, limit int64) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = readable(st.Mode())
	}
	if err == nil && st.Mode().IsRegular() && st.Size() > limit {
		err = &LimitError{limit}
	}
	if err != nil {
		f.Close()
		return nil, &Error{path, err}
	}
	return &Reader{f: f, path: path, limit: limit}, nil
}

func (r *Reader) Read(p []byte) (int, error) {
	if r.n > r.limit {
		return 0, &Error{r.path, &LimitError{r.limit}}
	}
	if rest := r.limit + 1 - r.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := r.f.Read(p)
	r.n += int64(n)
	if r.n > r.limit {
		return n - int(r.n-r.limit), &Error{r.path, &LimitError{r.limit}}
	}
	return n, err
}

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

// CheckOutput reports whether path may be replaced by an output file: it
// must not exist, or be a regular file. A symbolic link is refused too (it
// is not followed: replacing it would either write through it to a file
// the user did not name or turn the link into a file). The error is a
// *Error naming path and what it is.
func CheckOutput(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Error{path, err}
	}
	if !st.Mode().IsRegular() {
		return &Error{path, &kindError{Kind(st.Mode()), "a regular file prcaps may replace"}}
	}
	return nil
}

// human writes a byte count in the largest binary unit that divides it.
func human(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}
