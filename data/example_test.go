package data_test

import (
	"fmt"

	"github.com/prcaps/prcaps/data"
)

// Load reads a dataset by name; with no data directory the embedded copies of
// Cora and MUTAG are used.
func ExampleLoad() {
	ds, err := data.Load("cora", data.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := ds.Stats()
	fmt.Println(s.Dataset, s.Nodes, s.UndirectedEdges, s.Features, s.Classes, ds.From)
	split := data.RandomSplit(ds.Node.Y, 0, 0.6, 0.2)
	fmt.Println(len(split.Train), len(split.Val), len(split.Test))
	// Output:
	// Cora 2708 5278 1433 7 embedded:
	// 1625 542 541
}
