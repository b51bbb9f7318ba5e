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
