package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
)

// MultiHeadAttention is the global self-attention of a GPS layer
// (Rampášek et al. 2022, §3.3), laid out as torch.nn.MultiheadAttention:
// queries, keys and values from one input projection In (dim × 3·dim,
// Xavier-uniform over the whole matrix, zero bias), Heads heads of width
// dim/Heads, and an output projection Out (PyTorch's Linear weights, zero
// bias). The attention itself is either exact softmax attention
// (autodiff.Attention, fused, O(n·dim) memory), with Dropout on the
// attention probabilities as torch applies it, or FAVOR+
// (autodiff.PerformerAttention, linear in n) with Features random
// features per head, with Dropout on the output as performer-pytorch's
// SelfAttention applies it.
//
// GraphGPS's Performer is performer-pytorch's SelfAttention, whose own
// q, k, v and output projections we take to be In and Out: the two kinds
// share their parameters and differ only in the kernel. (performer-pytorch
// 1.x defaults to 64-wide heads without q, k, v biases; its 0.x releases,
// like torch, split dim among the heads.)
type MultiHeadAttention[T autodiff.Float] struct {
	In, Out *Linear[T]
	// Proj holds the FAVOR+ random features, Features × dim/Heads: blocks
	// of orthonormal rows scaled by the norms of Gaussian vectors, drawn
	// once (performer-pytorch's gaussian_orthogonal_random_matrix, which
	// GraphGPS never redraws). It is a constant, not trained; nil when the
	// layer has no Performer kernel.
	Proj    *autodiff.Var[T]
	Heads   int
	Dropout float64
}

// PerformerFeatures is FAVOR+'s default number of random features for heads
// of width dh, ⌊dh·ln dh⌋ (performer-pytorch's nb_features), at least 1.
func PerformerFeatures(dh int) int {
	return max(1, int(float64(dh)*math.Log(float64(dh))))
}

// NewMultiHeadAttention returns attention over dim features in heads
// heads, with a Performer kernel when performer is set. Its parameters are
// name.in_proj.weight, name.in_proj.bias, name.out_proj.weight,
// name.out_proj.bias and name.projection.
func NewMultiHeadAttention[T autodiff.Float](name string, dim, heads int, dropout float64, performer bool, rng *rand.Rand) *MultiHeadAttention[T] {
	if heads < 1 || dim%heads != 0 {
		panic(fmt.Sprintf("nn: attention over %d features in %d heads", dim, heads))
	}
	a := &MultiHeadAttention[T]{
		In:    &Linear[T]{W: autodiff.NewParam[T](name+".in_proj.weight", dim, 3*dim), B: autodiff.NewParam[T](name+".in_proj.bias", 1, 3*dim)},
		Out:   NewLinear[T](name+".out_proj", dim, dim, true, rng),
		Heads: heads, Dropout: dropout,
	}
	Glorot(a.In.W, rng)
	Fill(a.Out.B, 0)
	if performer {
		dh := dim / heads
		a.Proj = autodiff.NewParam[T](name+".projection", PerformerFeatures(dh), dh)
		GaussianOrthogonal(a.Proj, rng)
	}
	return a
}

// Params lists the trained parameters (not Proj).
func (a *MultiHeadAttention[T]) Params() []*autodiff.Var[T] {
	return append(a.In.Params(), a.Out.Params()...)
}

// Forward records self-attention over the rows of x (n × dim): exact
// softmax attention, or FAVOR+ with performer (which needs Proj). Dropout
// draws from rng in training.
func (a *MultiHeadAttention[T]) Forward(t *autodiff.Tape[T], x *autodiff.Var[T], performer, training bool, rng *rand.Rand) *autodiff.Var[T] {
	return a.forward(t, x, nil, performer, training, rng)
}

