package data

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/prcaps/prcaps/tensor"
)

// SBMConfig configures GenerateSBM: a stochastic block model graph with a
// planted node-classification task, for measuring how training scales
// with the graph (prcaps bench --scale). Zero fields take the defaults
// given with them.
type SBMConfig struct {
	Edges     int     // undirected edges drawn (duplicates and self-loops are dropped, so slightly fewer remain); required
	Nodes     int     // nodes (default Edges/10: mean degree about 20)
	Classes   int     // classes, the blocks of the model (default 5)
	Homophily float64 // probability that an edge joins two nodes of one class, in [0, 1] (default 0.8)
	Features  int     // feature dimension (default 500)
	NNZ       int     // nonzero (binary) features per node (default 10)
	Signal    float64 // probability that a node's feature is drawn from its class's block of columns, in [0, 1] (default 0.5)
	Seed      uint64
}

func (c SBMConfig) withDefaults() SBMConfig {
	if c.Nodes == 0 {
		c.Nodes = max(c.Edges/10, 2)
	}
	if c.Classes == 0 {
		c.Classes = 5
	}
	if c.Homophily == 0 {
		c.Homophily = 0.8
	}
	if c.Features == 0 {
		c.Features = 500
	}
	if c.NNZ == 0 {
		c.NNZ = 10
	}
	if c.Signal == 0 {
		c.Signal = 0.5
	}
	return c
}

// maxSBMNodes bounds the node count so that arc indices fit int32 with
// room for both directions of every edge.
const maxSBMNodes = 1 << 30

// Validate reports an invalid field.
func (c SBMConfig) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Edges < 1 || c.Edges > 1<<29:
		return fmt.Errorf("sbm: edges %d must be in [1, %d]", c.Edges, 1<<29)
	case c.Nodes < 2 || c.Nodes > maxSBMNodes:
		return fmt.Errorf("sbm: nodes %d must be in [2, %d]", c.Nodes, maxSBMNodes)
	case c.Classes < 2 || c.Classes > c.Nodes:
		return fmt.Errorf("sbm: classes %d must be in [2, nodes %d]", c.Classes, c.Nodes)
	case !(c.Homophily >= 0 && c.Homophily <= 1):
		return fmt.Errorf("sbm: homophily %v must be in [0, 1]", c.Homophily)
	case c.Features < c.Classes || c.Features > 1<<24:
		return fmt.Errorf("sbm: features %d must be in [classes %d, %d]", c.Features, c.Classes, 1<<24)
	case c.NNZ < 1 || c.NNZ > c.Features/c.Classes:
		return fmt.Errorf("sbm: %d features per node must be in [1, %d] (a class's block of columns)", c.NNZ, c.Features/c.Classes)
	case !(c.Signal >= 0 && c.Signal <= 1):
		return fmt.Errorf("sbm: signal %v must be in [0, 1]", c.Signal)
	}
	return nil
}

// GenerateSBM draws a node-classification dataset from c. Node v belongs to
// class v mod Classes. Each edge picks a uniform node u and, with
// probability Homophily, a uniform partner of u's class, otherwise a
// uniform node; the graph is undirected. Each node has NNZ distinct binary
// features, each drawn with probability Signal from its class's block of
// Features/Classes columns and otherwise from all columns, so that
// features alone and neighbourhoods alone both carry the label. The same
// configuration gives the same dataset.
func GenerateSBM(c SBMConfig) (*Dataset, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	rng := rand.New(rand.NewPCG(c.Seed, 0x5b3))
	n, k := c.Nodes, c.Classes
	// Nodes of class y are y, y+k, y+2k, ...: count(y) of them.
	count := func(y int) int { return (n - y + k - 1) / k }
	src, dst := make([]int32, c.Edges), make([]int32, c.Edges)
	for e := range src {
		u := rng.IntN(n)
		v := rng.IntN(n)
		if rng.Float64() < c.Homophily {
			y := u % k
			v = y + k*rng.IntN(count(y))
		}
		src[e], dst[e] = int32(u), int32(v)
	}
	g, err := NewGraph(n, src, dst, EdgeOptions{Symmetrize: true, RemoveSelfLoops: true})
	if err != nil {
		return nil, err
	}
	src, dst = nil, nil

	block := c.Features / k
	x := &tensor.CSR[float32]{Rows: n, Cols: c.Features, Indptr: make([]int32, n+1),
		Indices: make([]int32, 0, n*c.NNZ), Data: make([]float32, 0, n*c.NNZ)}
	y := make([]int32, n)
	row := make([]int32, 0, c.NNZ)
	for v := range n {
		y[v] = int32(v % k)
		row = row[:0]
		for len(row) < c.NNZ {
			f := int32(rng.IntN(c.Features))
			if rng.Float64() < c.Signal {
				f = int32(int(y[v])*block + rng.IntN(block))
			}
			if !slices.Contains(row, f) {
				row = append(row, f)
			}
		}
		slices.Sort(row)
		x.Indices = append(x.Indices, row...)
		for range row {
			x.Data = append(x.Data, 1)
		}
		x.Indptr[v+1] = int32(len(x.Indices))
	}
	name := fmt.Sprintf("SBM-%d", c.Edges)
	nd := &NodeDataset{Name: name, Graph: g, X: Features{Sparse: x}, Y: y, NumClasses: k}
	return &Dataset{Name: name, Task: NodeTask, Node: nd, From: "generated:"}, nil
}
