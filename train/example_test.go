package train_test

import (
	"fmt"
	"slices"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// Watching training: an EpochFunc counts each run's epochs and a RunFunc
// notes each finished run; Observers gives both every call. The protocol
// calls its observer one call at a time, even with runs trained at once,
// so neither needs a lock.
func ExampleObservers() {
	ds, err := data.Load("cora", data.Options{}) // the embedded copy
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := train.Recipe(data.NodeTask, "gcn")
	cfg.Epochs = 3
	build := func(seed uint64) (model.NodeModel, error) {
		return model.NewNode("gcn", nil, model.NodeShape(ds.Node), seed)
	}
	epochs := map[int]int{}
	count := train.EpochFunc(func(run int, e train.Epoch) { epochs[run]++ })
	var finished []int
	note := train.RunFunc(func(run int, r train.Result) { finished = append(finished, run) })
	sum, err := train.RunNodeProtocol(ds.Node, build, train.NodeProtocol{Seeds: 2, Parallel: 2}, cfg, train.Observers(count, note))
	if err != nil {
		fmt.Println(err)
		return
	}
	slices.Sort(finished) // runs trained at once finish in any order
	fmt.Println(sum.Runs, "runs of", epochs[0], "and", epochs[1], "epochs; finished:", finished)
	// Output:
	// 2 runs of 3 and 3 epochs; finished: [0 1]
}
