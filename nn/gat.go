package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// GATConv is a graph attention layer with Heads heads of Out features:
// GAT's (Veličković et al. 2018), e_ij = LeakyReLU(a_dᵀ W h_i + a_sᵀ W h_j),
// or, with V2, GATv2's (Brody et al. 2022), e_ij = aᵀ LeakyReLU(W_r h_i +
// W_l h_j), whose ranking of neighbours depends on the target. Per head the
// coefficients are the softmax of e_ij over the in-neighbours j of i (self
// included), dropped out in training, and node i receives Σ_j α_ij (W h_j)
// (W_l h_j for V2). The heads are concatenated (Concat) or averaged, then a
// bias is added, as in PyG's GATConv and GATv2Conv.
type GATConv[T autodiff.Float] struct {
	W      *autodiff.Var[T] // In × Heads·Out (W; W_l for V2)
	WR     *autodiff.Var[T] // In × Heads·Out, V2 only (W_r)
	ASrc   *autodiff.Var[T] // Out × Heads (a_s; a for V2)
	ADst   *autodiff.Var[T] // Out × Heads, GAT only (a_d)
	B      *autodiff.Var[T] // 1 × Heads·Out, or 1 × Out when averaging
	Heads  int
	Out    int
	Concat bool
	V2     bool
	Slope  float64 // of the LeakyReLU (0.2)

}

// NewGATConv returns a layer from In to Heads × Out features, Glorot
// initialised (biases zero), its parameters named name.W, name.a_src, ….
func NewGATConv[T autodiff.Float](name string, in, out, heads int, concat, v2 bool, rng *rand.Rand) *GATConv[T] {
	c := &GATConv[T]{Heads: heads, Out: out, Concat: concat, V2: v2, Slope: 0.2,
		W: autodiff.NewParam[T](name+".weight", in, heads*out), ASrc: autodiff.NewParam[T](name+".att_src", out, heads)}
	Glorot(c.W, rng)
	if v2 {
		c.WR = autodiff.NewParam[T](name+".weight_dst", in, heads*out)
		Glorot(c.WR, rng)
	} else {
		c.ADst = autodiff.NewParam[T](name+".att_dst", out, heads)
		Glorot(c.ADst, rng)
	}
	Glorot(c.ASrc, rng)
	width := out
	if concat {
		width = heads * out
	}
	c.B = autodiff.NewParam[T](name+".bias", 1, width)
	return c
}

// Params lists the layer's parameters.
func (c *GATConv[T]) Params() []*autodiff.Var[T] {
	if c.V2 {
		return []*autodiff.Var[T]{c.W, c.WR, c.ASrc, c.B}
	}
	return []*autodiff.Var[T]{c.W, c.ASrc, c.ADst, c.B}
}

// GATGraph is what attention layers need of a graph: the arcs with a
// self-loop on every node, CSR by target (values unused), with each arc's
// source and target. Adj.A has a row per target and a column per source:
// square for a whole graph (Reset), parents × children for a sampled block
// (ResetBlock), whose parents are the first of its children.
type GATGraph[T autodiff.Float] struct {
	Adj      tensor.Adjacency[T]
	a        tensor.CSR[T]
	Src, Dst []int32
}

// Reset builds g for the graph on n nodes with in-neighbours
// src[ptr[v]:ptr[v+1]].
func (g *GATGraph[T]) Reset(n int, ptr, src []int32) {
	SumAggInto(&g.a, n, ptr, src) // A + I; the values are not read
	g.Adj.Reset(&g.a)
	g.Src = append(g.Src[:0], g.a.Indices...)
	g.Dst = g.Dst[:0]
	for v := 0; v < n; v++ {
		for p := g.a.Indptr[v]; p < g.a.Indptr[v+1]; p++ {
			g.Dst = append(g.Dst, int32(v))
		}
	}
}

// ResetBlock builds g for a block of a sampled neighbourhood (package
// sample): parent j (< parents) attends over the children
// child[ptr[j]:ptr[j+1]] (each < children, sorted, itself among them), so
// the softmax of each head runs over the sampled neighbours only. The
// parents are children 0 … parents−1: the layer's input has a row per
// child and its output a row per parent. ptr and child are read, not
// copied, and must not change while g is in use. With grad false no
// transpose is built, for passes that record no backward.
func (g *GATGraph[T]) ResetBlock(parents, children int, ptr, child []int32, grad bool) {
	if len(ptr) != parents+1 || int(ptr[parents]) != len(child) || parents > children {
		panic(fmt.Sprintf("nn: GATGraph.ResetBlock: %d parents, %d children, %d row pointers, %d links", parents, children, len(ptr), len(child)))
	}
	a := &g.a
	a.Rows, a.Cols, a.Indptr, a.Indices = parents, children, ptr, child
	if cap(a.Data) < len(child) {
		a.Data = tensor.Regrow(a.Data, len(child))
	}
	a.Data = a.Data[:len(child)]
	if grad {
		g.Adj.Reset(a)
	} else {
		g.Adj.ResetForward(a)
	}
	g.Src = append(g.Src[:0], child...)
	g.Dst = g.Dst[:0]
	for j := range parents {
		for range ptr[j+1] - ptr[j] {
			g.Dst = append(g.Dst, int32(j))
		}
	}
}

