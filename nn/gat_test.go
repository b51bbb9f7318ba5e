package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

func TestGATConvGradients(t *testing.T) {
	n, ptr, src := path4()
	var g GATGraph[float64]
	g.Reset(n, ptr, src)
	for _, tc := range []struct {
		name       string
		heads      int
		concat, v2 bool
	}{{"gat concat", 2, true, false}, {"gat mean", 3, false, false}, {"gatv2 concat", 2, true, true}, {"gatv2 one head", 1, false, true}} {
		rng := rand.New(rand.NewPCG(3, 4))
		conv := NewGATConv[float64]("c", 3, 2, tc.heads, tc.concat, tc.v2, rng)
		Uniform(conv.B, -1, 1, rng)
		x := autodiff.NewParam[float64]("x", n, 3)
		Uniform(x, -1, 1, rng)
		w := autodiff.NewVar(tensor.NewDense[float64](n, conv.B.Value.Cols), false)
		for i := range w.Value.Data { // weights the outputs unevenly
			w.Value.Data[i] = float64(i%5) - 2
		}
		build := func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
			return autodiff.Sum(tp, autodiff.Mul(tp, autodiff.Tanh(tp, conv.Forward(tp, &g, x, 0, nil, false)), w)), nil
		}
		rel, err := autodiff.GradCheck(build, append([]*autodiff.Var[float64]{x}, conv.Params()...), 1e-6)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if rel > 1e-6 {
			t.Errorf("%s: relative gradient error %.3g", tc.name, rel)
		}
	}
}

// One head on node 1 of the path, by hand: the coefficients are the
// softmax of the LeakyReLU scores over its in-neighbours 0, 2 and itself.
func TestGATConvMatchesFormula(t *testing.T) {
	n, ptr, src := path4()
	var g GATGraph[float64]
	g.Reset(n, ptr, src)
	rng := rand.New(rand.NewPCG(5, 6))
	conv := NewGATConv[float64]("c", 2, 2, 1, true, false, rng)
	x := autodiff.NewParam[float64]("x", n, 2)
	Uniform(x, -1, 1, rng)
	var tp autodiff.Tape[float64]
	out := conv.Forward(&tp, &g, x, 0, nil, false)
	wh := func(v int) []float64 {
		r := make([]float64, 2)
		for o := 0; o < 2; o++ {
			for i := 0; i < 2; i++ {
				r[o] += x.Value.At(v, i) * conv.W.Value.At(i, o)
			}
		}
		return r
	}
	dot := func(a []float64, b *autodiff.Var[float64]) float64 {
		return a[0]*b.Value.At(0, 0) + a[1]*b.Value.At(1, 0)
	}
	leaky := func(z float64) float64 {
		if z < 0 {
			return 0.2 * z
		}
		return z
	}
	var sum float64
	want := make([]float64, 2)
	for _, j := range []int{0, 1, 2} {
		e := math.Exp(leaky(dot(wh(1), conv.ADst) + dot(wh(j), conv.ASrc)))
		sum += e
		for o := range want {
			want[o] += e * wh(j)[o]
		}
	}
	for o := range want {
		if got := out.Value.At(1, o); math.Abs(got-want[o]/sum-conv.B.Value.At(0, o)) > 1e-12 {
			t.Errorf("out[1][%d] = %v, want %v", o, got, want[o]/sum)
		}
	}
}

// A block of a sampled neighbourhood (parents × children, the parents the
// first children) with every in-neighbour gives the parents the rows of
// the whole graph's pass, and its gradients pass the finite-difference
// check, as does a block with a neighbour left out.
func TestGATConvBlock(t *testing.T) {
	n, ptr, src := path4()
	var g GATGraph[float64]
	g.Reset(n, ptr, src)
	// Parents nodes 2 and 3 (local 0, 1), then their other in-neighbour
	// node 1 (local 2). Node 2's in-neighbours are 1 and 3, node 3's 2 and
	// itself (a self-loop arc, counted once).
	nodes := []int32{2, 3, 1}
	full := GATGraph[float64]{}
	full.ResetBlock(2, 3, []int32{0, 3, 5}, []int32{0, 1, 2, 0, 1}, true)
	partial := GATGraph[float64]{}
	partial.ResetBlock(2, 3, []int32{0, 2, 4}, []int32{0, 2, 0, 1}, true) // node 2 without node 3
	for _, tc := range []struct {
		name       string
		heads      int
		concat, v2 bool
	}{{"gat concat", 2, true, false}, {"gat mean", 3, false, false}, {"gatv2 concat", 2, true, true}, {"gatv2 one head", 1, false, true}} {
		rng := rand.New(rand.NewPCG(3, 4))
		conv := NewGATConv[float64]("c", 3, 2, tc.heads, tc.concat, tc.v2, rng)
		Uniform(conv.B, -1, 1, rng)
		x := autodiff.NewParam[float64]("x", n, 3)
		Uniform(x, -1, 1, rng)
		xb := autodiff.NewParam[float64]("xb", len(nodes), 3)
		for i, v := range nodes {
			copy(xb.Value.Row(i), x.Value.Row(int(v)))
		}
		var tp autodiff.Tape[float64]
		want := conv.Forward(&tp, &g, x, 0, nil, false)
		got := conv.Forward(&tp, &full, xb, 0, nil, false)
		if got.Value.Rows != 2 {
			t.Fatalf("%s: %d output rows for 2 parents", tc.name, got.Value.Rows)
		}
		for i, v := range nodes[:2] {
			for k, w := range want.Value.Row(int(v)) {
				if d := math.Abs(got.Value.At(i, k) - w); d > 1e-12 {
					t.Fatalf("%s: node %d, column %d: block %v, whole graph %v", tc.name, v, k, got.Value.At(i, k), w)
				}
			}
		}
		w := autodiff.NewVar(tensor.NewDense[float64](2, conv.B.Value.Cols), false)
		for i := range w.Value.Data {
			w.Value.Data[i] = float64(i%5) - 2
		}
		for _, blk := range []*GATGraph[float64]{&full, &partial} {
			build := func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
				return autodiff.Sum(tp, autodiff.Mul(tp, autodiff.Tanh(tp, conv.Forward(tp, blk, xb, 0, nil, false)), w)), nil
			}
			rel, err := autodiff.GradCheck(build, append([]*autodiff.Var[float64]{xb}, conv.Params()...), 1e-6)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if rel > 1e-6 {
				t.Errorf("%s: relative gradient error %.3g", tc.name, rel)
			}
		}
	}
}
