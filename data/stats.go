package data

import "fmt"

// Stats summarises a dataset as `prcaps datasets` prints it. Node-task
// fields are zero for graph tasks and vice versa.
type Stats struct {
	Dataset string `json:"dataset"`
	Task    string `json:"task"`
	From    string `json:"from"`
	Classes int    `json:"classes"`
	// Node tasks.
	Nodes           int `json:"nodes,omitempty"`
	UndirectedEdges int `json:"undirected_edges,omitempty"`
	Features        int `json:"features"`
	FeatureNNZ      int `json:"feature_nnz,omitempty"`
	Labeled         int `json:"labeled,omitempty"`
	// Graph tasks.
	Graphs      int            `json:"graphs,omitempty"`
	TotalNodes  int            `json:"total_nodes,omitempty"`
	TotalEdges  int            `json:"total_undirected_edges,omitempty"`
	ClassCounts map[string]int `json:"class_counts,omitempty"`
}

// Stats computes the summary of d.
func (d *Dataset) Stats() Stats {
	s := Stats{Dataset: d.Name, Task: d.Task.String(), From: d.From}
	if n := d.Node; n != nil {
		s.Nodes = n.Graph.N
		s.UndirectedEdges = n.Graph.UndirectedEdges()
		s.Features = n.X.Cols()
		if n.X.Sparse != nil {
			s.FeatureNNZ = n.X.Sparse.NNZ()
		}
		s.Classes = n.NumClasses
		for _, y := range n.Y {
			if y >= 0 {
				s.Labeled++
			}
		}
	}
	if g := d.Graph; g != nil {
		s.Graphs = len(g.Graphs)
		s.Features = g.NumFeatures
		s.Classes = g.NumClasses
		s.ClassCounts = map[string]int{}
		for _, gs := range g.Graphs {
			s.TotalNodes += gs.Graph.N
			s.TotalEdges += gs.Graph.UndirectedEdges()
			name := ""
			if int(gs.Label) < len(g.ClassNames) {
				name = g.ClassNames[gs.Label]
			}
			s.ClassCounts[name]++
		}
	}
	return s
}

// Warnings lists what is legal in a dataset but probably not meant: a
// graph without any edge (a graph model then sees isolated nodes only),
// or a graph dataset none of whose graphs has one. The CLI prints them.
func (ds *Dataset) Warnings() []string {
	var w []string
	switch {
	case ds.Node != nil && ds.Node.Graph.NumArcs() == 0:
		w = append(w, fmt.Sprintf("%s has no edges: every node is isolated, so the graph adds nothing to the features", ds.Name))
	case ds.Graph != nil:
		for _, s := range ds.Graph.Graphs {
			if s.Graph.NumArcs() > 0 {
				return nil
			}
		}
		w = append(w, fmt.Sprintf("none of the %d graphs of %s has an edge (is the _A.txt file empty?)", len(ds.Graph.Graphs), ds.Name))
	}
	return w
}
