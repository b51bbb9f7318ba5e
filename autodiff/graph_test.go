package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func mgGraphCases[T Float]() []mgCase[T] {
	// A directed graph on 6 nodes with self-loops on some, node 3 without
	// in-arcs and node 5 without out-arcs.
	a := mgCSR[T](6, 6, 6, 0.4, 3)
	adj := tensor.NewAdjacency(a)
	bigA := mgCSR[T](7, 200, 200, 0.03)
	big := tensor.NewAdjacency(bigA)
	none := tensor.NewAdjacency(&tensor.CSR[T]{Rows: 0, Cols: 0, Indptr: []int32{0}})
	feats := tensor.NewAdjacency(mgCSR[T](11, 6, 5, 0.5))       // 6 nodes, 5 sparse features
	bigFeats := tensor.NewAdjacency(mgCSR[T](12, 200, 40, 0.1)) // 200 nodes, 40 features
	seg := mgSegPtr(2, 0, 3, 1, 0, 4, 0)
	idx := []int32{3, 0, 3, 3, 5, 1, 0, 0, 2, 3}
	lens := make([]int, 200)
	for i := range lens {
		lens[i] = i % 5 // 400 items, a fifth of the segments empty
	}
	bigSeg := mgSegPtr(lens...)
	bigIdx := mgIdx(8, 500, 200)
	return []mgCase[T]{
		{"aggregate_6", [][2]int{{6, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return GraphAggregate(tp, adj, in[0]) }},
		{"aggregate_twice", [][2]int{{6, 2}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GraphAggregate(tp, adj, GraphAggregate(tp, adj, in[0]))
		}},
		{"aggregate_200", [][2]int{{200, 16}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return GraphAggregate(tp, big, in[0]) }},
		{"aggregate_empty", [][2]int{{0, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return GraphAggregate(tp, none, in[0]) }},
		{"aggregate_bias_6", [][2]int{{6, 3}, {1, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GraphAggregateBias(tp, adj, in[0], in[1])
		}},
		{"aggregate_bias_200", [][2]int{{200, 16}, {1, 16}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GraphAggregateBias(tp, big, in[0], in[1])
		}},
		{"aggregate_bias_empty", [][2]int{{0, 3}, {1, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GraphAggregateBias(tp, none, in[0], in[1])
		}},
		{"conv_sparse_6", [][2]int{{5, 3}, {1, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GraphConvSparse(tp, adj, feats, in[0], in[1])
		}},
		{"conv_sparse_200", [][2]int{{40, 8}, {1, 8}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GraphConvSparse(tp, big, bigFeats, in[0], in[1])
		}},
		{"gather_dups", [][2]int{{6, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return GatherRows(tp, in[0], idx) }},
		{"gather_none", [][2]int{{6, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return GatherRows(tp, in[0], nil) }},
		{"gather_big", [][2]int{{200, 16}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return GatherRows(tp, in[0], bigIdx) }},
		{"scatter_empty_segments", [][2]int{{10, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return ScatterAddRows(tp, in[0], seg) }},
		{"scatter_zero_rows", [][2]int{{0, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return ScatterAddRows(tp, in[0], []int32{0, 0, 0}) }},
		{"scatter_big", [][2]int{{400, 16}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return ScatterAddRows(tp, in[0], bigSeg) }},
		{"gather_then_scatter", [][2]int{{6, 4}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return ScatterAddRows(tp, GatherRows(tp, in[0], idx), seg)
		}},
		{"softmax_empty_segments", [][2]int{{10, 1}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return SegmentSoftmax(tp, in[0], seg) }},
		{"softmax_no_edges", [][2]int{{0, 1}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return SegmentSoftmax(tp, in[0], []int32{0, 0}) }},
		{"softmax_big", [][2]int{{400, 1}}, func(tp *Tape[T], in []*Var[T]) *Var[T] { return SegmentSoftmax(tp, in[0], bigSeg) }},
		{"edge_aggregate", [][2]int{{a.NNZ(), 1}, {6, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return EdgeAggregate(tp, adj, in[0], in[1])
		}},
		{"edge_aggregate_200", [][2]int{{bigA.NNZ(), 1}, {200, 8}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return EdgeAggregate(tp, big, in[0], in[1])
		}},
		{"edge_aggregate_empty", [][2]int{{0, 1}, {0, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return EdgeAggregate(tp, none, in[0], in[1])
		}},
		{"gat_fused", [][2]int{{6, 4}, {4, 1}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			// Scores from source features, softmax over each node's in-arcs,
			// attention-weighted sum: the GAT pattern without an E×C tensor.
			s := MatMul(tp, GatherRows(tp, in[0], a.Indices), in[1])
			att := SegmentSoftmax(tp, s, a.Indptr)
			return EdgeAggregate(tp, adj, att, in[0])
		}},
		{"attention", [][2]int{{6, 4}, {4, 1}, {1, 3}}, func(tp *Tape[T], in []*Var[T]) *Var[T] {
			// Edge scores from gathered source features, softmax per target,
			// summed per target: every op of this file in one graph.
			// The edges are shuffled before the sum: summing the softmax of
			// a segment over the same segment gives 1, a zero gradient that
			// finite differences cannot check relatively.
			e := GatherRows(tp, in[0], idx)
			s := SegmentSoftmax(tp, MatMul(tp, e, in[1]), seg)
			shuffled := GatherRows(tp, MatMul(tp, s, in[2]), []int32{9, 3, 0, 8, 1, 1, 7, 2, 4, 5})
			return ScatterAddRows(tp, shuffled, seg)
		}},
	}
}

func TestGraphOpsGrad(t *testing.T) {
	mgBoth(t, mgGraphCases[float64], mgGraphCases[float32])
}

func TestGraphOpsValues(t *testing.T) {
	// Forward values against obvious loops.
	a := tensor.FromRows([][]float64{{0, 2, 0}, {1, 0, 3}, {0, 0, 0}})
	adj := tensor.NewAdjacency(tensor.CSRFromDense(a))
	h := NewVar(tensor.FromRows([][]float64{{1, 10}, {2, 20}, {3, 30}}), true)
	var tp Tape[float64]
	out := GraphAggregate(&tp, adj, h)
	want := []float64{4, 40, 10, 100, 0, 0}
	for i, v := range out.Value.Data {
		if v != want[i] {
			t.Fatalf("GraphAggregate = %v, want %v", out.Value.Data, want)
		}
	}
	g := GatherRows(&tp, h, []int32{2, 2, 0})
	if got := g.Value.Data; got[0] != 3 || got[2] != 3 || got[4] != 1 || got[5] != 10 {
		t.Fatalf("GatherRows = %v", got)
	}
	s := ScatterAddRows(&tp, g, []int32{0, 0, 3})
	if got := s.Value.Data; got[0] != 0 || got[1] != 0 || got[2] != 7 || got[3] != 70 {
		t.Fatalf("ScatterAddRows = %v", got)
	}
	sc := NewVar(tensor.FromRows([][]float64{{0}, {math.Log(3)}, {1000}}), true)
	sm := SegmentSoftmax(&tp, sc, []int32{0, 2, 2, 3})
	if got := sm.Value.Data; math.Abs(got[0]-0.25) > 1e-15 || math.Abs(got[1]-0.75) > 1e-15 || got[2] != 1 {
		t.Fatalf("SegmentSoftmax = %v", got)
	}
}

func TestGraphOpsPanicOnBadShapes(t *testing.T) {
	h := NewVar(tensor.NewDense[float64](3, 2), true)
	var tp Tape[float64]
	for name, f := range map[string]func(){
		"MatMul":         func() { MatMul(&tp, h, h) },
		"SpMM":           func() { SpMM(&tp, &tensor.CSR[float64]{Rows: 1, Cols: 2, Indptr: []int32{0, 0}}, h) },
		"GatherRows":     func() { GatherRows(&tp, h, []int32{3}) },
		"ScatterAddRows": func() { ScatterAddRows(&tp, h, []int32{0, 2}) },
		"SegmentSoftmax": func() { SegmentSoftmax(&tp, h, []int32{0, 3}) },
		"EdgeAggregate": func() {
			EdgeAggregate(&tp, tensor.NewAdjacency(tensor.CSRFromDense(tensor.NewDense[float64](3, 3))), h, h)
		},
		"decreasing": func() { ScatterAddRows(&tp, h, []int32{0, 2, 1, 3}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s accepted a bad shape", name)
				}
			}()
			f()
		}()
	}
}

// mgNet is a small GCN-and-attention pass over every op of this file, used
// to check that steady-state passes allocate nothing.
type mgNet struct {
	x        *tensor.CSR[float32]
	xd       tensor.CSR[float32]
	adj      *tensor.Adjacency[float32]
	w1, w2   *Var[float32]
	w3, w4   *Var[float32]
	src, seg []int32
	rng      *rand.Rand
	seed     *tensor.Dense[float32]
}

func newMgNet() *mgNet {
	n := &mgNet{rng: rand.New(rand.NewPCG(1, 1))}
	n.x = mgCSR[float32](1, 500, 300, 0.02)
	a := mgCSR[float32](2, 500, 500, 0.01)
	n.adj = tensor.NewAdjacency(a)
	n.src, n.seg = a.Indices, a.Indptr
	rng := rand.New(rand.NewPCG(2, 2))
	n.w1 = mgVar[float32](rng, "w1", 300, 64)
	n.w2 = mgVar[float32](rng, "w2", 64, 1)
	n.w3 = mgVar[float32](rng, "w3", 1, 64)
	n.w4 = mgVar[float32](rng, "w4", 64, 16)
	n.seed = tensor.NewDense[float32](500, 16)
	for i := range n.seed.Data {
		n.seed.Data[i] = 1
	}
	return n
}

func (n *mgNet) step(tp *Tape[float32]) error {
	tp.Reset()
	tensor.DropoutCSR(&n.xd, n.x, 0.5, n.rng)
	h := SpMM(tp, &n.xd, n.w1)
	h = GraphAggregate(tp, n.adj, h)
	e := GatherRows(tp, h, n.src)
	att := SegmentSoftmax(tp, MatMul(tp, e, n.w2), n.seg)
	agg := ScatterAddRows(tp, MatMul(tp, att, n.w3), n.seg)
	agg = EdgeAggregate(tp, n.adj, att, agg)
	out := MatMul(tp, agg, n.w4)
	return tp.BackwardSeeded(out, n.seed)
}

func TestGraphOpsNoAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	n := newMgNet()
	var tp Tape[float32]
	for range 3 {
		if err := n.step(&tp); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(20, func() {
		if err := n.step(&tp); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("forward+backward allocates %v times per pass", allocs)
	}
}

func BenchmarkGraphOpsStep(b *testing.B) {
	n := newMgNet()
	var tp Tape[float32]
	if err := n.step(&tp); err != nil { // warm the tape up
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := n.step(&tp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGCNStepCora times one forward+backward pass of a 2-layer GCN at
// Cora size (2708 nodes, 1433 sparse features at 1.3%, ~13k arcs with self
// loops, hidden 64, 7 classes), the ops of this package only.
func BenchmarkGCNStepCora(b *testing.B) {
	for _, kept := range []bool{false, true} {
		b.Run(fmt.Sprintf("transposeKept=%v", kept), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := mgCSR[float32](3, 2708, 1433, 0.013)
			var xd tensor.CSR[float32]
			tensor.DropoutCSR(&xd, x, 0.5, rng)
			xAdj := tensor.NewAdjacency(&xd)
			a := mgCSR[float32](4, 2708, 2708, 0.0015)
			for i := range a.Data {
				a.Data[i] = 0.2
			}
			adj := tensor.NewAdjacency(a)
			w1, w2 := mgVar[float32](rng, "w1", 1433, 64), mgVar[float32](rng, "w2", 64, 7)
			seed := tensor.NewDense[float32](2708, 7)
			var tp Tape[float32]
			step := func() {
				tp.Reset()
				tensor.DropoutCSR(&xd, x, 0.5, rng)
				var h *Var[float32]
				if kept {
					xAdj.SyncValues()
					h = SpMMTransposed(&tp, xAdj, w1)
				} else {
					h = SpMM(&tp, &xd, w1)
				}
				h = GraphAggregate(&tp, adj, h)
				out := GraphAggregate(&tp, adj, MatMul(&tp, h, w2))
				if err := tp.BackwardSeeded(out, seed); err != nil {
					b.Fatal(err)
				}
			}
			step() // warm the tape up
			b.ReportAllocs()
			for b.Loop() {
				step()
			}
		})
	}
}

// GraphAggregateBias gives GraphAggregate followed by Add's values and
// gradients bit for bit (enough rows for several of the bias gradient's
// row blocks and parallel chunks), and rejects a bias of the wrong shape.
func TestGraphAggregateBiasMatchesChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := mgCSR[float32](9, 300, 300, 0.02)
	adj := tensor.NewAdjacency(a)
	h := NewVar(tensor.NewDense[float32](300, 24), true)
	b := NewVar(tensor.NewDense[float32](1, 24), true)
	for i := range h.Value.Data {
		h.Value.Data[i] = rng.Float32()*2 - 1
	}
	for i := range b.Value.Data {
		b.Value.Data[i] = rng.Float32()*2 - 1
	}
	up := tensor.NewDense[float32](300, 24)
	for i := range up.Data {
		up.Data[i] = rng.Float32()*2 - 1
	}
	run := func(fused bool) (out, gh, gb []float32) {
		h.Grad.Zero()
		b.Grad.Zero()
		var tp Tape[float32]
		var y *Var[float32]
		if fused {
			y = GraphAggregateBias(&tp, adj, h, b)
		} else {
			y = Add(&tp, GraphAggregate(&tp, adj, h), b)
		}
		if err := tp.BackwardSeeded(y, up); err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), y.Value.Data...), append([]float32(nil), h.Grad.Data...), append([]float32(nil), b.Grad.Data...)
	}
	y0, gh0, gb0 := run(false)
	y1, gh1, gb1 := run(true)
	for name, pair := range map[string][2][]float32{"output": {y0, y1}, "∂h": {gh0, gh1}, "∂b": {gb0, gb1}} {
		for i := range pair[0] {
			if math.Float32bits(pair[0][i]) != math.Float32bits(pair[1][i]) {
				t.Fatalf("%s %d = %v, the chain gives %v", name, i, pair[1][i], pair[0][i])
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a 2×24 bias did not panic")
		}
	}()
	var tp Tape[float32]
	GraphAggregateBias(&tp, adj, h, NewVar(tensor.NewDense[float32](2, 24), true))
}

// GraphConvSparse gives SpMMTransposed then GraphAggregateBias's values
// and gradients bit for bit, across two passes on one tape (its x·w lives
// in the tape's scratch).
func TestGraphConvSparseMatchesChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	adj := tensor.NewAdjacency(mgCSR[float32](9, 300, 300, 0.02))
	x := tensor.NewAdjacency(mgCSR[float32](10, 300, 50, 0.1))
	w := NewVar(tensor.NewDense[float32](50, 24), true)
	b := NewVar(tensor.NewDense[float32](1, 24), true)
	for _, v := range []*Var[float32]{w, b} {
		for i := range v.Value.Data {
			v.Value.Data[i] = rng.Float32()*2 - 1
		}
	}
	up := tensor.NewDense[float32](300, 24)
	for i := range up.Data {
		up.Data[i] = rng.Float32()*2 - 1
	}
	var tp Tape[float32]
	run := func(fused bool) (out, gw, gb []float32) {
		w.Grad.Zero()
		b.Grad.Zero()
		tp.Reset()
		var y *Var[float32]
		if fused {
			y = GraphConvSparse(&tp, adj, x, w, b)
		} else {
			y = GraphAggregateBias(&tp, adj, SpMMTransposed(&tp, x, w), b)
		}
		if err := tp.BackwardSeeded(y, up); err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), y.Value.Data...), append([]float32(nil), w.Grad.Data...), append([]float32(nil), b.Grad.Data...)
	}
	y0, gw0, gb0 := run(false)
	for range 2 {
		y1, gw1, gb1 := run(true)
		for name, pair := range map[string][2][]float32{"output": {y0, y1}, "∂w": {gw0, gw1}, "∂b": {gb0, gb1}} {
			for i := range pair[0] {
				if math.Float32bits(pair[0][i]) != math.Float32bits(pair[1][i]) {
					t.Fatalf("%s %d = %v, the chain gives %v", name, i, pair[1][i], pair[0][i])
				}
			}
		}
	}
}
