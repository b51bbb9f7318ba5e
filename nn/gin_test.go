package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// The sum operator by hand on the path graph, whose node 3 has a self loop
// and node 4 no neighbour: 1 per arc, 1+ε on the diagonal, added to the loop.
func TestSumOperator(t *testing.T) {
	n, ptr, src := path4()
	for _, eps := range []float64{0, 0.5} {
		var a tensor.CSR[float64]
		SumOperatorInto(&a, n, ptr, src, eps)
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		want := make([][]float64, n)
		for v := range want {
			want[v] = make([]float64, n)
			want[v][v] = 1 + eps
			for _, u := range src[ptr[v]:ptr[v+1]] {
				want[v][u]++
			}
		}
		got := a.ToDense()
		for v := 0; v < n; v++ {
			for u := 0; u < n; u++ {
				if got.At(v, u) != want[v][u] {
					t.Errorf("eps %v: (%d,%d) = %v, want %v", eps, v, u, got.At(v, u), want[v][u])
				}
			}
		}
	}
}

func TestGINConvGradients(t *testing.T) {
	n, ptr, src := path4()
	var a tensor.CSR[float64]
	SumOperatorInto(&a, n, ptr, src, 0)
	sum := tensor.NewAdjacency(&a)
	rng := rand.New(rand.NewPCG(3, 4))
	conv := NewGINConv[float64]("c", 3, 4, 2, rng)
	x := autodiff.NewParam[float64]("x", n, 3)
	Uniform(x, -1, 1, rng)
	for _, training := range []bool{true, false} {
		build := func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
			return autodiff.Tanh(tp, conv.Forward(tp, sum, x, training)), nil
		}
		params := append([]*autodiff.Var[float64]{x}, conv.Params()...)
		if training {
			// Batch statistics cancel the first bias: its gradient is 0
			// up to rounding, which a relative error cannot measure.
			params = slices.DeleteFunc(params, func(p *autodiff.Var[float64]) bool { return p == conv.Lin1.B })
		}
		rel, err := autodiff.GradCheck(build, params, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if rel > 1e-6 {
			t.Errorf("training %v: relative gradient error %.3g", training, rel)
		}
		if training {
			for i, g := range conv.Lin1.B.Grad.Data {
				if math.Abs(g) > 1e-12 {
					t.Errorf("first bias gradient %d = %g under batch statistics, want 0", i, g)
				}
			}
		}
	}
}

// In evaluation mode, by hand: MLP((1+ε)x_v + Σ x_u) with the batch norm's
// running statistics; the sparse path equals the dense one.
func TestGINConvMatchesFormula(t *testing.T) {
	n, ptr, src := path4()
	var a tensor.CSR[float64]
	SumOperatorInto(&a, n, ptr, src, 0)
	sum := tensor.NewAdjacency(&a)
	rng := rand.New(rand.NewPCG(5, 6))
	conv := NewGINConv[float64]("c", 2, 3, 2, rng)
	Uniform(conv.Norm.RunningMean, -0.5, 0.5, rng)
	Uniform(conv.Norm.RunningVar, 0.5, 2, rng)
	xd := tensor.NewDense[float64](n, 2)
	for i := range xd.Data {
		if i%3 != 1 {
			xd.Data[i] = float64(i%4) - 1.5
		}
	}
	var tp autodiff.Tape[float64]
	got := conv.Forward(&tp, sum, autodiff.NewVar(xd, false), false).Value
	sp := NewSparseInput(tensor.CSRFromDense(xd))
	gotSparse := conv.ForwardSparse(&tp, sum, sp.Apply(0, nil, false), false).Value
	nbrs := [][]int{{1}, {0, 2}, {1, 3}, {2, 3}, {}}
	for v := 0; v < n; v++ {
		s := []float64{xd.At(v, 0), xd.At(v, 1)}
		for _, u := range nbrs[v] {
			s[0] += xd.At(u, 0)
			s[1] += xd.At(u, 1)
		}
		hid := make([]float64, 3)
		for o := range hid {
			z := conv.Lin1.B.Value.At(0, o) + s[0]*conv.Lin1.W.Value.At(0, o) + s[1]*conv.Lin1.W.Value.At(1, o)
			z = (z-conv.Norm.RunningMean.Value.At(0, o))/math.Sqrt(conv.Norm.RunningVar.Value.At(0, o)+conv.Norm.Eps)*
				conv.Norm.Gamma.Value.At(0, o) + conv.Norm.Beta.Value.At(0, o)
			hid[o] = math.Max(z, 0)
		}
		for o := 0; o < 2; o++ {
			want := conv.Lin2.B.Value.At(0, o)
			for i, h := range hid {
				want += h * conv.Lin2.W.Value.At(i, o)
			}
			if math.Abs(got.At(v, o)-want) > 1e-12 || math.Abs(gotSparse.At(v, o)-want) > 1e-12 {
				t.Errorf("node %d out %d: dense %v, sparse %v, want %v", v, o, got.At(v, o), gotSparse.At(v, o), want)
			}
		}
	}
}

// Training moves the running statistics; evaluation leaves them alone.
func TestBatchNormBuffers(t *testing.T) {
	bn := NewBatchNorm[float64]("bn", 2)
	x := autodiff.NewVar(tensor.FromRows([][]float64{{1, 2}, {3, 6}}), false)
	var tp autodiff.Tape[float64]
	bn.Forward(&tp, x, false)
	if bn.RunningMean.Value.Data[0] != 0 || bn.RunningVar.Value.Data[0] != 1 {
		t.Fatal("evaluation moved the running statistics")
	}
	bn.Forward(&tp, x, true)
	// mean (2, 4), unbiased variance (2, 8): 0.9·old + 0.1·batch.
	want := [][]float64{{0.2, 0.4}, {1.1, 1.7}}
	for j := 0; j < 2; j++ {
		if math.Abs(bn.RunningMean.Value.Data[j]-want[0][j]) > 1e-15 || math.Abs(bn.RunningVar.Value.Data[j]-want[1][j]) > 1e-15 {
			t.Errorf("column %d: running (%v, %v), want (%v, %v)", j, bn.RunningMean.Value.Data[j], bn.RunningVar.Value.Data[j], want[0][j], want[1][j])
		}
	}
}
