package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/sample"
	"github.com/prcaps/prcaps/tensor"
)

// BlockModel is a node model that also runs layer by layer over sampled
// neighbourhoods (package sample): mini-batch training on a Batch's
// blocks, and exact inference layer by layer in blocks of nodes with every
// neighbour (LayerwiseLogits), each with memory bounded by the block, not
// the graph.
type BlockModel interface {
	NodeModel
	// Depth is the number of message-passing layers: the fan-outs a
	// sample for the model has.
	Depth() int
	// LayerWidth is the width of layer l's output rows (the classes for
	// the last layer, whose rows are logits).
	LayerWidth(l int) int
	// ForwardBlock records layer l over blk: one output row per parent of
	// blk, from in, the layer's input rows of blk's children (layer 0
	// reads the features x of the nodes blk.Nodes instead, in nil). The
	// operators the layer derives from blk are kept in the model until
	// the next call for the same l, so a pass's backward must run before
	// the next pass, and two passes may not run at once.
	ForwardBlock(t *autodiff.Tape[float32], l int, blk sample.Block, x data.Features, in *autodiff.Var[float32], training bool, rng *rand.Rand) *autodiff.Var[float32]
	// CheckBlocks reports why the model's configuration cannot run over
	// sampled blocks, or nil.
	CheckBlocks() error
}

// BlockModelNames lists the node models (registry names, in registration
// order) whose default configuration trains on sampled blocks.
func BlockModelNames() []string {
	var names []string
	for _, s := range Specs() {
		if s.Task != data.NodeTask {
			continue
		}
		m, err := s.Build(s.Default(), Shape{Features: 2, Classes: 2}, 0)
		if bm, ok := m.(BlockModel); err == nil && ok && bm.CheckBlocks() == nil {
			names = append(names, s.Name)
		}
	}
	return names
}

// ForwardBatch records m over the blocks of b, layer after layer, and
// returns the logits of b's seeds (row i: b.Seeds()[i]).
func ForwardBatch(t *autodiff.Tape[float32], m BlockModel, b *sample.Batch, x data.Features, training bool, rng *rand.Rand) *autodiff.Var[float32] {
	if b.Layers() != m.Depth() {
		panic(fmt.Sprintf("model: a batch of %d hops for a model of %d layers", b.Layers(), m.Depth()))
	}
	var h *autodiff.Var[float32]
	for l := range m.Depth() {
		h = m.ForwardBlock(t, l, b.Block(l), x, h, training, rng)
	}
	return h
}

// Layerwise holds the buffers of LayerwiseLogits between calls.
type Layerwise struct {
	s        *sample.Sampler // one hop, every neighbour
	g        *data.Graph
	b        sample.Batch
	cur, nxt tensor.Dense[float32] // one row per node: a layer's input and output
	out      tensor.Dense[float32] // the last layer's rows
	in       tensor.Dense[float32] // the input rows of a block's children
	all      []int32
}

