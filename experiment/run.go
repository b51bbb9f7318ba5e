package experiment

import (
	"fmt"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/train"
)

// Run is one protocol run of a registered model on a dataset. The zero
// values of its fields mean defaults: model "prcapsnet", the model's
// default configuration, its training recipe (train.Recipe) and the
// protocols' own defaults.
type Run struct {
	Model   string       // registered name; empty: "prcapsnet"
	Config  model.Config // nil: the model's default for the dataset's task
	Train   train.Config // zero: train.Recipe(task, Model)
	Dataset *data.Dataset

	Node  train.NodeProtocol  // used for node datasets
	Graph train.GraphProtocol // used for graph datasets

	OnEpoch func(run int, e train.Epoch)  // after every epoch of every run
	OnRun   func(run int, r train.Result) // after every run (seed or fold)
}

// ModelName is the model the run trains.
func (r Run) ModelName() string {
	if r.Model == "" {
		return "prcapsnet"
	}
	return r.Model
}

// TrainConfig is the training configuration the run uses.
func (r Run) TrainConfig() train.Config {
	if r.Train == (train.Config{}) {
		return train.Recipe(r.Dataset.Task, r.ModelName())
	}
	return r.Train
}

// Do runs the protocol and summarises it. A configuration the model
// rejects is reported before any training.
func (r Run) Do() (train.Summary, error) {
	if r.Dataset == nil {
		return train.Summary{}, fmt.Errorf("experiment: no dataset")
	}
	if r.Dataset.Task == data.GraphTask {
		job, err := r.GraphJob()
		if err != nil {
			return train.Summary{}, err
		}
		sum, err := train.RunGraphProtocol(job.Dataset, job.Build, job.Protocol, job.Config, job.OnEpoch, job.OnRun)
		sum.Model = r.ModelName()
		return sum, err
	}
	ds := r.Dataset.Node
	build := func(seed uint64) (model.NodeModel, error) {
		return model.NewNode(r.ModelName(), r.Config, model.NodeShape(ds), seed)
	}
	if _, err := build(r.Node.FirstSeed); err != nil {
		return train.Summary{}, err
	}
	sum, err := train.RunNodeProtocol(ds, build, r.Node, r.TrainConfig(), r.OnEpoch, r.OnRun)
	sum.Model = r.ModelName()
	return sum, err
}

// GraphJob is the run as a job of train.RunGraphProtocols, which pools
// the folds of several runs; the dataset must be a graph dataset.
func (r Run) GraphJob() (train.GraphJob, error) {
	if r.Dataset == nil || r.Dataset.Task != data.GraphTask {
		return train.GraphJob{}, fmt.Errorf("experiment: a graph job needs a graph-classification dataset")
	}
	ds := r.Dataset.Graph
	build := func(seed uint64) (model.GraphModel, error) {
		return model.NewGraph(r.ModelName(), r.Config, model.GraphShape(ds), seed)
	}
	if _, err := build(r.Graph.FirstSeed); err != nil {
		return train.GraphJob{}, err
	}
	return train.GraphJob{Dataset: ds, Build: build, Protocol: r.Graph, Config: r.TrainConfig(),
		OnEpoch: r.OnEpoch, OnRun: r.OnRun}, nil
}