// forward is Forward, within the segments seg when it is not nil.
func (a *MultiHeadAttention[T]) forward(t *autodiff.Tape[T], x *autodiff.Var[T], seg []int32, performer, training bool, rng *rand.Rand) *autodiff.Var[T] {
	dim := a.Out.W.Value.Rows
	qkv := a.In.Forward(t, x)
	if seg != nil {
		return a.Out.Forward(t, a.segments(t, qkv, seg, dim, training, rng))
	}
	q := autodiff.SliceCols(t, qkv, 0, dim)
	k := autodiff.SliceCols(t, qkv, dim, 2*dim)
	v := autodiff.SliceCols(t, qkv, 2*dim, 3*dim)
	if !performer {
		return a.Out.Forward(t, autodiff.Attention(t, q, k, v, a.Heads, a.Dropout, rng, training))
	}
	if a.Proj == nil {
		panic("nn: Performer attention on a layer built without it")
	}
	y := a.Out.Forward(t, autodiff.PerformerAttention(t, q, k, v, a.Proj, a.Heads))
	return autodiff.Dropout(t, y, a.Dropout, rng, training)
}

// GaussianOrthogonal fills p (f × d) with performer-pytorch's random
// features: consecutive blocks of d rows are orthonormal (Gram-Schmidt on
// Gaussian vectors, which gives a Haar-distributed orthogonal matrix, as
// the QR decomposition does), the last block truncated, and row l is then
// scaled by the norm of an independent d-dimensional Gaussian vector, so
// that each row is marginally Gaussian while rows within a block stay
// orthogonal (Choromanski et al. 2021, §2.4, "ORFs").
func GaussianOrthogonal[T autodiff.Float](p *autodiff.Var[T], rng *rand.Rand) {
	f, d := p.Value.Rows, p.Value.Cols
	block := make([]float64, d*d)
	for b := 0; b < f; b += d {
		for r := 0; r < d; r++ {
			row := block[r*d : (r+1)*d]
			for {
				for i := range row {
					row[i] = rng.NormFloat64()
				}
				for _, prev := range blockRows(block, d, r) {
					var dot float64
					for i := range row {
						dot += row[i] * prev[i]
					}
					for i := range row {
						row[i] -= dot * prev[i]
					}
				}
				var norm float64
				for _, x := range row {
					norm += x * x
				}
				if norm > 1e-12 { // a degenerate draw has probability 0; redraw
					for i := range row {
						row[i] /= math.Sqrt(norm)
					}
					break
				}
			}
		}
		for r := 0; r < d && b+r < f; r++ {
			var g float64
			for i := 0; i < d; i++ {
				x := rng.NormFloat64()
				g += x * x
			}
			for i, x := range block[r*d : (r+1)*d] {
				p.Value.Data[(b+r)*d+i] = T(x * math.Sqrt(g))
			}
		}
	}
}

// blockRows returns rows [0, r) of the d-wide block.
func blockRows(block []float64, d, r int) [][]float64 {
	rows := make([][]float64, r)
	for i := range rows {
		rows[i] = block[i*d : (i+1)*d]
	}
	return rows
}

// ForwardSegments is exact softmax attention within each segment of rows:
// rows seg[s] … seg[s+1]−1 (a graph of a batch) attend to each other only,
// as GraphGPS's graph-level models attend within each graph. seg must run
// from 0 to x's row count.
func (a *MultiHeadAttention[T]) ForwardSegments(t *autodiff.Tape[T], x *autodiff.Var[T], seg []int32, training bool, rng *rand.Rand) *autodiff.Var[T] {
	return a.forward(t, x, seg, false, training, rng)
}

// segments records the attention within each segment of qkv's rows (one
// op for all segments, autodiff.SegmentAttention).
func (a *MultiHeadAttention[T]) segments(t *autodiff.Tape[T], qkv *autodiff.Var[T], seg []int32, dim int, training bool, rng *rand.Rand) *autodiff.Var[T] {
	q := autodiff.SliceCols(t, qkv, 0, dim)
	k := autodiff.SliceCols(t, qkv, dim, 2*dim)
	v := autodiff.SliceCols(t, qkv, 2*dim, 3*dim)
	return autodiff.SegmentAttention(t, q, k, v, seg, a.Heads, a.Dropout, rng, training)
}
