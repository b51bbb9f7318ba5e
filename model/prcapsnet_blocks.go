package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/sample"
)

// PR-CapsNet over sampled blocks (BlockModel): layer 0 is the stem up to
// the primary capsules' tangent coordinates z = loĝ_o(exp̂_o(h)), layer i
// ≥ 1 routing layer i−1 over the block's links, the last one followed by
// the classifier. The layers are those of capsules, so a block with every
// neighbour gives each parent the value of the full-batch pass.

// Depth is the stem plus the routing layers.
func (m *PRCapsNet) Depth() int { return 1 + len(m.layers) }

// LayerWidth is the capsules' tangent dimension, the classes at the end.
func (m *PRCapsNet) LayerWidth(l int) int {
	if l == m.Depth()-1 {
		return m.shape.Classes
	}
	return m.dims.Tangent()
}

// CheckBlocks accepts the routing variants over links (capsule.Kind's
// OverLinks: acr and pcr) with the coupling over children: the Euclidean
// and routing-free ablations have no block form here, and the coupling over each child's parents would normalise
// over the block's parents only.
func (m *PRCapsNet) CheckBlocks() error {
	if !m.cfg.Routing.OverLinks() {
		return fmt.Errorf("prcapsnet: sampled training needs a routing over the links (acr or pcr), not %s", m.cfg.Routing)
	}
	if m.cfg.Coupling != capsule.CouplingOverChildren {
		return fmt.Errorf("prcapsnet: sampled training needs the coupling over children: over a child's parents it would normalise over the sampled parents only")
	}
	return nil
}

// ForwardBlock implements BlockModel.
func (m *PRCapsNet) ForwardBlock(t *autodiff.Tape[float32], l int, blk sample.Block, x data.Features, in *autodiff.Var[float32], training bool, rng *rand.Rand) *autodiff.Var[float32] {
	bi := &m.blocks
	bi.normalize = m.cfg.NormalizeFeatures
	beta := manifold.Beta(t, m.rho)
	var z *autodiff.Var[float32]
	if l == 0 {
		agg := aggGCN
		if m.cfg.Stem == StemSum {
			agg = aggSum
		}
		xs := bi.features("prcapsnet", m.shape, blk, x, !t.NoGrad).Apply(m.cfg.InputDropout, rng, training)
		h := autodiff.ReLUDropout(t, m.stem.ForwardSparse(t, bi.operator(0, blk, agg, !t.NoGrad), xs), m.cfg.Dropout, rng, training)
		h = m.norm.Forward(t, m.proj.Forward(t, h))
		z = manifold.LogExpO(t, h, beta, m.dims)
	} else {
		z = m.layers[l-1].ForwardLayer(t, in, beta, capsule.Graph[float32]{Links: bi.links(l, blk)})
	}
	if l < m.Depth()-1 {
		return z
	}
	if m.prcc != nil {
		return m.prcc.ForwardTangent(t, z, beta)
	}
	return m.tangent.ForwardTangent(t, z)
}
