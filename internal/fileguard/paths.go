package fileguard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Path is a path given to a command, named in messages by the flag (or
// argument) that gave it.
type Path struct {
	Flag, Path string
	Dir        bool // a directory: outputs are written inside it, inputs read from it
}

// CheckPaths is the one check a command makes of its output paths before
// any work: each output must be a new path or a regular file (a
// directory for a directory output), must not be one of the command's
// inputs (or replace a file inside an input directory), and must not be
// another output. Without it, `--save` aimed at an input file or a device
// node replaced it with a checkpoint and exit 0. Every error names both flags.
func CheckPaths(inputs, outputs []Path) error {
	for i, o := range outputs {
		if o.Path == "" {
			continue
		}
		if err := checkKind(o); err != nil {
			return err
		}
		if o.Dir {
			continue // its files are new names; atomicfile refuses any that is not a regular file
		}
		for _, in := range inputs {
			switch {
			case in.Path == "":
			case !in.Dir && samePath(o.Path, in.Path):
				return fmt.Errorf("%s %s is the %s input file: writing it would destroy the input", o.Flag, o.Path, in.Flag)
			case in.Dir && exists(o.Path) && inside(o.Path, in.Path):
				return fmt.Errorf("%s %s would replace a file inside %s %s, an input directory", o.Flag, o.Path, in.Flag, in.Path)
			}
		}
		for _, p := range outputs[:i] {
			if p.Path != "" && !p.Dir && samePath(o.Path, p.Path) {
				return fmt.Errorf("%s and %s name the same file %s: one would overwrite the other", p.Flag, o.Flag, o.Path)
			}
		}
	}
	return nil
}

// checkKind refuses an output that exists and is not what it must be.
func checkKind(o Path) error {
	if o.Dir {
		st, err := os.Stat(o.Path) // a link to a directory is a directory here
		if err == nil && !st.IsDir() {
			return fmt.Errorf("%s %s: is %s, not a directory", o.Flag, o.Path, Kind(st.Mode()))
		}
		return nil
	}
	if err := CheckOutput(o.Path); err != nil {
		var ge *Error
		if errors.As(err, &ge) { // named below with its flag
			err = ge.Err
		}
		return fmt.Errorf("%s %s: %v", o.Flag, o.Path, err)
	}
	return nil
}

// samePath reports whether a and b name one file: the same path once
// made absolute with their directories' links resolved (for paths not yet
// created), or the same existing file (hard links too).
func samePath(a, b string) bool {
	if resolve(a) == resolve(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// resolve is p absolute and clean, with the links of its directory
// resolved where the directory exists.
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// inside reports whether path lies under directory dir.
func inside(path, dir string) bool {
	d, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(d); err == nil {
		d = r
	}
	rel, err := filepath.Rel(d, resolve(path))
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}
