package predict

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/data"
)

// Graph is one graph to classify, as a caller (or a JSON request) gives
// it: its nodes 0 … Nodes−1, its edges (each undirected edge once, or both
// arcs; duplicates and self-loops are kept as in the TU files), and per
// node its raw labels (one per label column of the model's encoding) or
// nothing for degree-encoded models, and its attributes when the model
// reads them.
type Graph struct {
	Nodes      int         `json:"nodes"`
	Edges      []Edge      `json:"edges"`
	Labels     []int64     `json:"node_labels,omitempty"`     // Nodes × label columns, row-major
	Attributes [][]float32 `json:"node_attributes,omitempty"` // per node
}

// Encode builds the graph's structure and node features with the
// checkpoint's encoding. An edge outside the nodes, a label the model does
// not know or a wrong number of labels or attributes is an error.
func (p *Predictor) Encode(g Graph) (data.GraphSample, error) {
	enc := p.ck.Encoding
	if enc == nil {
		return data.GraphSample{}, fmt.Errorf("%s is not a graph-classification model", p.ck.Model)
	}
	if g.Nodes < 1 || g.Nodes > math.MaxInt32 {
		return data.GraphSample{}, fmt.Errorf("%d nodes: a graph has at least one, and at most %d", g.Nodes, math.MaxInt32)
	}
	src := make([]int32, 0, 2*len(g.Edges))
	dst := make([]int32, 0, 2*len(g.Edges))
	for i, e := range g.Edges {
		if e[0] < 0 || e[0] >= g.Nodes || e[1] < 0 || e[1] >= g.Nodes {
			return data.GraphSample{}, fmt.Errorf("edge %d (%d, %d) has an endpoint outside [0, %d)", i, e[0], e[1], g.Nodes)
		}
		src, dst = append(src, int32(e[0])), append(dst, int32(e[1]))
	}
	gr, err := data.NewGraph(g.Nodes, src, dst, data.EdgeOptions{Symmetrize: true})
	if err != nil {
		return data.GraphSample{}, err
	}
	var attrs []float32
	if enc.Attributes > 0 || len(g.Attributes) > 0 {
		if len(g.Attributes) != g.Nodes {
			return data.GraphSample{}, fmt.Errorf("%d attribute rows for %d nodes; the model reads %d attributes per node", len(g.Attributes), g.Nodes, enc.Attributes)
		}
		for v, row := range g.Attributes {
			if len(row) != enc.Attributes {
				return data.GraphSample{}, fmt.Errorf("node %d has %d attributes; the model reads %d", v, len(row), enc.Attributes)
			}
			attrs = append(attrs, row...)
		}
	}
	x, err := enc.Encode(gr, g.Labels, attrs)
	if err != nil {
		return data.GraphSample{}, err
	}
	return data.GraphSample{Graph: gr, X: x}, nil
}
