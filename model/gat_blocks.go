package model

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/sample"
)

// GAT and GATv2 over sampled blocks (BlockModel): layer 0 is input dropout
// → the first attention layer → ELU, layer 1 dropout → the second
// attention layer, as in Forward. Each parent attends over its sampled
// in-neighbours and itself: the softmax of every head normalises over the
// sample, as PyG's GATConv does on a NeighborLoader's subgraph, so with
// every neighbour a parent gets the full-batch value.

// Depth is GAT's two attention layers.
func (m *GAT) Depth() int { return 2 }

// LayerWidth is the concatenated hidden heads, then the classes.
func (m *GAT) LayerWidth(l int) int {
	if l == 0 {
		return m.cfg.Hidden * m.cfg.Heads
	}
	return m.shape.Classes
}

// CheckBlocks accepts every configuration.
func (m *GAT) CheckBlocks() error { return nil }

// ForwardBlock implements BlockModel.
func (m *GAT) ForwardBlock(t *autodiff.Tape[float32], l int, blk sample.Block, x data.Features, in *autodiff.Var[float32], training bool, rng *rand.Rand) *autodiff.Var[float32] {
	bi := &m.blocks
	bi.normalize = m.cfg.NormalizeFeatures
	gg := bi.attention(l, blk, !t.NoGrad)
	if l == 0 {
		xs := bi.features("gat", m.shape, blk, x, !t.NoGrad).Apply(m.cfg.Dropout, rng, training)
		return autodiff.ELU(t, m.conv1.ForwardSparse(t, gg, xs, m.cfg.Dropout, rng, training), 1)
	}
	h := autodiff.Dropout(t, in, m.cfg.Dropout, rng, training)
	return m.conv2.Forward(t, gg, h, m.cfg.Dropout, rng, training)
}
