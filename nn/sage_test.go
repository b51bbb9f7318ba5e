package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

func TestSAGEConvGradients(t *testing.T) {
	n, ptr, src := path4()
	var a tensor.CSR[float64]
	NeighborMeanInto(&a, n, ptr, src)
	mean := tensor.NewAdjacency(&a)
	rng := rand.New(rand.NewPCG(7, 8))
	conv := NewSAGEConv[float64]("c", 3, 2, rng)
	x := autodiff.NewParam[float64]("x", n, 3)
	Uniform(x, -1, 1, rng)
	w := autodiff.NewVar(tensor.NewDense[float64](n, 2), false)
	for i := range w.Value.Data {
		w.Value.Data[i] = float64(i%5) - 2
	}
	build := func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
		return autodiff.Sum(tp, autodiff.Mul(tp, autodiff.Tanh(tp, conv.Forward(tp, mean, x)), w)), nil
	}
	rel, err := autodiff.GradCheck(build, append([]*autodiff.Var[float64]{x}, conv.Params()...), 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if rel > 1e-6 {
		t.Errorf("relative gradient error %.3g", rel)
	}
}

// By hand on the path graph: node 1's in-neighbours are 0 and 2, node 4 has
// none (its neighbour term is the bias alone), and the sparse path equals
// the dense one.
func TestSAGEConvMatchesFormula(t *testing.T) {
	n, ptr, src := path4()
	var a tensor.CSR[float64]
	NeighborMeanInto(&a, n, ptr, src)
	mean := tensor.NewAdjacency(&a)
	rng := rand.New(rand.NewPCG(9, 10))
	conv := NewSAGEConv[float64]("c", 2, 2, rng)
	xd := tensor.NewDense[float64](n, 2)
	for i := range xd.Data {
		if i%3 != 1 {
			xd.Data[i] = float64(i%4) - 1.5
		}
	}
	var tp autodiff.Tape[float64]
	got := conv.Forward(&tp, mean, autodiff.NewVar(xd, false)).Value
	sp := NewSparseInput(tensor.CSRFromDense(xd))
	gotSparse := conv.ForwardSparse(&tp, mean, sp.Apply(0, nil, false)).Value
	nbrs := [][]int{{1}, {0, 2}, {1, 3}, {2, 3}, {}}
	for v := 0; v < n; v++ {
		for o := 0; o < 2; o++ {
			want := conv.Neighbors.B.Value.At(0, o)
			for i := 0; i < 2; i++ {
				m := 0.0
				for _, u := range nbrs[v] {
					m += xd.At(u, i) / float64(len(nbrs[v]))
				}
				want += m*conv.Neighbors.W.Value.At(i, o) + xd.At(v, i)*conv.Self.W.Value.At(i, o)
			}
			if math.Abs(got.At(v, o)-want) > 1e-12 || math.Abs(gotSparse.At(v, o)-want) > 1e-12 {
				t.Errorf("node %d out %d: dense %v, sparse %v, want %v", v, o, got.At(v, o), gotSparse.At(v, o), want)
			}
		}
	}
}
