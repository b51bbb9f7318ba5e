package model

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/tensor"
)

// meanReadout is the mean of each graph's node rows in a batch: the sum
// over the graph's segment times 1/nodes, the factors kept per batch. The
// zero value is ready for reset.
type meanReadout struct {
	inv *autodiff.Var[float32] // batch graphs × 1: 1/nodes (1 for an empty graph)
}

// reset sets the factors for the graphs of b.
func (r *meanReadout) reset(b *data.GraphBatch) {
	if r.inv == nil {
		r.inv = autodiff.NewVar(tensor.NewDense[float32](0, 1), false)
	}
	r.inv.Value.Reshape(b.G(), 1)
	for g := range b.G() {
		r.inv.Value.Data[g] = 1 / float32(max(b.Seg[g+1]-b.Seg[g], 1))
	}
}

// forward records the mean of h's rows over each graph of b (reset for b).
func (r *meanReadout) forward(t *autodiff.Tape[float32], h *autodiff.Var[float32], b *data.GraphBatch) *autodiff.Var[float32] {
	return autodiff.Mul(t, autodiff.ScatterAddRows(t, h, b.Seg), r.inv)
}
