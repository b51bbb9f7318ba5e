package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/tensor"
)

// pccTangentGCNRef is Proj_Q(exp̂_o(σ(Â·loĝ_o(x)·W + b))) with dense loops
// and the manifold's float64 reference functions.
func pccTangentGCNRef(x []float64, beta float64, a *tensor.Dense[float64], W, B []float64, dims manifold.Dims, act manifold.Activation) []float64 {
	n, d := a.Rows, dims.Tangent()
	z := make([][]float64, n)
	for i, xi := range pccRows(x, dims.Ambient()) {
		z[i] = manifold.LogOVec(xi, beta, dims)
	}
	var out []float64
	for v := 0; v < n; v++ {
		h := append([]float64(nil), B...)
		for u := 0; u < n; u++ {
			if a.At(v, u) == 0 {
				continue
			}
			for k := 0; k < d; k++ {
				for j := 0; j < d; j++ {
					h[k] += a.At(v, u) * z[u][j] * W[j*d+k]
				}
			}
		}
		out = append(out, manifold.ProjQVec(manifold.ExpOVec(manifold.ActivateVec(h, act), beta, dims), beta, dims)...)
	}
	return out
}

type pccTGCNCase struct {
	dims manifold.Dims
	beta float64
	act  manifold.Activation
	seed uint64
}

var pccTGCNCases = []pccTGCNCase{
	{manifold.Dims{S: 9, T: 9}, -1, manifold.ActSquash, 1},
	{manifold.Dims{S: 3, T: 1}, -0.5, manifold.ActTanh, 2},
	{manifold.Dims{S: 0, T: 3}, -3, manifold.ActSquash, 3},
	{manifold.Dims{S: 2, T: 2}, -1.7, manifold.ActIdentity, 4},
}

func pccTGCNSetup[T autodiff.Float](tc pccTGCNCase) (*TangentGCN[T], *autodiff.Var[T], *autodiff.Var[T], *tensor.Adjacency[T]) {
	rng := rand.New(rand.NewPCG(tc.seed, 13))
	n := 9
	ptr, src := pccRandomGraph(rng, n, 12)
	adj := nn.GCNNorm[T](n, ptr, src)
	g := NewTangentGCN[T]("tg", tc.dims, rng)
	g.Act = tc.act
	nn.Uniform(g.B, -0.5, 0.5, rng)
	x := pccLeaf[T]("x", n, tc.dims.Ambient(), pccPoints(rng, tc.dims, tc.beta, n), true)
	beta := pccLeaf[T]("beta", 1, 1, []float64{tc.beta}, true)
	return g, x, beta, adj
}

func (tc pccTGCNCase) name() string {
	return fmt.Sprintf("s%d_t%d_beta%g_%v", tc.dims.S, tc.dims.T, tc.beta, tc.act)
}

func testTangentGCN[T autodiff.Float](t *testing.T) {
	tol := pccTolOf[T]()
	for _, tc := range pccTGCNCases {
		t.Run(tc.name(), func(t *testing.T) {
			g, x, beta, adj := pccTGCNSetup[T](tc)
			var tp autodiff.Tape[T]
			y := g.Forward(&tp, x, beta, adj)
			if y.Value.Rows != x.Value.Rows || y.Value.Cols != tc.dims.Ambient() {
				t.Fatalf("output %d×%d", y.Value.Rows, y.Value.Cols)
			}
			adj64 := nn.GCNNorm[float64](adj.A.Rows, adj.A.Indptr, adj.A.Indices)
			want := pccTangentGCNRef(pccData(x), tc.beta, adj64.A.ToDense(), pccData(g.W), pccData(g.B), tc.dims, tc.act)
			pccCheckClose(t, "y", pccData(y), want, tol.fwd)
			// Points on Q: |⟨y,y⟩ − β| ≤ 1e-5·(1+‖y‖²) (DESIGN §4).
			for i, yi := range pccRows(pccData(y), tc.dims.Ambient()) {
				n2 := 0.0
				for _, v := range yi {
					n2 += v * v
				}
				if dev := math.Abs(manifold.Inner(yi, yi, tc.dims) - tc.beta); dev > 1e-5*(1+n2) {
					t.Errorf("row %d: |⟨y,y⟩ − β| = %.3g", i, dev)
				}
			}
			pccGradCheck(t, "TangentGCN", func(tp *autodiff.Tape[T]) *autodiff.Var[T] {
				return g.Forward(tp, x, beta, adj)
			}, append([]*autodiff.Var[T]{x, beta}, g.Params()...))
		})
	}
}

func TestTangentGCN(t *testing.T) {
	t.Run("float64", testTangentGCN[float64])
	t.Run("float32", testTangentGCN[float32])
}

