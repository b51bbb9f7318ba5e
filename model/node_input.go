package model

import (
	"fmt"

	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/tensor"
)

// nodeInput holds what a node model derives from the graph and features it
// is given: the sparse features (row-normalised when asked) with their
// transposes, the propagation operator and, for capsule models, the routing
// links. They are rebuilt only when the graph or the features change, so
// the training loop's repeated passes over one graph allocate nothing.
type nodeInput struct {
	normalize bool // divide each node's features by their sum
	links     bool // build capsule.NodeLinks too
	operator  func(a *tensor.CSR[float32], g *data.Graph, deg *[]float64)

	g   *data.Graph
	src data.Features
	gen int // counts the rebuilds, for structures derived from these
	a   tensor.CSR[float32]
	adj tensor.Adjacency[float32]
	x   nn.SparseInput[float32]
	deg []float64
	lk  capsule.Links

	// lkRows are lk with the links of the parents outside a set of rows
	// removed (their segments left empty): the last routing layer of a
	// pass that reads only those rows (rowLinks). rowsOf, rowsLen and
	// rowsGen say which rows and which build of lk they were made for,
	// rowsLk is lkRows, or lk when the rows cover every node.
	lkRows  capsule.Links
	rowsLk  *capsule.Links
	rowsOf  *int32
	rowsLen int
	rowsGen int
}

// rowLinks returns the routing links of a pass that reads only the nodes
// rows (prepare has run): lk when the rows cover every node, else lkRows,
// rebuilt when rows or the graph changed. Every parent keeps its place, so
// the per-parent blocks of the routing's reductions hold the same parents
// as with lk: a parent outside rows only has no links, where with lk it
// would add exact zeros (its upstream gradient is zero).
func (in *nodeInput) rowLinks(rows []int32) *capsule.Links {
	l := &in.lk
	if len(rows) == 0 {
		return l
	}
	if in.rowsLk != nil && in.rowsOf == &rows[0] && in.rowsLen == len(rows) && in.rowsGen == in.gen {
		return in.rowsLk
	}
	n := l.Parents
	mask := make([]bool, n) // once per set of rows
	kept := 0
	for _, v := range rows {
		if v < 0 || int(v) >= n {
			panic(fmt.Sprintf("model: row %d outside the graph's %d nodes", v, n))
		}
		if !mask[v] {
			mask[v] = true
			kept++
		}
	}
	r := &in.lkRows
	r.Parents, r.Children, r.Copies = n, l.Children, l.Copies
	r.Ptr = append(r.Ptr[:0], 0)
	r.Child = r.Child[:0]
	for j := 0; j < n; j++ {
		if mask[j] {
			r.Child = append(r.Child, l.Child[l.Ptr[j]:l.Ptr[j+1]]...)
		}
		r.Ptr = append(r.Ptr, int32(len(r.Child)))
	}
	r.Changed()
	in.rowsOf, in.rowsLen, in.rowsGen, in.rowsLk = &rows[0], len(rows), in.gen, r
	if kept == n {
		in.rowsLk = l // every node: lk itself, no second index
	}
	return in.rowsLk
}

// prepare points in at g and x. A mismatch between the features and the
// model or the graph is a programming error, reported by a panic as for
// any mis-shaped tensor.
func (in *nodeInput) prepare(model string, shape Shape, g *data.Graph, x data.Features) {
	if in.g == g && in.src == x {
		return
	}
	if x.Cols() != shape.Features || x.Rows() != g.N {
		panic(fmt.Sprintf("model: %s: features are %d × %d for a graph of %d nodes; the model takes %d features",
			model, x.Rows(), x.Cols(), g.N, shape.Features))
	}
	feats := x
	if in.normalize {
		feats = data.RowNormalize(feats)
	}
	if feats.Sparse != nil {
		in.x.Reset(feats.Sparse)
	} else {
		in.x.Reset(tensor.CSRFromDense(feats.Dense))
	}
	in.operator(&in.a, g, &in.deg)
	in.adj.Reset(&in.a)
	if in.links {
		capsule.NodeLinksInto(&in.lk, g.N, g.Ptr, g.Src)
	}
	in.g, in.src = g, x
	in.gen++
}
