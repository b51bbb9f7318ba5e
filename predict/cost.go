package predict

import (
	"math"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
)

// The memory estimates below let a server admit a request by its declared
// sizes before it builds anything from them: the inputs and the answer it
// builds, and the forward pass by the model's own estimate.

// Bytes of a stored float32, of an int32 index, and of one answered node or
// graph beyond its probabilities (the Prediction, its label and its JSON).
const (
	f32Bytes        = 4
	idxBytes        = 4
	predictionBytes = 160
)

// GraphsBytes estimates the memory that classifying graphs of the given
// node and edge counts takes (Graphs): each graph's structure and
// features, and the forward pass over the largest batch Samples makes of
// them. The counts must be non-negative; the sums saturate rather than
// wrap.
func (p *Predictor) GraphsBytes(nodes, edges []int) int64 {
	width := int64(p.ck.Shape.Features)
	var total int64
	var idx []int32
	var forward int64 // the costliest batch's pass
	for lo := 0; lo < len(nodes); {
		idx = batchAt(idx[:0], lo, len(nodes), func(i int) int { return nodes[i] })
		bn, ba := 0, 0
		for _, i := range idx {
			bn = satAddInt(bn, nodes[i])
			ba = satAddInt(ba, satMulInt(2, edges[i])) // both arcs of each edge
		}
		forward = max(forward, p.forwardBytes(model.Size{Graphs: len(idx), Nodes: bn, Arcs: ba}))
		lo += len(idx)
	}
	for i := range nodes {
		n, arcs := int64(nodes[i]), 2*int64(edges[i])
		// The request's edges as int32 pairs, the graph's CSR both ways,
		// and the node features (dense at worst) with their batch copy.
		g := satAdd(satMul(4*idxBytes, arcs), satMul(2*idxBytes, n+1))
		x := satMul(2*f32Bytes*width+idxBytes, n)
		total = satAdd(total, satAdd(g, x))
	}
	total = satAdd(total, forward)
	return satAdd(total, p.answerBytes(int64(len(nodes))))
}

// NodesBytes estimates the memory that classifying `classified` nodes of a
// graph of the given nodes and edges takes (Nodes): the graph, its dense
// features and the forward pass over all its nodes.
func (p *Predictor) NodesBytes(nodes, edges, classified int) int64 {
	n, arcs := int64(nodes), satMul(2, int64(edges))
	g := satAdd(satMul(4*idxBytes, arcs), satMul(2*idxBytes, n+1))
	x := satMul(f32Bytes*int64(p.ck.Shape.Features), n)
	total := satAdd(satAdd(g, x), p.forwardBytes(model.Size{Nodes: nodes, Arcs: int(min(arcs, math.MaxInt))}))
	return satAdd(total, p.answerBytes(int64(classified)))
}

// forwardBytes is what one forward pass over size takes: half the model's
// estimate (model.EstimateBytes), which counts a training step (every
// activation's value and gradient, the parameters' gradients and moments)
// and an evaluation pass, where an evaluation without gradients keeps the
// values alone. TestGraphsBytesCovers and TestNodesBytesCovers measure
// the heap's peak against it.
func (p *Predictor) forwardBytes(size model.Size) int64 {
	b, err := model.EstimateBytes(p.ck.Config, p.ck.Shape, size)
	if err != nil { // a registered model always has an estimate
		return math.MaxInt64
	}
	return b / 2
}

// answerBytes is the memory of k predictions.
func (p *Predictor) answerBytes(k int64) int64 {
	return satMul(predictionBytes+24*int64(p.ck.Shape.Classes), k)
}

// satAdd and satMul are a+b and a·b for non-negative a and b, saturating at
// math.MaxInt64 (a negative operand also saturates: a size that is not
// one costs everything).
func satAdd(a, b int64) int64 {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a < 0 || b < 0 || (a != 0 && b > math.MaxInt64/a) {
		return math.MaxInt64
	}
	return a * b
}

func satAddInt(a, b int) int { return int(satAdd(int64(a), int64(b))) }
func satMulInt(a, b int) int { return int(satMul(int64(a), int64(b))) }

// DatasetBytes estimates the memory that Dataset takes on ds (the given
// nodes of a node dataset, all when nil): the dataset is already loaded,
// so this is the forward passes and the answers.
func (p *Predictor) DatasetBytes(ds *data.Dataset, nodes []int32) int64 {
	if ds.Task == data.GraphTask {
		n, e := make([]int, len(ds.Graph.Graphs)), make([]int, len(ds.Graph.Graphs))
		for i, s := range ds.Graph.Graphs {
			n[i], e[i] = s.Graph.N, s.Graph.NumArcs()/2
		}
		return p.GraphsBytes(n, e)
	}
	g := ds.Node.Graph
	k := len(nodes)
	if nodes == nil {
		k = g.N
	}
	return p.NodesBytes(g.N, g.NumArcs()/2, k)
}
