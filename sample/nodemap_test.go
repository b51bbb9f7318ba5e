package sample

import (
	"math/rand/v2"
	"testing"
)

// The hash map agrees with Go's map through growth and resets.
func TestNodeMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var m nodeMap
	for round, n := range []int{0, 1, 700, 5000, 3, 20000} {
		m.reset()
		want := map[int32]int32{}
		for len(want) < n {
			v := int32(rng.IntN(1 << 30))
			if round == 3 {
				v = int32(len(want)) * 1024 // keys sharing low bits
			}
			if _, ok := want[v]; ok {
				if m.get(v) != want[v] {
					t.Fatalf("round %d: %d maps to %d, want %d", round, v, m.get(v), want[v])
				}
				continue
			}
			if m.get(v) != -1 {
				t.Fatalf("round %d: %d found before it was put", round, v)
			}
			want[v] = int32(len(want))
			m.put(v, want[v])
		}
		if m.n != n || 2*m.n > len(m.keys) {
			t.Fatalf("round %d: %d entries in %d slots, want %d at most half full", round, m.n, len(m.keys), n)
		}
		for v, id := range want {
			if got := m.get(v); got != id {
				t.Fatalf("round %d: %d maps to %d, want %d", round, v, got, id)
			}
		}
		for range 100 {
			v := int32(rng.IntN(1 << 30))
			if _, ok := want[v]; !ok && m.get(v) != -1 {
				t.Fatalf("round %d: absent %d found", round, v)
			}
		}
	}
}

// samplerScratch is the storage a Sampler and the batch it fills keep
// between batches.
func samplerScratch(s *Sampler, b *Batch) int {
	return s.local.bytes() + 4*(cap(s.picked)+cap(s.perm)) +
		8*cap(b.Hops) + 4*(cap(b.Nodes)+cap(b.Ptr)+cap(b.Child)+cap(b.Deg))
}

// A sampler's memory and allocations per batch follow the batch's
// neighbourhood, not the graph: at the same fan-outs, batch size and mean
// degree, a graph 16 times larger needs no more scratch (to within the
// neighbourhoods' spread) and a warm batch allocates nothing. A node map
// of the graph's size would make the larger graph's scratch 16 times the
// smaller's.
func TestSamplerMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a graph of 320,000 nodes")
	}
	var scratch [2]int
	for k, n := range []int{20_000, 320_000} {
		g := randomGraph(t, n, 5*n, 7)
		s, err := NewSampler(g, Fanouts{5, 3})
		if err != nil {
			t.Fatal(err)
		}
		var b Batch
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 8 { // warm: the table and the batch reach their size
			if err := s.Sample(&b, seedsOf(g.N, 128, uint64(i)), rng); err != nil {
				t.Fatal(err)
			}
		}
		seeds := seedsOf(g.N, 128, 99)
		if a := testing.AllocsPerRun(5, func() {
			if err := s.Sample(&b, seeds, rng); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%d nodes: %v allocations per warm batch, want 0", n, a)
		}
		scratch[k] = samplerScratch(s, &b)
	}
	if scratch[1] >= 4*320_000 {
		t.Errorf("%d bytes of scratch at 320,000 nodes: as much as an int32 per node", scratch[1])
	}
	if scratch[1] > scratch[0]*3/2 {
		t.Errorf("scratch grows with the graph: %d bytes at 20,000 nodes, %d at 320,000", scratch[0], scratch[1])
	}
}
