package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/tensor"
)

// qgcnInput returns n points on Q_in (dims in, β) from random tangent
// vectors, as a float64 parameter.
func qgcnInput(n int, in manifold.Dims, beta float64, rng *rand.Rand) *autodiff.Var[float64] {
	x := autodiff.NewParam[float64]("x", n, in.Ambient())
	for v := 0; v < n; v++ {
		xi := make([]float64, in.Tangent())
		for i := range xi {
			xi[i] = rng.Float64()*2 - 1
		}
		copy(x.Value.Data[v*in.Ambient():], manifold.ExpOVec(xi, beta, in))
	}
	return x
}

// qgcnSetup is a layer from Q_{2,1} to Q_{2,2} on the path graph, with a
// non-zero bias and β = −1.3.
func qgcnSetup() (conv *QGCNConv[float64], adj *tensor.Adjacency[float64], x *autodiff.Var[float64], in manifold.Dims, beta float64) {
	n, ptr, src := path4()
	var a tensor.CSR[float64]
	MeanAggInto(&a, n, ptr, src)
	in, beta = manifold.Dims{S: 2, T: 1}, -1.3
	rng := rand.New(rand.NewPCG(1, 2))
	conv = NewQGCNConv[float64]("c", in.Tangent(), manifold.Dims{S: 2, T: 2}, rng)
	Uniform(conv.B, -0.5, 0.5, rng)
	return conv, tensor.NewAdjacency(&a), qgcnInput(n, in, beta, rng), in, beta
}

func TestQGCNConvGradients(t *testing.T) {
	conv, adj, x, in, beta0 := qgcnSetup()
	rho := manifold.NewCurvatureParam[float64]("rho", beta0)
	n, dOut := x.Value.Rows, conv.Dims.Ambient()
	w := autodiff.NewVar(tensor.NewDense[float64](n, dOut), false)
	for i := range w.Value.Data { // weights the outputs unevenly
		w.Value.Data[i] = float64(i%7) - 3
	}
	build := func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
		y := conv.Forward(tp, adj, x, manifold.Beta(tp, rho), in)
		return autodiff.Sum(tp, autodiff.Mul(tp, y, w)), nil
	}
	rel, err := autodiff.GradCheck(build, []*autodiff.Var[float64]{x, conv.W, conv.B, rho}, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if rel > 1e-5 {
		t.Errorf("relative gradient error %.3g", rel)
	}
}

// The layer matches the formulas composed from the float64 reference maps,
// row by row: HypLinear, HypAgg (the mean over each node and its
// in-neighbours) and HypAct. Every output lies on Q.
func TestQGCNConvMatchesReference(t *testing.T) {
	conv, adj, x, in, beta := qgcnSetup()
	n, ptr, src := path4()
	var tp autodiff.Tape[float64]
	bv := autodiff.NewVar(tensor.NewDense[float64](1, 1), false)
	bv.Value.Data[0] = beta
	got := conv.Forward(&tp, adj, x, bv, in).Value
	out := conv.Dims
	d, D := out.Tangent(), out.Ambient()
	h1 := make([][]float64, n)
	for v := 0; v < n; v++ {
		u := manifold.LogOVec(x.Value.Data[v*in.Ambient():(v+1)*in.Ambient()], beta, in)
		z := make([]float64, d)
		for o := 0; o < d; o++ {
			z[o] = conv.B.Value.At(0, o)
			for i := range u {
				z[o] += u[i] * conv.W.Value.At(i, o)
			}
		}
		h1[v] = manifold.LogOVec(manifold.ProjQVec(manifold.ExpOVec(z, beta, out), beta, out), beta, out)
	}
	for v := 0; v < n; v++ {
		nb := []int{v}
		for p := ptr[v]; p < ptr[v+1]; p++ {
			if int(src[p]) != v {
				nb = append(nb, int(src[p]))
			}
		}
		agg := make([]float64, d)
		for _, u := range nb {
			for o := range agg {
				agg[o] += h1[u][o] / float64(len(nb))
			}
		}
		h2 := manifold.LogOVec(manifold.ProjQVec(manifold.ExpOVec(agg, beta, out), beta, out), beta, out)
		for o := range h2 {
			h2[o] = math.Max(h2[o], 0)
		}
		want := manifold.ProjQVec(manifold.ExpOVec(h2, beta, out), beta, out)
		row := got.Data[v*D : (v+1)*D]
		for i := range want {
			if math.Abs(row[i]-want[i]) > 1e-9 {
				t.Fatalf("node %d coordinate %d: %v, want %v", v, i, row[i], want[i])
			}
		}
		if q := manifold.Inner(row, row, out); math.Abs(q-beta) > 1e-9 {
			t.Errorf("node %d: ⟨y,y⟩ = %v, not on Q (β = %v)", v, q, beta)
		}
	}
}

// ForwardSparse on sparse tangent features equals ForwardTangent on the
// same features dense.
func TestQGCNConvSparseMatchesDense(t *testing.T) {
	conv, adj, _, _, beta := qgcnSetup()
	n := adj.A.Rows
	xd := tensor.NewDense[float64](n, conv.W.Value.Rows)
	for i := range xd.Data {
		if i%3 != 0 {
			xd.Data[i] = float64(i%4) / 4
		}
	}
	bv := autodiff.NewVar(tensor.NewDense[float64](1, 1), false)
	bv.Value.Data[0] = beta
	var tp autodiff.Tape[float64]
	dense := conv.ForwardTangent(&tp, adj, autodiff.NewVar(xd, false), bv).Value
	sp := NewSparseInput(tensor.CSRFromDense(xd))
	sparse := conv.ForwardSparse(&tp, adj, sp.Apply(0, nil, false), bv).Value
	for i := range dense.Data {
		if math.Abs(dense.Data[i]-sparse.Data[i]) > 1e-12 {
			t.Fatalf("entry %d: sparse %v, dense %v", i, sparse.Data[i], dense.Data[i])
		}
	}
}
