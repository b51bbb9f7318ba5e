package model

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/sample"
)

// GCN over sampled blocks (BlockModel): layer 0 is dropout → GCNConv →
// ReLU → dropout, layer 1 the second GCNConv, each over the block's rows
// of Â with the sampled neighbours' weights scaled up (blockInput.operator).

// Depth is GCN's two layers.
func (m *GCN) Depth() int { return 2 }

// LayerWidth is the hidden width, then the classes.
func (m *GCN) LayerWidth(l int) int {
	if l == 0 {
		return m.cfg.Hidden
	}
	return m.shape.Classes
}

// CheckBlocks accepts every configuration.
func (m *GCN) CheckBlocks() error { return nil }

// ForwardBlock implements BlockModel.
func (m *GCN) ForwardBlock(t *autodiff.Tape[float32], l int, blk sample.Block, x data.Features, in *autodiff.Var[float32], training bool, rng *rand.Rand) *autodiff.Var[float32] {
	bi := &m.blocks
	bi.normalize = m.cfg.NormalizeFeatures
	adj := bi.operator(l, blk, aggGCN, !t.NoGrad)
	if l == 0 {
		xs := bi.features("gcn", m.shape, blk, x, !t.NoGrad).Apply(m.cfg.Dropout, rng, training)
		return autodiff.ReLUDropout(t, m.conv1.ForwardSparse(t, adj, xs), m.cfg.Dropout, rng, training)
	}
	return m.conv2.Forward(t, adj, in)
}
