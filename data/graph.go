package data

import (
	"fmt"
	"slices"

	"github.com/prcaps/prcaps/tensor"
)

// Graph is the structure of a directed graph on nodes 0..N-1, stored as CSR
// by target: the sources of the arcs u→v are Src[Ptr[v]:Ptr[v+1]], sorted
// ascending and unique. An undirected graph stores both arcs of each edge.
type Graph struct {
	N   int
	Ptr []int32 // len N+1
	Src []int32 // len NumArcs()
}

// EdgeOptions say how NewGraph treats the raw arc list.
type EdgeOptions struct {
	Symmetrize      bool // add v→u for every u→v
	RemoveSelfLoops bool // drop u→u
}

// NewGraph builds a Graph on n nodes from arcs src[i]→dst[i]. Duplicate arcs
// are always merged. It returns an error if the slices differ in length or an
// endpoint is outside [0, n).
func NewGraph(n int, src, dst []int32, opt EdgeOptions) (*Graph, error) {
	if n < 0 {
		return nil, fmt.Errorf("negative node count %d", n)
	}
	if len(src) != len(dst) {
		return nil, fmt.Errorf("%d sources but %d targets", len(src), len(dst))
	}
	for i := range src {
		if src[i] < 0 || int(src[i]) >= n || dst[i] < 0 || int(dst[i]) >= n {
			return nil, fmt.Errorf("edge %d (%d→%d) has an endpoint outside [0, %d)", i, src[i], dst[i], n)
		}
	}
	keep := func(i int) bool { return !opt.RemoveSelfLoops || src[i] != dst[i] }
	both := func(i int) bool { return opt.Symmetrize && src[i] != dst[i] }
	// Counting sort by target (linear in arcs), then sort and deduplicate
	// each target's sources: far cheaper than sorting all arcs at once.
	ptr := make([]int32, n+1)
	for i := range src {
		if keep(i) {
			ptr[dst[i]+1]++
			if both(i) {
				ptr[src[i]+1]++
			}
		}
	}
	for v := 0; v < n; v++ {
		ptr[v+1] += ptr[v]
	}
	out := make([]int32, ptr[n])
	fill := slices.Clone(ptr[:n])
	for i := range src {
		if keep(i) {
			out[fill[dst[i]]] = src[i]
			fill[dst[i]]++
			if both(i) {
				out[fill[src[i]]] = dst[i]
				fill[src[i]]++
			}
		}
	}
	g := &Graph{N: n, Ptr: make([]int32, n+1)}
	w := int32(0)
	for v := 0; v < n; v++ {
		row := out[ptr[v]:ptr[v+1]]
		slices.Sort(row)
		row = slices.Compact(row)
		copy(out[w:], row)
		w += int32(len(row))
		g.Ptr[v+1] = w
	}
	g.Src = slices.Clip(out[:w])
	return g, nil
}

// NumArcs is the number of stored (directed) arcs.
func (g *Graph) NumArcs() int { return len(g.Src) }

// InNeighbors returns the sources of the arcs into v (aliases g's storage).
func (g *Graph) InNeighbors(v int) []int32 { return g.Src[g.Ptr[v]:g.Ptr[v+1]] }

// InDegree returns the number of arcs into v.
func (g *Graph) InDegree(v int) int { return int(g.Ptr[v+1] - g.Ptr[v]) }

// HasArc reports whether the arc u→v is stored.
func (g *Graph) HasArc(u, v int) bool {
	_, ok := slices.BinarySearch(g.InNeighbors(v), int32(u))
	return ok
}

// SelfLoops counts arcs v→v.
func (g *Graph) SelfLoops() int {
	n := 0
	for v := 0; v < g.N; v++ {
		if g.HasArc(v, v) {
			n++
		}
	}
	return n
}

// UndirectedEdges counts the unordered pairs {u, v}, u ≠ v, joined by an arc in
// either direction. For a symmetric graph without self-loops it is NumArcs()/2.
func (g *Graph) UndirectedEdges() int {
	n := 0
	for v := 0; v < g.N; v++ {
		for _, u := range g.InNeighbors(v) {
			switch {
			case int(u) < v:
				n++
			case int(u) > v && !g.HasArc(v, int(u)):
				n++ // u→v with no v→u: counted once, here
			}
		}
	}
	return n
}

// IsSymmetric reports whether every arc u→v has its reverse v→u.
func (g *Graph) IsSymmetric() bool {
	for v := 0; v < g.N; v++ {
		for _, u := range g.InNeighbors(v) {
			if !g.HasArc(v, int(u)) {
				return false
			}
		}
	}
	return true
}

// Features are node features, one row per node: sparse when the source
// format is sparse (Planetoid, npz, one-hot TU labels), dense otherwise.
// Exactly one of Sparse and Dense is non-nil in a loaded dataset.
type Features struct {
	Sparse *tensor.CSR[float32]
	Dense  *tensor.Dense[float32]
}

// Rows is the number of nodes the features describe.
func (f Features) Rows() int {
	switch {
	case f.Sparse != nil:
		return f.Sparse.Rows
	case f.Dense != nil:
		return f.Dense.Rows
	}
	return 0
}

// Cols is the feature dimension.
func (f Features) Cols() int {
	switch {
	case f.Sparse != nil:
		return f.Sparse.Cols
	case f.Dense != nil:
		return f.Dense.Cols
	}
	return 0
}

// NodeDataset is a single graph whose nodes are to be classified.
type NodeDataset struct {
	Name       string
	Graph      *Graph
	X          Features
	Y          []int32 // label of each node in [0, NumClasses); -1 marks a node without a label
	NumClasses int
	Public     *Split // the publisher's split (Planetoid), nil if there is none
}

// Split holds disjoint index sets into the nodes (node tasks) or graphs (graph tasks).
type Split struct {
	Train, Val, Test []int32
}

// GraphSample is one graph of a graph-classification dataset, with node ids
// local to the graph.
type GraphSample struct {
	Graph *Graph
	X     Features
	Label int32 // in [0, NumClasses)
}

// GraphDataset is a collection of graphs to be classified.
type GraphDataset struct {
	Name        string
	Graphs      []GraphSample
	NumClasses  int
	NumFeatures int
	ClassNames  []string // the original label of class c, as written in the source (e.g. "-1")
	// Encoding says how the node features were built (LoadTU records it).
	Encoding NodeEncoding
}
