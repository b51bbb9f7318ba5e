package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/internal/fileguard"
)

// pathArg is a path given on the command line, with its flag.
type pathArg = fileguard.Path

// checkPaths is fileguard.CheckPaths as a usage error.
func checkPaths(inputs, outputs []pathArg) error {
	if err := fileguard.CheckPaths(inputs, outputs); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// datasetInputs are the inputs a dataset flag and a data directory stand
// for: the --dataset value when it names a file or directory (an .npz,
// a TU directory), and the dataset directories of the data root (its
// layout, DESIGN §7), whose files no output may replace.
func datasetInputs(dataset, root string) []pathArg {
	var in []pathArg
	if st, err := os.Stat(dataset); dataset != "" && err == nil {
		in = append(in, pathArg{Flag: "--dataset", Path: dataset, Dir: st.IsDir()})
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
		in = append(in, pathArg{Flag: "--data", Path: filepath.Join(root, top), Dir: true})
	}
	return in
}
