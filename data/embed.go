package data

import (
	"embed"
	"io/fs"
)

// embeddedFiles holds Cora (Planetoid pickles) and MUTAG (TU text files),
// byte for byte as published, so that `prcaps train` works with no data
// directory and no network.
//
//go:embed embedded/planetoid embedded/tu
var embeddedFiles embed.FS

// Embedded returns the datasets compiled into the binary, laid out like a
// data root: planetoid/ind.cora.{x,y,tx,ty,allx,ally,graph,test.index} and
// tu/MUTAG/MUTAG_*.txt. Errors show its files as "embedded:/planetoid/...".
func Embedded() Source {
	sub, err := fs.Sub(embeddedFiles, "embedded")
	if err != nil {
		// fs.Sub fails only for an invalid path name, and "embedded" is valid.
		panic(err)
	}
	return Source{FS: sub, Root: "embedded:"}
}