// Forward records the layer on dense input x (nodes × In); dropout on the
// attention coefficients (probability attnDrop) draws from rng in training.
func (c *GATConv[T]) Forward(t *autodiff.Tape[T], g *GATGraph[T], x *autodiff.Var[T], attnDrop float64, rng *rand.Rand, training bool) *autodiff.Var[T] {
	return c.attend(t, g, autodiff.MatMul(t, x, c.W), c.right(t, x), attnDrop, rng, training)
}

// ForwardSparse is Forward for a sparse constant input (see SparseInput).
func (c *GATConv[T]) ForwardSparse(t *autodiff.Tape[T], g *GATGraph[T], x *tensor.Adjacency[T], attnDrop float64, rng *rand.Rand, training bool) *autodiff.Var[T] {
	var r *autodiff.Var[T]
	if c.V2 {
		r = autodiff.SpMMTransposed(t, x, c.WR)
	}
	return c.attend(t, g, autodiff.SpMMTransposed(t, x, c.W), r, attnDrop, rng, training)
}

func (c *GATConv[T]) right(t *autodiff.Tape[T], x *autodiff.Var[T]) *autodiff.Var[T] {
	if !c.V2 {
		return nil
	}
	return autodiff.MatMul(t, x, c.WR)
}

// attend runs the heads over the projected features wh (and whr, V2).
func (c *GATConv[T]) attend(t *autodiff.Tape[T], g *GATGraph[T], wh, whr *autodiff.Var[T], attnDrop float64, rng *rand.Rand, training bool) *autodiff.Var[T] {
	if g.Adj.A.Cols != wh.Value.Rows {
		panic(fmt.Sprintf("nn: GATConv: %d source nodes in the graph, %d feature rows", g.Adj.A.Cols, wh.Value.Rows))
	}
	// The heads' outputs live on the stack (up to 16 heads): a layer
	// keeps no per-pass state, so passes on two tapes may run at once.
	var buf [16]*autodiff.Var[T]
	heads := buf[:]
	if c.Heads > len(buf) {
		heads = make([]*autodiff.Var[T], c.Heads)
	}
	heads = heads[:c.Heads]
	var scores *autodiff.Var[T] // GATv2: every head's, fused
	if c.V2 {
		scores = gatv2Scores(t, wh, whr, c.ASrc, g.Src, g.Dst, c.Heads, c.Out, c.Slope)
	}
	for h := range heads {
		lo, hi := h*c.Out, (h+1)*c.Out
		xh := autodiff.SliceCols(t, wh, lo, hi)
		var e *autodiff.Var[T]
		if c.V2 {
			e = scores
			if c.Heads > 1 {
				e = autodiff.SliceCols(t, scores, h, h+1)
			}
		} else {
			s := autodiff.MatMul(t, xh, autodiff.SliceCols(t, c.ASrc, h, h+1))
			d := autodiff.MatMul(t, xh, autodiff.SliceCols(t, c.ADst, h, h+1))
			e = autodiff.LeakyReLU(t, autodiff.Add(t, autodiff.GatherRows(t, s, g.Src), autodiff.GatherRows(t, d, g.Dst)), c.Slope)
		}
		alpha := autodiff.Dropout(t, autodiff.SegmentSoftmax(t, e, g.Adj.A.Indptr), attnDrop, rng, training)
		heads[h] = autodiff.EdgeAggregate(t, &g.Adj, alpha, xh)
	}
	var out *autodiff.Var[T]
	switch {
	case c.Heads == 1:
		out = heads[0]
	case c.Concat:
		out = autodiff.ConcatCols(t, heads...)
	default:
		out = heads[0]
		for _, h := range heads[1:] {
			out = autodiff.Add(t, out, h)
		}
		out = autodiff.Scale(t, out, 1/float64(c.Heads))
	}
	return autodiff.Add(t, out, c.B)
}
