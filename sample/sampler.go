package sample

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/prcaps/prcaps/data"
)

// Sampler draws neighbour samples from one graph. It holds the scratch of
// one sample at a time (a node → local id hash map sized to the largest
// sample drawn, not to the graph), so a goroutine that samples needs a
// Sampler of its own.
type Sampler struct {
	g       *data.Graph
	fanouts Fanouts
	local   nodeMap // graph node → local id of the batch being drawn
	picked  []int32 // the neighbour positions drawn for one node
	perm    []int32 // partial Fisher–Yates scratch for large fan-outs
	// loops says that some node of g has a self-loop arc: only then does
	// a node's row need a search for itself.
	loops bool
}

// NewSampler returns a sampler over g (CSR by target: a node's sampled
// neighbours are its in-neighbours) with the given per-hop fan-outs.
func NewSampler(g *data.Graph, fanouts Fanouts) (*Sampler, error) {
	if g == nil {
		return nil, fmt.Errorf("sample: no graph")
	}
	if err := fanouts.Validate(); err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	loops := false
	for v := 0; v < g.N && !loops; v++ {
		_, loops = slices.BinarySearch(g.Src[g.Ptr[v]:g.Ptr[v+1]], int32(v))
	}
	return &Sampler{g: g, fanouts: slices.Clone(fanouts), loops: loops}, nil
}

// Fanouts returns the sampler's fan-outs (not to be modified).
func (s *Sampler) Fanouts() Fanouts { return s.fanouts }

// floydMax is the largest fan-out drawn by Floyd's algorithm with a linear
// membership test; larger ones shuffle a copy of the positions partially.
const floydMax = 64

// Sample draws the neighbourhood of seeds into b, reusing its storage,
// with every random draw from rng. The seeds must be distinct nodes of the
// graph.
func (s *Sampler) Sample(b *Batch, seeds []int32, rng *rand.Rand) error {
	g := s.g
	L := len(s.fanouts)
	b.Nodes = b.Nodes[:0]
	s.local.reset()
	for _, v := range seeds {
		if v < 0 || int(v) >= g.N {
			return fmt.Errorf("sample: seed %d outside the graph's %d nodes", v, g.N)
		}
		if s.local.get(v) >= 0 {
			return fmt.Errorf("sample: seed %d appears twice", v)
		}
		s.local.put(v, int32(len(b.Nodes)))
		b.Nodes = append(b.Nodes, v)
	}
	b.Hops = append(b.Hops[:0], len(seeds))
	b.Ptr = append(b.Ptr[:0], 0)
	b.Child = b.Child[:0]
	lo := 0
	for k := 0; k < L; k++ {
		hi := len(b.Nodes)
		for j := lo; j < hi; j++ {
			v := b.Nodes[j]
			nb := g.Src[g.Ptr[v]:g.Ptr[v+1]]
			self, hasSelf := 0, false
			if s.loops {
				self, hasSelf = slices.BinarySearch(nb, v)
			}
			m := len(nb)
			if hasSelf {
				m--
			}
			start := len(b.Child)
			s.draw(m, s.fanouts[k], rng)
			for _, p := range s.picked {
				if hasSelf && int(p) >= self {
					p++ // skip v itself
				}
				u := nb[p]
				id := s.local.get(u)
				if id < 0 {
					id = int32(len(b.Nodes))
					s.local.put(u, id)
					b.Nodes = append(b.Nodes, u)
				}
				b.Child = append(b.Child, id)
			}
			b.Child = append(b.Child, int32(j))
			slices.Sort(b.Child[start:])
			b.Ptr = append(b.Ptr, int32(len(b.Child)))
		}
		b.Hops = append(b.Hops, len(b.Nodes))
		lo = hi
	}
	b.Deg = b.Deg[:0]
	for _, v := range b.Nodes {
		d := g.Ptr[v+1] - g.Ptr[v] + 1
		if s.loops {
			if _, ok := slices.BinarySearch(g.Src[g.Ptr[v]:g.Ptr[v+1]], v); ok {
				d--
			}
		}
		b.Deg = append(b.Deg, d)
	}
	return nil
}

// draw sets s.picked to f distinct positions in [0, m), in increasing
// order (all of them when f is −1 or at least m).
func (s *Sampler) draw(m, f int, rng *rand.Rand) {
	s.picked = s.picked[:0]
	switch {
	case f < 0 || f >= m:
		for p := range m {
			s.picked = append(s.picked, int32(p))
		}
		return
	case f <= floydMax:
		// Floyd's algorithm: f draws, each set member equally likely.
		for j := m - f; j < m; j++ {
			t := int32(rng.IntN(j + 1))
			if slices.Contains(s.picked, t) {
				t = int32(j)
			}
			s.picked = append(s.picked, t)
		}
	default:
		if cap(s.perm) < m {
			s.perm = make([]int32, m)
		}
		perm := s.perm[:m]
		for p := range perm {
			perm[p] = int32(p)
		}
		for i := 0; i < f; i++ {
			r := i + rng.IntN(m-i)
			perm[i], perm[r] = perm[r], perm[i]
		}
		s.picked = append(s.picked, perm[:f]...)
	}
	slices.Sort(s.picked)
}
