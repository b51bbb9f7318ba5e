package model_test

import (
	"fmt"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// Graph classification from Go: the PR-CapsNet graph network on the
// embedded MUTAG under the stratified 10-fold protocol of DESIGN §6, as
// `prcaps train --task graph` runs it. The example trains 3 epochs a fold
// to stay quick; the defaults train 100.
func ExampleNewGraph() {
	ds, err := data.Load("mutag", data.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The model's default configuration (nil) and its training recipe.
	cfg := train.Recipe(data.GraphTask, "prcapsnet")
	cfg.Epochs = 3
	build := func(seed uint64) (model.GraphModel, error) {
		return model.NewGraph("prcapsnet", nil, model.GraphShape(ds.Graph), seed)
	}
	// Two folds train at once; the results are the same with any Parallel.
	proto := train.GraphProtocol{Folds: 10, Parallel: 2}
	sum, err := train.RunGraphProtocol(ds.Graph, build, proto, cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Dataset, sum.Protocol, sum.Runs, "folds,", sum.Params, "parameters")
	// sum.MeanAcc ± sum.StdAcc is the mean test accuracy over the folds,
	// each at its epoch of best validation accuracy.
	r := sum.Results[0]
	fmt.Println(sum.MeanAcc > 0 && sum.MeanAcc <= 1, r.Epochs, r.BestEpoch >= 1 && r.BestEpoch <= r.Epochs)
	// Output:
	// MUTAG stratified 10-fold CV 10 folds, 8700 parameters
	// true 3 true
}

// Node classification from Go: PR-CapsNet with its default configuration
// (nil) and training recipe on the embedded Cora, over random 60/20/20
// splits, as `prcaps train --seeds 2` runs it. The example trains 5 epochs
// a run to stay quick; the recipe trains 200.
func ExampleNewNode() {
	ds, err := data.Load("cora", data.Options{}) // the embedded copy
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := train.Recipe(data.NodeTask, "prcapsnet") // AdamW, lr 0.005, clipping at 1
	cfg.Epochs = 5
	build := func(seed uint64) (model.NodeModel, error) {
		return model.NewNode("prcapsnet", nil, model.NodeShape(ds.Node), seed)
	}
	sum, err := train.RunNodeProtocol(ds.Node, build, train.NodeProtocol{Seeds: 2}, cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Dataset, sum.Protocol, sum.Params, "parameters")
	fmt.Println(sum.MeanAcc > 1.0/7 && sum.MeanAcc <= 1)
	// Output:
	// Cora random 60/20/20 x2 96228 parameters
	// true
}
