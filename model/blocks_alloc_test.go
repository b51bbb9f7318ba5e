package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/sample"
)

// A warm sampled step allocates next to nothing: the garbage of each batch
// would otherwise pile up to the size of the live heap, the graph's, before
// the collector runs, and the memory of training would grow with the graph.
func TestBlocksStepAllocs(t *testing.T) {
	sbm, err := data.GenerateSBM(data.SBMConfig{Edges: 4000, Nodes: 600, Features: 30, NNZ: 4, Classes: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	ds := sbm.Node
	for name, build := range blockModels(ds) {
		m := build()
		fan := make(sample.Fanouts, m.Depth())
		for i := range fan {
			fan[i] = 4
		}
		s, err := sample.NewSampler(ds.Graph, fan)
		if err != nil {
			t.Fatal(err)
		}
		seeds := []int32{1, 5, 9, 33, 100, 200, 300, 599}
		var b sample.Batch
		rng := rand.New(rand.NewPCG(1, 2))
		var tape autodiff.Tape[float32]
		tape.Grow = true // as the sampled trainer does: batches vary in size
		labels, _ := autodiff.NewLabels([]int32{0, 1, 2, 0, 1, 2, 0, 1}, ds.NumClasses)
		rows := []int32{0, 1, 2, 3, 4, 5, 6, 7}
		step := func() {
			if err := s.Sample(&b, seeds, rng); err != nil {
				t.Fatal(err)
			}
			tape.Reset()
			out := model.ForwardBatch(&tape, m, &b, ds.X, true, rng)
			if err := tape.Backward(autodiff.SoftmaxCrossEntropy(&tape, out, labels, rows)); err != nil {
				t.Fatal(err)
			}
		}
		for range 20 { // warm: the buffers grow to the largest batch
			step()
		}
		if n := testing.AllocsPerRun(20, step); n > 4 {
			t.Errorf("%s: %.0f allocations a warm step", name, n)
		}
	}
}
