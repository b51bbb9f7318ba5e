package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/internal/fileguard"
)

// pathArg is a path given on the command line, named in messages by the
// flag that gave it.
type pathArg struct {
	flag, path string
	dir        bool // a directory: outputs are written inside it, inputs read from it
}

// checkPaths is the one check every command makes of its output paths
// before any work: each output must be a new path or a regular file (a
// directory for a directory output), must not be one of the command's
// inputs (or replace a file inside an input directory), and must not be
// another output. Without it, `--save` aimed at an input file or a device
// node replaced it with a checkpoint and exit 0. Every failure is a usage
// error naming both flags.
func checkPaths(inputs, outputs []pathArg) error {
	for i, o := range outputs {
		if o.path == "" {
			continue
		}
		if err := checkKind(o); err != nil {
			return err
		}
		if o.dir {
			continue // its files are new names; atomicfile refuses any that is not a regular file
		}
		for _, in := range inputs {
			switch {
			case in.path == "":
			case !in.dir && samePath(o.path, in.path):
				return usagef("%s %s is the %s input file: writing it would destroy the input", o.flag, o.path, in.flag)
			case in.dir && exists(o.path) && inside(o.path, in.path):
				return usagef("%s %s would replace a file inside %s %s, an input directory", o.flag, o.path, in.flag, in.path)
			}
		}
		for _, p := range outputs[:i] {
			if p.path != "" && !p.dir && samePath(o.path, p.path) {
				return usagef("%s and %s name the same file %s: one would overwrite the other", p.flag, o.flag, o.path)
			}
		}
	}
	return nil
}

// checkKind refuses an output that exists and is not what it must be.
func checkKind(o pathArg) error {
	if o.dir {
		st, err := os.Stat(o.path) // a link to a directory is a directory here
		if err == nil && !st.IsDir() {
			return usagef("%s %s: is %s, not a directory", o.flag, o.path, fileguard.Kind(st.Mode()))
		}
		return nil
	}
	if err := fileguard.CheckOutput(o.path); err != nil {
		var ge *fileguard.Error
		if errors.As(err, &ge) {
			err = ge.Err
		}
		return usagef("%s %s: %v", o.flag, o.path, err)
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

// datasetInputs are the inputs a dataset flag and a data directory stand
// for: the --dataset value when it names a file or directory (an .npz,
// a TU directory), and the dataset directories of the data root (its
// layout, DESIGN §7), whose files no output may replace.
func datasetInputs(dataset, root string) []pathArg {
	var in []pathArg
	if st, err := os.Stat(dataset); dataset != "" && err == nil {
		in = append(in, pathArg{"--dataset", dataset, st.IsDir()})
	}
	if root == "" {
		return in
	}
	tops := []string{"npz"} // loadByName's directory of user .npz files
	for _, info := range data.Known() {
		if top, _, _ := strings.Cut(info.Path, "/"); !slices.Contains(tops, top) {
			tops = append(tops, top)
		}
	}
	for _, top := range tops {
		in = append(in, pathArg{"--data", filepath.Join(root, top), true})
	}
	return in
}
