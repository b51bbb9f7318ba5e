package train

import (
	"testing"

	"github.com/prcaps/prcaps/data"
)

// Each model's recipe, now written in its model's file, is the training
// configuration it had when train held them all (the published settings
// the tables were run with), with the step schedule's period of 50 given
// instead of implied; unknown names get the task's default.
func TestRecipes(t *testing.T) {
	node, graph := data.NodeTask, data.GraphTask
	for _, tc := range []struct {
		task         data.Task
		name         string
		want         Config
		batch        int
		seededMicros bool
	}{
		{node, "prcapsnet", Config{Epochs: 200, LR: 0.005, WeightDecay: 5e-4, Optimizer: "adamw", Clip: 1}, 0, false},
		{node, "sgc", Config{Epochs: 100, LR: 0.2, WeightDecay: 5e-6, Optimizer: "adam"}, 0, false},
		{node, "ssgc", Config{Epochs: 100, LR: 0.2, WeightDecay: 1e-5, Optimizer: "adam"}, 0, false},
		{node, "gat", Config{Epochs: 1000, Patience: 100, LR: 0.005, WeightDecay: 5e-4, Optimizer: "adam"}, 0, false},
		{node, "gatv2", Config{Epochs: 1000, Patience: 100, LR: 0.005, WeightDecay: 5e-4, Optimizer: "adam"}, 0, false},
		{node, "qgcn", Config{Epochs: 2000, Patience: 100, LR: 0.01, Optimizer: "adam"}, 0, false},
		{node, "tgnn", Config{Epochs: 500, LR: 0.001, WeightDecay: 5e-4, Optimizer: "adam"}, 0, false},
		{node, "graphgps", Config{Epochs: 200, LR: 0.001, WeightDecay: 1e-5, Optimizer: "adamw", Clip: 1, LRSchedule: ScheduleCosine}, 0, false},
		{node, "gcn", Config{Epochs: 200, LR: 0.01, WeightDecay: 5e-4, Optimizer: "adam"}, 0, false},
		{node, "dgcnn", Config{Epochs: 200, LR: 0.01, WeightDecay: 5e-4, Optimizer: "adam"}, 0, false},
		{node, "nosuch", Config{Epochs: 200, LR: 0.01, WeightDecay: 5e-4, Optimizer: "adam"}, 0, false},
		{graph, "prcapsnet", Config{Epochs: 100, LR: 0.005, WeightDecay: 1e-4, Optimizer: "radam", Clip: 1, LRSchedule: ScheduleStep}, 16, true},
		{graph, "gin", Config{Epochs: 350, LR: 0.01, Optimizer: "adam", LRSchedule: ScheduleStep}, 32, false},
		{graph, "dgcnn", Config{Epochs: 200, LR: 1e-4, Optimizer: "adam"}, 50, false},
		{graph, "gat", Config{Epochs: 100, LR: 0.005, WeightDecay: 5e-4, Optimizer: "adam"}, 16, false},
		{graph, "gatv2", Config{Epochs: 100, LR: 0.005, WeightDecay: 5e-4, Optimizer: "adam"}, 16, false},
		{graph, "graphgps", Config{Epochs: 100, LR: 0.001, WeightDecay: 1e-5, Optimizer: "adamw", Clip: 1, LRSchedule: ScheduleCosine}, 32, false},
		{graph, "grdl", Config{Epochs: 100, LR: 0.001, Optimizer: "adam", LRSchedule: ScheduleExponential}, 32, false},
		{graph, "gratin", Config{Epochs: 600, LR: 0.01, WeightDecay: 5e-4, Optimizer: "adam", LRSchedule: ScheduleStep, StepEvery: 100}, 256, false},
		{graph, "mlp", Config{Epochs: 5000, Patience: 500, LR: 0.001, WeightDecay: 0.001, Optimizer: "adam"}, 32, false},
		{graph, "ssgc", Config{Epochs: 100, LR: 0.01, Optimizer: "adam", LRSchedule: ScheduleStep}, 16, false},
		{graph, "nosuch", Config{Epochs: 100, LR: 0.01, Optimizer: "adam", LRSchedule: ScheduleStep}, 16, false},
	} {
		if tc.want.StepEvery == 0 {
			tc.want.StepEvery = 50
		}
		if got := Recipe(tc.task, tc.name); got != tc.want {
			t.Errorf("%s %s: recipe %+v, want %+v", tc.task, tc.name, got, tc.want)
		}
		if tc.task != graph {
			continue
		}
		if got := RecipeBatchSize(tc.name); got != tc.batch {
			t.Errorf("%s: batch %d, want %d", tc.name, got, tc.batch)
		}
		if got := RecipeSeededMicroBatches(tc.name); got != tc.seededMicros {
			t.Errorf("%s: seeded micro-batches %v, want %v", tc.name, got, tc.seededMicros)
		}
	}
}
