package model

import (
	"fmt"
	"slices"
	"sync"

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
	// lkShared says that lk's Ptr and Child are a's Indptr and Indices
	// (the same self-looped structure), so that a rebuild must not write
	// into them through lk.
	lkShared bool

	// rows holds the routing links to the parents of a set of rows only,
	// for the last routing layer of a pass that reads only those rows
	// (rowLinks): two sets, the training nodes of a training step and the
	// nodes an evaluation pass scores, whose passes may run at once.
	rowsMu sync.Mutex
	rows   [2]rowSet
	uses   int // rowLinks calls, the clock of rowSet.used
}

// rowSet holds the routing links of one set of rows: links, whose parents
// are the rows' nodes in increasing order (each with its links in lk), and
// place, node v's parent in links or −1. It was made for the rows at of
// (len n) and the build gen of lk.
type rowSet struct {
	links capsule.Links
	place []int32
	all   bool // the rows cover every node: lk itself
	of    *int32
	n     int
	gen   int
	used  int // the clock at its last use: the least recent is rebuilt
}

// rowLinks returns the routing links of a pass that reads only the nodes
// rows (prepare has run), and place, each node's parent among them or −1:
// lk and nil when the rows cover every node, else the links of the rows'
// parents only, built once for each of the last two sets of rows asked
// for. A parent's links and their order are lk's, so the rows' capsules
// are those of the whole layer bit for bit (the per-parent computations
// do not depend on the other parents); the reductions over parents of the
// backward pass group them differently, so gradients agree up to rounding.
// Passes with two sets of rows may call it at once; a third set replaces
// the one used least recently, so it must not be asked for while that
// one's pass runs.
func (in *nodeInput) rowLinks(rows []int32) (*capsule.Links, []int32) {
	if len(rows) == 0 {
		return &in.lk, nil
	}
	in.rowsMu.Lock()
	defer in.rowsMu.Unlock()
	in.uses++
	r := &in.rows[0]
	for k := range in.rows {
		c := &in.rows[k]
		if c.of == &rows[0] && c.n == len(rows) && c.gen == in.gen {
			c.used = in.uses
			if c.all {
				return &in.lk, nil
			}
			return &c.links, c.place
		}
		if c.used < r.used {
			r = c
		}
	}
	r.used = in.uses
	l := &in.lk
	n := l.Parents
	r.place = grow32(r.place, n)
	for j := range r.place {
		r.place[j] = -1
	}
	for _, v := range rows {
		if v < 0 || int(v) >= n {
			panic(fmt.Sprintf("model: row %d outside the graph's %d nodes", v, n))
		}
		r.place[v] = 0
	}
	lr := &r.links
	lr.Children, lr.Copies = l.Children, l.Copies
	lr.Ptr = append(lr.Ptr[:0], 0)
	lr.Child = lr.Child[:0]
	for j := 0; j < n; j++ {
		if r.place[j] < 0 {
			continue
		}
		r.place[j] = int32(len(lr.Ptr) - 1)
		lr.Child = append(lr.Child, l.Child[l.Ptr[j]:l.Ptr[j+1]]...)
		lr.Ptr = append(lr.Ptr, int32(len(lr.Child)))
	}
	lr.Parents = len(lr.Ptr) - 1
	lr.Changed()
	r.of, r.n, r.gen, r.all = &rows[0], len(rows), in.gen, lr.Parents == n
	if r.all {
		return l, nil // every node: lk itself, no second index
	}
	return lr, r.place
}

func grow32(b []int32, n int) []int32 {
	if cap(b) < n {
		return tensor.Make[int32](n)
	}
	return b[:n]
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
	if in.lkShared { // lk's arrays are a's: let each rebuild into its own
		in.lk.Ptr, in.lk.Child, in.lkShared = nil, nil, false
	}
	in.operator(&in.a, g, &in.deg)
	in.adj.ResetFixed(&in.a) // fixed per graph: Â of an undirected graph is its own transpose
	if in.links {
		capsule.NodeLinksInto(&in.lk, g.N, g.Ptr, g.Src)
		// The links are the self-looped graph, which is the structure of
		// GCN's Â: one copy of the index arrays serves both.
		if slices.Equal(in.lk.Ptr, in.a.Indptr) && slices.Equal(in.lk.Child, in.a.Indices) {
			in.lk.Ptr, in.lk.Child, in.lkShared = in.a.Indptr, in.a.Indices, true
			in.lk.Changed()
		}
	}
	in.g, in.src = g, x
	in.gen++
}
