package data

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/tensor"
)

// GraphBatch is a mini-batch of graphs of a GraphDataset as one
// block-diagonal graph (DESIGN §5 "Graph classification network": mini-batches
// of graphs as a block-diagonal union). Graph g of the batch holds the nodes
// Seg[g] … Seg[g+1]−1, numbered in its own local order shifted by Seg[g];
// arcs never cross graphs. Build fills the buffers in place, so a batch
// reused across steps allocates nothing once its buffers are large enough.
type GraphBatch struct {
	// Graphs are the dataset indices of the batch's graphs, in batch order.
	Graphs []int32
	// N is the number of nodes of the batch.
	N int
	// Seg (len G+1) are the node segments of the graphs.
	Seg []int32
	// NodeGraph (len N) is the batch graph of every node.
	NodeGraph []int32
	// Ptr (len N+1) and Src are the union graph, CSR by target (sorted
	// in-neighbours, as in Graph).
	Ptr, Src []int32
	// X (N × NumFeatures) are the concatenated node features.
	X tensor.CSR[float32]
	// Y are the graph labels, in batch order.
	Y []int32
	// Gen counts the Builds of the batch: a consumer that caches structures
	// derived from the batch rebuilds them when Gen changes.
	Gen uint64
}

// G is the number of graphs of the batch.
func (b *GraphBatch) G() int { return len(b.Graphs) }

// Build fills b with the graphs idx of ds (in that order), reusing b's
// buffers. Dense node features (TU attributes) are stored as CSR with their
// non-zero entries.
func (b *GraphBatch) Build(ds *GraphDataset, idx []int32) error {
	b.Graphs = append(b.Graphs[:0], idx...)
	b.Seg = append(b.Seg[:0], 0)
	b.Y = b.Y[:0]
	n, arcs, nnz := 0, 0, 0
	for _, gi := range idx {
		if gi < 0 || int(gi) >= len(ds.Graphs) {
			return fmt.Errorf("data: batch: graph %d outside [0, %d)", gi, len(ds.Graphs))
		}
		s := &ds.Graphs[gi]
		if s.X.Rows() != s.Graph.N || s.X.Cols() != ds.NumFeatures {
			return fmt.Errorf("data: batch: graph %d has %d×%d features for %d nodes, %d features", gi, s.X.Rows(), s.X.Cols(), s.Graph.N, ds.NumFeatures)
		}
		n += s.Graph.N
		arcs += s.Graph.NumArcs()
		if s.X.Sparse != nil {
			nnz += s.X.Sparse.NNZ()
		} else {
			nnz += len(s.X.Dense.Data)
		}
		b.Seg = append(b.Seg, int32(n))
		b.Y = append(b.Y, s.Label)
	}
	b.N = n
	b.NodeGraph = b.NodeGraph[:0]
	b.Ptr = append(b.Ptr[:0], 0)
	b.Src = b.Src[:0]
	x := &b.X
	x.Rows, x.Cols = n, ds.NumFeatures
	x.Indptr = append(x.Indptr[:0], 0)
	x.Indices, x.Data = x.Indices[:0], x.Data[:0]
	if cap(b.Src) < arcs {
		b.Src = make([]int32, 0, arcs)
	}
	if cap(x.Indices) < nnz {
		x.Indices, x.Data = make([]int32, 0, nnz), make([]float32, 0, nnz)
	}
	for g, gi := range idx {
		s := &ds.Graphs[gi]
		off := b.Seg[g]
		gr := s.Graph
		for v := 0; v < gr.N; v++ {
			b.NodeGraph = append(b.NodeGraph, int32(g))
			for _, u := range gr.Src[gr.Ptr[v]:gr.Ptr[v+1]] {
				b.Src = append(b.Src, u+off)
			}
			b.Ptr = append(b.Ptr, int32(len(b.Src)))
			if sp := s.X.Sparse; sp != nil {
				x.Indices = append(x.Indices, sp.Indices[sp.Indptr[v]:sp.Indptr[v+1]]...)
				x.Data = append(x.Data, sp.Data[sp.Indptr[v]:sp.Indptr[v+1]]...)
			} else {
				row := s.X.Dense.Data[v*s.X.Dense.Cols : (v+1)*s.X.Dense.Cols]
				for c, val := range row {
					if val != 0 {
						x.Indices = append(x.Indices, int32(c))
						x.Data = append(x.Data, val)
					}
				}
			}
			x.Indptr = append(x.Indptr, int32(len(x.Indices)))
		}
	}
	b.Gen++
	return nil
}

// ShuffleInto writes into dst (reused) a permutation of items drawn from
// rng (per-epoch shuffling of the training graphs) and returns it.
func ShuffleInto(dst, items []int32, rng *rand.Rand) []int32 {
	dst = append(dst[:0], items...)
	rng.Shuffle(len(dst), func(i, j int) { dst[i], dst[j] = dst[j], dst[i] })
	return dst
}
