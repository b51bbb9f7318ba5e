package train

import (
	"fmt"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// Recipe returns the training configuration a registered model trains with
// by default on a task: the Recipe of its model.Spec, written in the
// model's file beside its architecture, with the published source of each
// choice. A name the registry does not know gets the task's default
// (DefaultConfig, DefaultGraphConfig). The mini-batch of the graph protocol
// is GraphProtocol.BatchSize, by default RecipeBatchSize.
func Recipe(task data.Task, name string) Config {
	return fromRecipe(recipeOf(task, name))
}

// recipeOf is the registered recipe of the task's model name, or the
// task's default.
func recipeOf(task data.Task, name string) model.Recipe {
	if s, err := model.Lookup(task, name); err == nil {
		return s.Recipe
	}
	if task == data.GraphTask {
		return model.GraphRecipe
	}
	return model.NodeRecipe
}

// fromRecipe is r as a training configuration.
func fromRecipe(r model.Recipe) Config {
	return Config{
		Epochs: r.Epochs, Patience: r.Patience, LR: r.LR, WeightDecay: r.WeightDecay,
		Optimizer: r.Optimizer, Clip: r.Clip, LRSchedule: r.LRSchedule, StepEvery: r.StepEvery,
	}
}

// DefaultGraphConfig is the training configuration of a graph model with
// no recipe of its own (model.GraphRecipe): GIN's setting on the TU
// benchmarks (Xu et al. 2019), Adam at lr 0.01 halved every 50 epochs, no
// weight decay, 100 epochs.
func DefaultGraphConfig() Config { return fromRecipe(model.GraphRecipe) }

// RecipeBatchSize is the training mini-batch (graphs) a registered graph
// model trains with by default (its recipe's BatchSize); DefaultBatchSize
// (the paper's 16) for a name the registry does not know.
func RecipeBatchSize(name string) int {
	return recipeOf(data.GraphTask, name).BatchSize
}

// RecipeSeededMicroBatches reports whether a registered graph model trains
// with seeded micro-batches (GraphProtocol.MicroBatchSeeds "on") by
// default: its recipe says so (PR-CapsNet's does).
func RecipeSeededMicroBatches(name string) bool {
	return recipeOf(data.GraphTask, name).SeededMicroBatches
}

// Check reports a protocol setting out of range: OnlyFolds
// (CheckOnlyFolds), a negative ItersPerEpoch or a MicroBatchSeeds other
// than "on", "off" and "".
func (p GraphProtocol) Check() error {
	if err := p.CheckOnlyFolds(); err != nil {
		return err
	}
	if p.ItersPerEpoch < 0 {
		return fmt.Errorf("iters-per-epoch %d: must be at least 0 (0: a full pass over the training graphs)", p.ItersPerEpoch)
	}
	switch p.MicroBatchSeeds {
	case "", "on", "off":
		return nil
	}
	return fmt.Errorf("micro-batch-seeds %q: want on or off (empty: the model's recipe)", p.MicroBatchSeeds)
}
