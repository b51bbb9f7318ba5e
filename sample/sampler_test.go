package sample

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/prcaps/prcaps/data"
)

// randomGraph is an undirected graph of n nodes and about m random edges,
// with a few self-loops and a few isolated nodes.
func randomGraph(t testing.TB, n, m int, seed uint64) *data.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var src, dst []int32
	for range m {
		u, v := rng.IntN(n-3), rng.IntN(n-3) // the last three nodes stay isolated
		src, dst = append(src, int32(u)), append(dst, int32(v))
	}
	g, err := data.NewGraph(n, src, dst, data.EdgeOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func seedsOf(n, k int, seed uint64) []int32 {
	p := rand.New(rand.NewPCG(seed, 7)).Perm(n)[:k]
	out := make([]int32, k)
	for i, v := range p {
		out[i] = int32(v)
	}
	return out
}

// checkBatch checks the structure of b against g, the seeds and the
// fan-outs: relabelling invertible, hops nested, every link an arc of g or
// a self-link, every parent holding itself, fan-outs respected, and −1
// taking every in-neighbour.
func checkBatch(t *testing.T, g *data.Graph, seeds []int32, f Fanouts, b *Batch) {
	t.Helper()
	L := len(f)
	if b.Layers() != L || !slices.Equal(b.Seeds(), seeds) {
		t.Fatalf("layers %d (want %d), seeds %v (want %v)", b.Layers(), L, b.Seeds(), seeds)
	}
	seen := map[int32]int{}
	for i, v := range b.Nodes {
		if _, dup := seen[v]; dup {
			t.Fatalf("node %d relabelled twice", v)
		}
		seen[v] = i
	}
	for k := 1; k <= L; k++ {
		if b.Hops[k] < b.Hops[k-1] {
			t.Fatalf("hops %v decrease", b.Hops)
		}
	}
	if len(b.Ptr) != b.Hops[L-1]+1 || len(b.Deg) != len(b.Nodes) {
		t.Fatalf("ptr has %d entries for %d expanded nodes; deg %d for %d nodes", len(b.Ptr), b.Hops[L-1], len(b.Deg), len(b.Nodes))
	}
	for j := 0; j < b.Hops[L-1]; j++ {
		hop := 0
		for b.Hops[hop] <= j {
			hop++
		}
		v := b.Nodes[j]
		kids := b.Child[b.Ptr[j]:b.Ptr[j+1]]
		if !slices.IsSorted(kids) || len(slices.Compact(slices.Clone(kids))) != len(kids) {
			t.Fatalf("node %d: children %v not sorted and unique", v, kids)
		}
		if !slices.Contains(kids, int32(j)) {
			t.Fatalf("node %d lacks its self-link", v)
		}
		others := 0
		for _, c := range kids {
			if c >= int32(b.Hops[hop+1]) {
				t.Fatalf("node %d at hop %d has child %d beyond hop %d (%d nodes)", v, hop, c, hop+1, b.Hops[hop+1])
			}
			if u := b.Nodes[c]; c != int32(j) {
				if !g.HasArc(int(u), int(v)) || u == v {
					t.Fatalf("link %d→%d is no arc of the graph", u, v)
				}
				others++
			}
		}
		m := int(b.Deg[j]) - 1
		if want := g.InDegree(int(v)); g.HasArc(int(v), int(v)) && m != want-1 || !g.HasArc(int(v), int(v)) && m != want {
			t.Fatalf("node %d: degree %d, graph in-degree %d", v, b.Deg[j], want)
		}
		switch fo := f[hop]; {
		case fo < 0 || fo >= m:
			if others != m {
				t.Fatalf("node %d, fan-out %d: %d of its %d neighbours", v, fo, others, m)
			}
		case others != fo:
			t.Fatalf("node %d, fan-out %d: %d neighbours", v, fo, others)
		}
	}
}

func TestSampleStructure(t *testing.T) {
	loopy := randomGraph(t, 500, 3000, 1)
	if loopy.SelfLoops() == 0 {
		t.Fatal("the test graph has no self-loop")
	}
	noLoops := loopFree(t, loopy)
	for _, g := range []*data.Graph{loopy, noLoops} {
		sampleStructure(t, g)
	}
}

// loopFree is g without its self-loop arcs.
func loopFree(t *testing.T, g *data.Graph) *data.Graph {
	var src, dst []int32
	for v := 0; v < g.N; v++ {
		for _, u := range g.InNeighbors(v) {
			src, dst = append(src, u), append(dst, int32(v))
		}
	}
	h, err := data.NewGraph(g.N, src, dst, data.EdgeOptions{RemoveSelfLoops: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func sampleStructure(t *testing.T, g *data.Graph) {
	for _, f := range []Fanouts{{-1}, {5}, {3, 2}, {-1, -1}, {10, 5, 2}, {100, 70}, {1}} {
		t.Run(f.String(), func(t *testing.T) {
			s, err := NewSampler(g, f)
			if err != nil {
				t.Fatal(err)
			}
			var b Batch
			for i, k := range []int{1, 7, 64, 500} {
				seeds := seedsOf(g.N, k, uint64(i))
				if err := s.Sample(&b, seeds, rand.New(rand.NewPCG(uint64(i), 0))); err != nil {
					t.Fatal(err)
				}
				checkBatch(t, g, seeds, f, &b)
				if s.local.n != len(b.Nodes) {
					t.Fatalf("the node map holds %d nodes, the batch %d", s.local.n, len(b.Nodes))
				}
				for i, v := range b.Nodes {
					if got := s.local.get(v); got != int32(i) {
						t.Fatalf("node %d maps to %d, not its local id %d", v, got, i)
					}
				}
			}
		})
	}
}

// TestSampleAllIsNeighbourhood: with every fan-out −1 the nodes within k
// hops are the exact k-hop neighbourhood of the seeds.
func TestSampleAllIsNeighbourhood(t *testing.T) {
	g := randomGraph(t, 300, 600, 2)
	s, err := NewSampler(g, Fanouts{-1, -1})
	if err != nil {
		t.Fatal(err)
	}
	seeds := seedsOf(g.N, 5, 3)
	var b Batch
	if err := s.Sample(&b, seeds, rand.New(rand.NewPCG(0, 0))); err != nil {
		t.Fatal(err)
	}
	reach := map[int32]bool{}
	frontier := slices.Clone(seeds)
	for _, v := range seeds {
		reach[v] = true
	}
	for k := 1; k <= 2; k++ {
		var next []int32
		for _, v := range frontier {
			for _, u := range g.InNeighbors(int(v)) {
				if !reach[u] {
					reach[u] = true
					next = append(next, u)
				}
			}
		}
		frontier = next
		if b.Hops[k] != len(reach) {
			t.Fatalf("hop %d: %d nodes sampled, %d within reach", k, b.Hops[k], len(reach))
		}
		for _, v := range b.Nodes[:b.Hops[k]] {
			if !reach[v] {
				t.Fatalf("hop %d: node %d is not within reach", k, v)
			}
		}
	}
}

func TestSampleDeterministic(t *testing.T) {
	g := randomGraph(t, 2000, 20000, 3)
	seeds := seedsOf(g.N, 100, 4)
	draw := func() Batch {
		s, err := NewSampler(g, Fanouts{10, 5})
		if err != nil {
			t.Fatal(err)
		}
		var b Batch
		if err := s.Sample(&b, seeds, rand.New(rand.NewPCG(9, 9))); err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := draw()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b := draw()
	if !slices.Equal(a.Nodes, b.Nodes) || !slices.Equal(a.Child, b.Child) || !slices.Equal(a.Ptr, b.Ptr) {
		t.Fatal("two samples with the same generator differ")
	}
	s, _ := NewSampler(g, Fanouts{10, 5})
	var c Batch
	if err := s.Sample(&c, seeds, rand.New(rand.NewPCG(10, 9))); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a.Child, c.Child) && slices.Equal(a.Nodes, c.Nodes) {
		t.Fatal("another generator drew the same sample")
	}
}

// TestSampleUniform: a node's sampled neighbours are a uniform subset: each
// neighbour is drawn with probability f/m (both the Floyd and the shuffle
// paths).
func TestSampleUniform(t *testing.T) {
	for _, tc := range []struct{ m, f int }{{20, 5}, {300, 100}} {
		src := make([]int32, tc.m)
		dst := make([]int32, tc.m)
		for i := range src {
			src[i], dst[i] = int32(i+1), 0
		}
		g, err := data.NewGraph(tc.m+1, src, dst, data.EdgeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := NewSampler(g, Fanouts{tc.f})
		count := make([]int, tc.m+1)
		var b Batch
		const trials = 4000
		rng := rand.New(rand.NewPCG(1, 2))
		for range trials {
			if err := s.Sample(&b, []int32{0}, rng); err != nil {
				t.Fatal(err)
			}
			for _, v := range b.Nodes[1:] {
				count[v]++
			}
		}
		p := float64(tc.f) / float64(tc.m)
		sd := 5 * math.Sqrt(trials*p*(1-p))
		for v := 1; v <= tc.m; v++ {
			if d := float64(count[v]) - trials*p; d > sd || d < -sd {
				t.Fatalf("m %d f %d: neighbour %d drawn %d times in %d, want about %.0f", tc.m, tc.f, v, count[v], trials, trials*p)
			}
		}
	}
}

func TestSampleErrors(t *testing.T) {
	g := randomGraph(t, 50, 100, 5)
	if _, err := NewSampler(g, Fanouts{0}); err == nil {
		t.Fatal("fan-out 0 accepted")
	}
	if _, err := NewSampler(g, nil); err == nil {
		t.Fatal("no fan-outs accepted")
	}
	s, _ := NewSampler(g, Fanouts{2})
	var b Batch
	for _, seeds := range [][]int32{{1, 1}, {-1}, {50}} {
		if err := s.Sample(&b, seeds, rand.New(rand.NewPCG(0, 0))); err == nil {
			t.Fatalf("seeds %v accepted", seeds)
		}
	}
	if err := s.Sample(&b, []int32{1, 2}, rand.New(rand.NewPCG(0, 0))); err != nil {
		t.Fatalf("after errors: %v", err)
	}
}

func TestParseFanouts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Fanouts
		ok   bool
	}{{"15,10", Fanouts{15, 10}, true}, {" -1 , 5", Fanouts{-1, 5}, true}, {"7", Fanouts{7}, true},
		{"", nil, false}, {"0", nil, false}, {"-2", nil, false}, {"a,1", nil, false}, {"1,,2", nil, false},
		{"1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", nil, false}} {
		got, err := ParseFanouts(tc.in)
		if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("ParseFanouts(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestStreamDeterministicAndComplete(t *testing.T) {
	g := randomGraph(t, 400, 2000, 6)
	nodes := seedsOf(g.N, 150, 8)
	cfg := StreamConfig{Fanouts: Fanouts{4, 3}, BatchNodes: 32, Epochs: 3, Seed: 11, Depth: 2}
	collect := func(procs int) [][]int32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		st, err := NewStream(g, nodes, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var out [][]int32
		for {
			b, err := st.Next()
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			checkBatch(t, g, b.Seeds(), cfg.Fanouts, b)
			out = append(out, slices.Concat(b.Nodes, []int32{-1}, b.Child))
			st.Release(b)
		}
		return out
	}
	a, b := collect(1), collect(4)
	if len(a) != 3*5 {
		t.Fatalf("%d batches, want 3 epochs × 5", len(a))
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("batch %d differs between GOMAXPROCS 1 and 4", i)
		}
	}
	// Every epoch covers every node once.
	st, _ := NewStream(g, nodes, cfg)
	defer st.Close()
	for e := range cfg.Epochs {
		var got []int32
		for range st.PerEpoch {
			bt, _ := st.Next()
			got = append(got, bt.Seeds()...)
			st.Release(bt)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(nodes))
		if !slices.Equal(got, want) {
			t.Fatalf("epoch %d does not cover the nodes once", e)
		}
	}
}

// TestStreamCloseNoLeak: closing a stream mid-run ends its producer,
// whether it waits on a full queue or on the consumer.
func TestStreamCloseNoLeak(t *testing.T) {
	g := randomGraph(t, 400, 2000, 7)
	nodes := seedsOf(g.N, 200, 9)
	before := runtime.NumGoroutine()
	for i := range 20 {
		st, err := NewStream(g, nodes, StreamConfig{Fanouts: Fanouts{5, 5}, BatchNodes: 10, Epochs: 1000, Seed: 1, Depth: 1 + i%3})
		if err != nil {
			t.Fatal(err)
		}
		for range i % 4 {
			b, _ := st.Next()
			if i%2 == 0 {
				st.Release(b)
			}
		}
		st.Close()
		st.Close()
		if b, _ := st.Next(); b != nil {
			// a batch queued before Close may still come out; the one after is nil
			for b != nil {
				b, _ = st.Next()
			}
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after closing every stream, %d before", n, before)
	}
}

func TestStreamErrors(t *testing.T) {
	g := randomGraph(t, 50, 100, 5)
	for _, c := range []StreamConfig{{Fanouts: Fanouts{2}, BatchNodes: 0, Epochs: 1}, {Fanouts: Fanouts{2}, BatchNodes: 1, Epochs: 0}, {Fanouts: Fanouts{0}, BatchNodes: 1, Epochs: 1}} {
		if _, err := NewStream(g, []int32{1}, c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	st, err := NewStream(g, []int32{1, 1}, StreamConfig{Fanouts: Fanouts{2}, BatchNodes: 2, Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if b, err := st.Next(); b != nil || err == nil {
		t.Fatal("a batch with a repeated seed was drawn")
	}
}

func BenchmarkSample(b *testing.B) {
	for _, size := range []struct{ n, m int }{{10_000, 50_000}, {100_000, 500_000}, {1_000_000, 5_000_000}} {
		if testing.Short() && size.n > 100_000 {
			continue
		}
		g := randomGraph(b, size.n, size.m, 1)
		seeds := seedsOf(g.N, 1024, 2)
		s, err := NewSampler(g, Fanouts{15, 10})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nodes=%d/arcs=%d", g.N, g.NumArcs()), func(b *testing.B) {
			var bt Batch
			rng := rand.New(rand.NewPCG(1, 1))
			for b.Loop() {
				if err := s.Sample(&bt, seeds, rng); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(bt.Child)), "links/batch")
		})
	}
}
