package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/sample"
	"github.com/prcaps/prcaps/tensor"
)

// TGNN over sampled blocks (BlockModel): layer l is message-passing layer
// l (its convolution over the block, GCN's rows of Â with the sampled
// neighbours scaled up, GraphSAGE's mean over the sampled neighbours, or
// attention over them; the residual and the norm on the parents' own
// rows; ReLU and dropout), the last followed by the classifier. With
// every neighbour each parent gets the full-batch value.

// Depth is the message-passing layers.
func (m *TGNN) Depth() int { return m.cfg.Layers }

// LayerWidth is the hidden width, the classes at the end.
func (m *TGNN) LayerWidth(l int) int {
	if l == m.Depth()-1 {
		return m.shape.Classes
	}
	return m.cfg.Hidden
}

// CheckBlocks refuses jumping knowledge: the classifier would read every
// layer's output at the seeds, and layer-wise inference would hold a
// nodes × width matrix per layer.
func (m *TGNN) CheckBlocks() error {
	if m.cfg.JK {
		return fmt.Errorf("tgnn: sampled training does not take jk (the sum of every layer's output)")
	}
	return nil
}

// ForwardBlock implements BlockModel.
func (m *TGNN) ForwardBlock(t *autodiff.Tape[float32], l int, blk sample.Block, x data.Features, in *autodiff.Var[float32], training bool, rng *rand.Rand) *autodiff.Var[float32] {
	bi := &m.blocks
	bi.normalize = m.cfg.NormalizeFeatures
	grad := !t.NoGrad
	var xs *tensor.Adjacency[float32]
	if l == 0 {
		xs = bi.features("tgnn", m.shape, blk, x, grad).Apply(0, rng, training)
	}
	ly := &m.layers[l]
	var y *autodiff.Var[float32]
	switch {
	case ly.gcn != nil && xs != nil:
		y = ly.gcn.ForwardSparse(t, bi.operator(l, blk, aggGCN, grad), xs)
	case ly.gcn != nil:
		y = ly.gcn.Forward(t, bi.operator(l, blk, aggGCN, grad), in)
	case ly.sage != nil:
		// The neighbour term over the children, the self term over the
		// parents' own rows (the first of the children).
		mean := bi.neighbourMean(l, blk, grad)
		if xs != nil {
			nb := ly.sage.Neighbors.AddBias(t, autodiff.GraphAggregate(t, mean, autodiff.SpMMTransposed(t, xs, ly.sage.Neighbors.W)))
			y = autodiff.Add(t, nb, autodiff.SliceRows(t, ly.sage.Self.ForwardSparse(t, xs), 0, blk.Parents))
		} else {
			nb := ly.sage.Neighbors.AddBias(t, autodiff.GraphAggregate(t, mean, autodiff.MatMul(t, in, ly.sage.Neighbors.W)))
			y = autodiff.Add(t, nb, ly.sage.Self.Forward(t, autodiff.SliceRows(t, in, 0, blk.Parents)))
		}
	case xs != nil:
		y = ly.gat.ForwardSparse(t, bi.attention(l, blk, grad), xs, 0, rng, training)
	default:
		y = ly.gat.Forward(t, bi.attention(l, blk, grad), in, 0, rng, training)
	}
	if ly.res != nil {
		if xs != nil {
			y = autodiff.Add(t, y, autodiff.SliceRows(t, ly.res.ForwardSparse(t, xs), 0, blk.Parents))
		} else {
			y = autodiff.Add(t, y, ly.res.Forward(t, autodiff.SliceRows(t, in, 0, blk.Parents)))
		}
	}
	if ly.norm != nil {
		y = ly.norm.Forward(t, y)
	}
	h := autodiff.ReLUDropout(t, y, m.cfg.Dropout, rng, training)
	if l < m.Depth()-1 {
		return h
	}
	return m.out.Forward(t, h)
}
