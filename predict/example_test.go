package predict_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/prcaps/prcaps/checkpoint"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/predict"
	"github.com/prcaps/prcaps/train"
)

// A graph classifier inside a Go program: train PR-CapsNet on MUTAG (one
// fold, 5 epochs, to stay quick; `prcaps train --dataset mutag --save
// FILE` does the same from the command line), save the checkpoint, load it
// and classify a new molecule given by its bonds and atom labels.
func Example() {
	dir, _ := os.MkdirTemp("", "prcaps")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mutag.safetensors")

	ds, _ := data.Load("mutag", data.Options{})
	cfg := train.Recipe(data.GraphTask, "prcapsnet")
	cfg.Epochs = 5
	build := func(seed uint64) (model.GraphModel, error) {
		return model.NewGraph("prcapsnet", nil, model.GraphShape(ds.Graph), seed)
	}
	var saveErr error
	save := train.ModelFunc(func(_ int, r train.Result, m model.Model) {
		saveErr = checkpoint.New(m, "prcapsnet", nil, ds, cfg, r).Save(path)
	})
	proto := train.GraphProtocol{Folds: 10, OnlyFolds: 1}
	if _, err := train.RunGraphProtocol(ds.Graph, build, proto, cfg, save); err != nil || saveErr != nil {
		fmt.Println(err, saveErr)
		return
	}

	p, err := predict.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	ring := predict.Graph{ // a six-atom carbon ring (MUTAG atom label 0: C)
		Nodes:  6,
		Edges:  []predict.Edge{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}},
		Labels: []int64{0, 0, 0, 0, 0, 0},
	}
	preds, err := p.Graphs([]predict.Graph{ring})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(preds[0].Probs), "class probabilities; label", preds[0].Label == "1" || preds[0].Label == "-1")
	// Output:
	// 2 class probabilities; label true
}
