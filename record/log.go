package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/prcaps/prcaps/internal/fileguard"
)

// A JSON-lines log keeps finished work (tune's trials, the bench's folds)
// one record per line, so that an interrupted command resumes after its
// last whole record.

// MaxLogBytes bounds a JSON-lines log (tune's trials, the bench's folds),
// read whole to resume: a fold record is a few hundred bytes, so a GiB is
// millions of folds, and a device or a stray huge file is an error naming
// it instead of a read that fills memory.
const MaxLogBytes = 1 << 30

// ReadLog reads the records of the log at path, in file order. A missing
// file (or an empty path) is an empty log. A malformed last line, a write
// cut short, is cut off the file so that appending continues after the
// last whole record; any other malformed line, or one valid rejects, is an
// error naming the file and line. what names a record in errors.
func ReadLog[T any](path, what string, valid func(T) bool) ([]T, error) {
	if path == "" {
		return nil, nil
	}
	b, err := fileguard.ReadFile(path, MaxLogBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []T
	good := 0 // bytes up to the end of the last whole record
	for line := 1; good < len(b); line++ {
		n := bytes.IndexByte(b[good:], '\n')
		last := n < 0
		if last {
			n = len(b) - good
		}
		if text := bytes.TrimSpace(b[good : good+n]); len(text) > 0 {
			var r T
			if err := json.Unmarshal(text, &r); err != nil || !valid(r) {
				if last {
					break
				}
				return nil, fmt.Errorf("%s:%d: not a %s record", path, line, what)
			}
			recs = append(recs, r)
		}
		if last {
			good = len(b)
			break
		}
		good += n + 1
	}
	if good < len(b) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// AppendLog appends v to the log at path as one line, written in one call
// and synced, so that a crash leaves at most a cut-short last line. An
// empty path is no log.
func AppendLog(path string, v any) error {
	if path == "" {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	// Only a regular file is appended to: not a link (Lstat), and what
	// was opened is checked again.
	if err := fileguard.CheckOutput(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("%s: not a regular file; a log is appended to regular files only", path)
	}
	// A last record without its newline (written by hand, say) must not
	// run into this one.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		end := make([]byte, 1)
		if _, err := f.ReadAt(end, st.Size()-1); err == nil && end[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