// LayerwiseLogits computes m's logits of the nodes rows of g (evaluation
// mode, every neighbour: no sampling noise) layer by layer, each layer in
// blocks of at most blockNodes parents, as PyG's layer-wise inference for
// GraphSAGE: memory holds the node × width matrices of the layers but the
// last (one for a two-layer model), one block's neighbourhood, never a
// multi-hop one, and the logits of rows. Every layer but the last runs for
// every node; the last for rows only. The result has one row per node of
// rows (row i the logits of rows[i]) and is valid until the next call.
func LayerwiseLogits(t *autodiff.Tape[float32], m BlockModel, g *data.Graph, x data.Features, rows []int32, blockNodes int, lw *Layerwise) (*tensor.Dense[float32], error) {
	if blockNodes < 1 {
		return nil, fmt.Errorf("model: layer-wise inference in blocks of %d nodes: need at least 1", blockNodes)
	}
	if lw.g != g {
		s, err := sample.NewSampler(g, sample.Fanouts{-1})
		if err != nil {
			return nil, err
		}
		lw.s, lw.g = s, g
		lw.all = make([]int32, g.N)
		for i := range lw.all {
			lw.all[i] = int32(i)
		}
	}
	L := m.Depth()
	for l := range L {
		nodes := lw.all
		if l == L-1 {
			nodes = rows
		}
		w := m.LayerWidth(l)
		dst := &lw.nxt
		if l == L-1 {
			dst = &lw.out
			dst.Reshape(len(rows), w)
		} else {
			dst.Reshape(g.N, w)
		}
		for lo := 0; lo < len(nodes); lo += blockNodes {
			seeds := nodes[lo:min(lo+blockNodes, len(nodes))]
			if err := lw.s.Sample(&lw.b, seeds, nil); err != nil {
				return nil, err
			}
			blk := lw.b.Block(0)
			var in *autodiff.Var[float32]
			if l > 0 {
				lw.in.Reshape(blk.Children, lw.cur.Cols)
				tensor.GatherRows(&lw.in, &lw.cur, blk.Nodes, false)
				in = autodiff.NewVar(&lw.in, false)
			}
			t.Reset()
			out := m.ForwardBlock(t, l, blk, x, in, false, nil)
			if l == L-1 {
				copy(dst.Data[lo*w:], out.Value.Data[:len(seeds)*w])
				continue
			}
			for i, v := range seeds {
				copy(dst.Row(int(v)), out.Value.Row(i))
			}
		}
		if l < L-1 {
			lw.cur, lw.nxt = lw.nxt, lw.cur
		}
	}
	return &lw.out, nil
}

// blockInput holds the per-layer operators of a BlockModel: layer 0's
// gathered features, and each layer's propagation operator and links.
type blockInput struct {
	normalize bool
	feats     tensor.CSR[float32]
	x         nn.SparseInput[float32]
	ops       []blockOp
}

type blockOp struct {
	a   tensor.CSR[float32]
	adj tensor.Adjacency[float32]
	lk  capsule.Links
	gg  nn.GATGraph[float32]
	// mean is GraphSAGE's neighbour mean over the block (storage of its
	// own: a and the block's links share the batch's arrays).
	mean    tensor.CSR[float32]
	meanAdj tensor.Adjacency[float32]
}

func (bi *blockInput) op(l int) *blockOp {
	for len(bi.ops) <= l {
		bi.ops = append(bi.ops, blockOp{})
	}
	return &bi.ops[l]
}

// features points the sparse input at the features of blk's children
// (row-normalised when asked: a per-row map, so gathering first gives the
// whole matrix's normalised rows). A pass without gradients (grad false)
// builds no transposes.
func (bi *blockInput) features(model string, shape Shape, blk sample.Block, x data.Features, grad bool) *nn.SparseInput[float32] {
	if x.Cols() != shape.Features {
		panic(fmt.Sprintf("model: %s: features have %d columns; the model takes %d", model, x.Cols(), shape.Features))
	}
	gatherFeatures(&bi.feats, x, blk.Nodes)
	if bi.normalize {
		data.RowNormalizeInPlace(&bi.feats)
	}
	if grad {
		bi.x.Reset(&bi.feats)
	} else {
		bi.x.ResetForward(&bi.feats)
	}
	return &bi.x
}

// gatherFeatures sets dst to the rows nodes of x, as a CSR matrix.
func gatherFeatures(dst *tensor.CSR[float32], x data.Features, nodes []int32) {
	dst.Rows, dst.Cols = len(nodes), x.Cols()
	dst.Indptr = append(dst.Indptr[:0], 0)
	dst.Indices, dst.Data = dst.Indices[:0], dst.Data[:0]
	for _, v := range nodes {
		if s := x.Sparse; s != nil {
			lo, hi := s.Indptr[v], s.Indptr[v+1]
			dst.Indices = append(dst.Indices, s.Indices[lo:hi]...)
			dst.Data = append(dst.Data, s.Data[lo:hi]...)
		} else {
			for j, f := range x.Dense.Row(int(v)) {
				if f != 0 {
					dst.Indices = append(dst.Indices, int32(j))
					dst.Data = append(dst.Data, f)
				}
			}
		}
		dst.Indptr = append(dst.Indptr, int32(len(dst.Indices)))
	}
}