// ForwardTangent(loĝ_o(x)) is loĝ_o(Forward(x)) of the reference layer,
// and its gradients match finite differences.
func testTangentGCNForwardTangent[T autodiff.Float](t *testing.T) {
	tol := pccTolOf[T]()
	for _, tc := range pccTGCNCases {
		t.Run(tc.name(), func(t *testing.T) {
			g, x, beta, adj := pccTGCNSetup[T](tc)
			d := tc.dims.Tangent()
			var zs []float64
			for _, xi := range pccRows(pccData(x), tc.dims.Ambient()) {
				zs = append(zs, manifold.LogOVec(xi, tc.beta, tc.dims)...)
			}
			z := pccLeaf[T]("z", x.Value.Rows, d, zs, true)
			var tp autodiff.Tape[T]
			got := g.ForwardTangent(&tp, z, beta, adj)
			adj64 := nn.GCNNorm[float64](adj.A.Rows, adj.A.Indptr, adj.A.Indices)
			var want []float64
			for _, yi := range pccRows(pccTangentGCNRef(pccData(x), tc.beta, adj64.A.ToDense(), pccData(g.W), pccData(g.B), tc.dims, tc.act), tc.dims.Ambient()) {
				want = append(want, manifold.LogOVec(yi, tc.beta, tc.dims)...)
			}
			pccCheckClose(t, "loĝ y", pccData(got), want, tol.fwd)
			pccGradCheck(t, "TangentGCN.ForwardTangent", func(tp *autodiff.Tape[T]) *autodiff.Var[T] {
				return g.ForwardTangent(tp, z, beta, adj)
			}, append([]*autodiff.Var[T]{z, beta}, g.Params()...))
		})
	}
}

func TestTangentGCNForwardTangent(t *testing.T) {
	t.Run("float64", testTangentGCNForwardTangent[float64])
	t.Run("float32", testTangentGCNForwardTangent[float32])
}

// TestTangentGCNGradientThroughRho checks the curvature path from ρ, with β
// shared by loĝ_o, exp̂_o and Proj_Q.
func TestTangentGCNGradientThroughRho(t *testing.T) {
	tc := pccTGCNCases[0]
	g, x, _, adj := pccTGCNSetup[float64](tc)
	rho := manifold.NewCurvatureParam[float64]("rho", tc.beta)
	pccGradCheck(t, "TangentGCN(ρ)", func(tp *autodiff.Tape[float64]) *autodiff.Var[float64] {
		return g.Forward(tp, x, manifold.Beta(tp, rho), adj)
	}, []*autodiff.Var[float64]{rho})
}

type pccTGCNStep struct {
	g      *TangentGCN[float32]
	x, rho *autodiff.Var[float32]
	adj    *tensor.Adjacency[float32]
	tp     autodiff.Tape[float32]
}

func newPCCTGCNStep(n, m int) *pccTGCNStep {
	dims := manifold.Dims{S: 9, T: 9}
	rng := rand.New(rand.NewPCG(7, 8))
	ptr, src := pccSparseGraph(rng, n, m)
	return &pccTGCNStep{
		g:   NewTangentGCN[float32]("tg", dims, rng),
		x:   pccLeaf[float32]("x", n, dims.Ambient(), pccPoints(rng, dims, -1, n), true),
		rho: manifold.NewCurvatureParam[float32]("rho", -1),
		adj: nn.GCNNorm[float32](n, ptr, src),
	}
}

func (s *pccTGCNStep) step() error {
	s.tp.Reset()
	beta := manifold.Beta(&s.tp, s.rho)
	y := s.g.Forward(&s.tp, s.x, beta, s.adj)
	return s.tp.Backward(autodiff.Sum(&s.tp, autodiff.Square(&s.tp, y)))
}

func TestTangentGCNStepAllocatesNothing(t *testing.T) {
	if pccRaceEnabled() {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	for _, tc := range []struct {
		name string
		n, m int
	}{{"small", 30, 40}, {"parallel", 1500, 3000}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPCCTGCNStep(tc.n, tc.m)
			for i := 0; i < 3; i++ {
				if err := s.step(); err != nil {
					t.Fatal(err)
				}
			}
			if a := testing.AllocsPerRun(10, func() { _ = s.step() }); a != 0 {
				t.Errorf("%v allocations per step, want 0", a)
			}
		})
	}
}

// BenchmarkTangentGCNStepCora is one forward+backward of the tangent GCN
// layer at Cora size (2708 nodes, ~5.3k undirected edges, s = t = 9).
func BenchmarkTangentGCNStepCora(b *testing.B) {
	s := newPCCTGCNStep(2708, 5278)
	_ = s.step()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.step(); err != nil {
			b.Fatal(err)
		}
	}
}
