package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// path4 is the undirected path 0-1-2-3 plus an isolated node 4 and a
// self-loop on 3, as CSR by target.
func path4() (n int, ptr, src []int32) {
	// in-neighbours: 0:{1} 1:{0,2} 2:{1,3} 3:{2,3} 4:{}
	return 5, []int32{0, 1, 3, 5, 7, 7}, []int32{1, 0, 2, 1, 3, 2, 3}
}

func TestGCNNormMatchesDenseFormula(t *testing.T) {
	n, ptr, src := path4()
	adj := GCNNorm[float64](n, ptr, src)
	if err := adj.A.Validate(); err != nil {
		t.Fatal(err)
	}
	// Dense reference: Ã = A + I where missing, D̃ = row sums, Â = D̃^-½ Ã D̃^-½.
	a := make([][]float64, n)
	for v := range a {
		a[v] = make([]float64, n)
		for p := ptr[v]; p < ptr[v+1]; p++ {
			a[v][src[p]] = 1
		}
		a[v][v] = 1
	}
	deg := make([]float64, n)
	for v := range a {
		for _, x := range a[v] {
			deg[v] += x
		}
	}
	got := adj.A.ToDense()
	for v := 0; v < n; v++ {
		for u := 0; u < n; u++ {
			want := a[v][u] / math.Sqrt(deg[v]*deg[u])
			if d := math.Abs(got.At(v, u) - want); d > 1e-12 {
				t.Errorf("Â[%d][%d] = %v, want %v", v, u, got.At(v, u), want)
			}
		}
	}
	if adj.AT.Rows != n || adj.AT.NNZ() != adj.A.NNZ() {
		t.Errorf("transpose has %d rows, %d nnz; want %d, %d", adj.AT.Rows, adj.AT.NNZ(), n, adj.A.NNZ())
	}
}

// TestSumAggMatchesDenseFormula checks A + I (GIN-0) against its dense
// definition, and that rebuilding into used storage (a larger graph first)
// leaves nothing of the old operator.
func TestSumAggMatchesDenseFormula(t *testing.T) {
	var a tensor.CSR[float64]
	SumAggInto(&a, 6, []int32{0, 5, 5, 5, 5, 5, 5}, []int32{0, 1, 2, 3, 4})
	n, ptr, src := path4()
	SumAggInto(&a, n, ptr, src)
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	got := a.ToDense()
	for v := 0; v < n; v++ {
		for u := 0; u < n; u++ {
			want := 0.0
			if u == v {
				want = 1
			}
			for p := ptr[v]; p < ptr[v+1]; p++ {
				if src[p] == int32(u) {
					want = 1 // the self-loop on 3 counts once
				}
			}
			if got.At(v, u) != want {
				t.Errorf("(A+I)[%d][%d] = %v, want %v", v, u, got.At(v, u), want)
			}
		}
	}
}

func TestGCNConvGradients(t *testing.T) {
	n, ptr, src := path4()
	adj := GCNNorm[float64](n, ptr, src)
	rng := rand.New(rand.NewPCG(1, 1))
	conv := NewGCNConv[float64]("c", 3, 2, rng)
	Uniform(conv.B, -1, 1, rng)
	x := autodiff.NewParam[float64]("x", n, 3)
	Uniform(x, -1, 1, rng)
	xs := tensor.NewAdjacency(tensor.CSRFromDense(&x.Value))
	for _, tc := range []struct {
		name   string
		build  func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error)
		inputs []*autodiff.Var[float64]
	}{
		{"dense", func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
			return conv.Forward(tp, adj, x), nil
		}, []*autodiff.Var[float64]{x, conv.W, conv.B}},
		{"sparse", func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
			return conv.ForwardSparse(tp, adj, xs), nil
		}, []*autodiff.Var[float64]{conv.W, conv.B}},
	} {
		rel, err := autodiff.GradCheck(tc.build, tc.inputs, 1e-6)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if rel > 1e-6 {
			t.Errorf("%s: relative gradient error %.3g > 1e-6", tc.name, rel)
		}
	}
}

func TestLinearAndLayerNormGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	lin := NewLinear[float64]("lin", 4, 3, true, rng)
	ln := NewLayerNorm[float64]("ln", 3)
	Uniform(ln.Gamma, 0.5, 1.5, rng)
	Uniform(ln.Beta, -1, 1, rng)
	x := autodiff.NewParam[float64]("x", 5, 4)
	Uniform(x, -1, 1, rng)
	rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
		return ln.Forward(tp, lin.Forward(tp, x)), nil
	}, append(append([]*autodiff.Var[float64]{x}, lin.Params()...), ln.Params()...), 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if rel > 1e-6 {
		t.Errorf("relative gradient error %.3g > 1e-6", rel)
	}
}

func TestInitRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	p := autodiff.NewParam[float32]("w", 100, 50)
	Glorot(p, rng)
	a := float32(math.Sqrt(6.0 / 150))
	var lo, hi float32
	for _, v := range p.Value.Data {
		if v < -a || v > a {
			t.Fatalf("Glorot value %v outside ±%v", v, a)
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if hi < a*0.9 || lo > -a*0.9 {
		t.Errorf("Glorot values span [%v, %v], expected close to ±%v", lo, hi, a)
	}
}

// MeanAggInto's rows are the uniform averages over each node and its
// in-neighbours: they sum to 1 and share one value.
func TestMeanAggRowsAverage(t *testing.T) {
	n, ptr, src := path4()
	var a tensor.CSR[float64]
	MeanAggInto(&a, n, ptr, src)
	for v := 0; v < n; v++ {
		lo, hi := a.Indptr[v], a.Indptr[v+1]
		sum := 0.0
		for p := lo; p < hi; p++ {
			sum += a.Data[p]
			if a.Data[p] != 1/float64(hi-lo) {
				t.Errorf("row %d: weight %v with %d entries", v, a.Data[p], hi-lo)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("row %d sums to %v", v, sum)
		}
	}
}