// Aggregators of a block's propagation operator.
const (
	aggGCN = iota // D̃^−½(A+I)D̃^−½
	aggSum        // A+I
)

// operator builds layer l's propagation operator over blk: the rows of
// the whole graph's operator for the block's parents, restricted to the
// sampled children, each neighbour's weight scaled by (neighbours /
// sampled neighbours) so that the row's expected value over the samples
// is the whole row (the self term is exact). With every neighbour the
// rows are the whole operator's, the same bits. A pass without gradients
// (grad false) builds no transpose.
func (bi *blockInput) operator(l int, blk sample.Block, agg int, grad bool) *tensor.Adjacency[float32] {
	o := bi.op(l)
	a := &o.a
	a.Rows, a.Cols, a.Indptr, a.Indices = blk.Parents, blk.Children, blk.Ptr, blk.Child
	a.Data = grow32f(a.Data, len(blk.Child))
	for j := range blk.Parents {
		lo, hi := blk.Ptr[j], blk.Ptr[j+1]
		dv := float64(blk.Deg[j])
		scale := 1.0
		if s := float64(hi - lo - 1); s > 0 && s != dv-1 {
			scale = (dv - 1) / s
		}
		for p := lo; p < hi; p++ {
			u := blk.Child[p]
			w := 1.0
			if agg == aggGCN {
				w = 1 / math.Sqrt(dv*float64(blk.Deg[u]))
			}
			if int(u) != j && scale != 1 {
				w *= scale
			}
			a.Data[p] = float32(w)
		}
	}
	if grad {
		o.adj.Reset(a)
	} else {
		o.adj.ResetForward(a)
	}
	return &o.adj
}

// links returns layer l's routing links over blk: each parent's children
// its sampled in-neighbours and itself.
func (bi *blockInput) links(l int, blk sample.Block) *capsule.Links {
	lk := &bi.op(l).lk
	lk.Parents, lk.Children, lk.Copies = blk.Parents, blk.Children, 0
	lk.Ptr, lk.Child = blk.Ptr, blk.Child
	lk.Changed()
	return lk
}

// attention returns layer l's attention graph over blk: each parent
// attends over its sampled in-neighbours and itself, the softmax running
// over those only. A pass without gradients (grad false) builds no
// transpose.
func (bi *blockInput) attention(l int, blk sample.Block, grad bool) *nn.GATGraph[float32] {
	gg := &bi.op(l).gg
	gg.ResetBlock(blk.Parents, blk.Children, blk.Ptr, blk.Child, grad)
	return gg
}

// neighbourMean returns layer l's neighbour-mean operator over blk (rows
// the parents, columns the children): each parent's sampled in-neighbours
// other than itself, each weighted 1/(their number), the mean of
// nn.NeighborMeanInto over the sample (its expected value is the whole
// mean, and with every neighbour it is the whole mean; a parent with no
// other neighbour has an empty row). A self-loop arc of the graph is
// merged with the node's own link by the sampler, so the block's mean
// leaves it out where the whole graph's counts it. A pass without
// gradients (grad false) builds no transpose.
func (bi *blockInput) neighbourMean(l int, blk sample.Block, grad bool) *tensor.Adjacency[float32] {
	o := bi.op(l)
	a := &o.mean
	a.Rows, a.Cols = blk.Parents, blk.Children
	a.Indptr = append(a.Indptr[:0], 0)
	a.Indices, a.Data = a.Indices[:0], a.Data[:0]
	for j := range blk.Parents {
		lo, hi := blk.Ptr[j], blk.Ptr[j+1]
		w := float32(1 / float64(hi-lo-1))
		for _, u := range blk.Child[lo:hi] {
			if int(u) != j {
				a.Indices = append(a.Indices, u)
				a.Data = append(a.Data, w)
			}
		}
		a.Indptr = append(a.Indptr, int32(len(a.Indices)))
	}
	if grad {
		o.meanAdj.Reset(a)
	} else {
		o.meanAdj.ResetForward(a)
	}
	return &o.meanAdj
}

func grow32f(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}
