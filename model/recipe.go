package model

import (
	"fmt"
	"math"
)

// Recipe is how a model trains by default on its task: the optimiser, the
// learning-rate schedule and the length of its published configuration.
// It lives in the model's Spec, beside the architecture it belongs to;
// package train turns it into a training configuration (train.Recipe), and
// a command line overrides any field of it.
type Recipe struct {
	Epochs      int     // training epochs
	Patience    int     // stop after this many epochs without a better validation accuracy; 0: never
	LR          float64 // learning rate
	WeightDecay float64 // coupled L2 for adam and radam, decoupled for adamw
	Optimizer   string  // "adam", "adamw" or "radam"
	Clip        float64 // global gradient-norm clipping; 0: off
	// LRSchedule is the rate per epoch: "" (constant), "cosine", "step" or
	// "exponential" (train.Schedules).
	LRSchedule string
	// StepEvery is the period of the "step" schedule in epochs
	// (DefaultStepEvery where the model's source gives none), also what a
	// command line that switches a model to that schedule gets.
	StepEvery int
	// BatchSize is the training mini-batch of a graph model, in graphs;
	// node models train full-batch and leave it 0.
	BatchSize int
	// SeededMicroBatches makes a graph model's micro-batches run in
	// parallel with seeds of their own (train.GraphProtocol's
	// MicroBatchSeeds "on").
	SeededMicroBatches bool
}

// NodeRecipe is the recipe of a node model with no published optimiser of
// its own: Kipf & Welling's GCN setting, Adam at lr 0.01 with weight decay
// 5e-4 for 200 epochs.
var NodeRecipe = Recipe{Epochs: 200, LR: 0.01, WeightDecay: 5e-4, Optimizer: "adam", StepEvery: DefaultStepEvery}

// DefaultStepEvery is the period of the "step" learning-rate schedule,
// in epochs, of GIN on the TU benchmarks (Xu et al. 2019: halved every 50).
const DefaultStepEvery = 50

// DefaultBatchSize is the graph mini-batch size of the paper (DESIGN §5
// "Optimiser"), in graphs.
const DefaultBatchSize = 16

// GraphRecipe is the recipe of a graph model with no published optimiser
// of its own: GIN's setting on the TU benchmarks (Xu et al. 2019), Adam at
// lr 0.01 halved every 50 epochs, no weight decay, 100 epochs, in
// mini-batches of 16 graphs (the paper's).
var GraphRecipe = Recipe{Epochs: 100, LR: 0.01, Optimizer: "adam", LRSchedule: "step", BatchSize: DefaultBatchSize, StepEvery: DefaultStepEvery}

// check reports a recipe that could not train: Register calls it, so a
// model's file finds its mistake at start-up.
func (r Recipe) check(graph bool) error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 }
	switch {
	case r.Epochs < 1:
		return fmt.Errorf("recipe: %d epochs", r.Epochs)
	case !finite(r.LR) || r.LR == 0:
		return fmt.Errorf("recipe: learning rate %v", r.LR)
	case !finite(r.WeightDecay) || !finite(r.Clip) || r.Patience < 0 || r.StepEvery < 1:
		return fmt.Errorf("recipe: weight decay %v, clip %v, patience %d or step period %d out of range", r.WeightDecay, r.Clip, r.Patience, r.StepEvery)
	case graph && r.BatchSize < 1:
		return fmt.Errorf("recipe: a graph model needs a mini-batch, got %d", r.BatchSize)
	case !graph && (r.BatchSize != 0 || r.SeededMicroBatches):
		return fmt.Errorf("recipe: a node model trains full-batch")
	}
	switch r.Optimizer {
	case "adam", "adamw", "radam":
	default:
		return fmt.Errorf("recipe: optimizer %q (want adam, adamw or radam)", r.Optimizer)
	}
	switch r.LRSchedule {
	case "", "cosine", "step", "exponential":
		return nil
	}
	return fmt.Errorf("recipe: learning-rate schedule %q", r.LRSchedule)
}
