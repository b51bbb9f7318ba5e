package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/nn"
)

// pccSquashRef is CapsNet's squash (paper Eq. caps_squashing_euclidean).
func pccSquashRef(s []float64) []float64 {
	n2 := 0.0
	for _, x := range s {
		n2 += x * x
	}
	out := make([]float64, len(s))
	if n2 == 0 {
		return out
	}
	k := math.Sqrt(n2) / (1 + n2)
	for i, x := range s {
		out[i] = k * x
	}
	return out
}

// pccRoutingRef is classic dynamic routing in float64, written from the
// paper's Eqs. caps_prediction_euclidean … caps_agreement_update_euclidean
// with explicit loops over links. It returns the parents (row-major) and the
// couplings of the last iteration (link order).
func pccRoutingRef(u, W, B []float64, d int, l *Links, cfg EuclideanRoutingConfig) (v, c []float64) {
	uh := make([][]float64, l.Children)
	for i := range uh {
		uh[i] = make([]float64, d)
		for k := 0; k < d; k++ {
			s := B[k]
			for j := 0; j < d; j++ {
				s += u[i*d+j] * W[j*d+k]
			}
			uh[i][k] = s
		}
	}
	E := l.NumLinks()
	parent := make([]int, E)
	for j := 0; j < l.Parents; j++ {
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			parent[e] = j
		}
	}
	b := make([]float64, E)
	c = make([]float64, E)
	v = make([]float64, l.Parents*d)
	for it := 0; it < cfg.Iters; it++ {
		// Softmax of b within groups: links of one parent, or of one child.
		group := func(e int) int {
			if cfg.Coupling == CouplingOverParents {
				return int(l.Child[e])
			}
			return parent[e]
		}
		den := map[int]float64{}
		for e := 0; e < E; e++ {
			den[group(e)] += math.Exp(b[e])
		}
		for e := 0; e < E; e++ {
			c[e] = math.Exp(b[e]) / den[group(e)]
		}
		for j := 0; j < l.Parents; j++ {
			s := make([]float64, d)
			for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
				for k := range s {
					s[k] += c[e] * uh[l.Child[e]][k]
				}
			}
			copy(v[j*d:], pccSquashRef(s))
		}
		for e := 0; e < E; e++ {
			for k := 0; k < d; k++ {
				b[e] += v[parent[e]*d+k] * uh[l.Child[e]][k]
			}
		}
	}
	return v, c
}

var pccRoutingCfgs = []EuclideanRoutingConfig{
	{Iters: 1},
	{Iters: 3},
	{Iters: 3, Coupling: CouplingOverParents},
	{Iters: 2, DetachB: true},
	{Iters: 4, Coupling: CouplingOverParents, DetachB: true},
}

func pccCfgName(c EuclideanRoutingConfig) string {
	return fmt.Sprintf("T%d_over%v_detach%v", c.Iters, c.Coupling, c.DetachB)
}

// pccRoutingSetup builds a layer, children and links: node-level links of a
// random graph with an isolated node, plus one child that no parent uses
// (bipartite links), so that empty segments occur on both sides.
func pccRoutingSetup[T autodiff.Float](cfg EuclideanRoutingConfig, d int, seed uint64, nodeLevel bool) (*EuclideanRouting[T], *autodiff.Var[T], *Links) {
	rng := rand.New(rand.NewPCG(seed, 11))
	r := NewEuclideanRouting[T]("eu", d, cfg, rng)
	nn.Uniform(r.B, -0.5, 0.5, rng)
	var l *Links
	if nodeLevel {
		ptr, src := pccRandomGraph(rng, 9, 12)
		l = NodeLinks(9, ptr, src)
	} else {
		// 7 children → 4 parents; child 6 has no parent, parent 2 none,
		// parent 3 one child.
		l = &Links{Parents: 4, Children: 7, Ptr: []int32{0, 4, 8, 8, 9}, Child: []int32{0, 1, 2, 3, 1, 3, 4, 5, 0}}
	}
	data := make([]float64, l.Children*d)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	u := pccLeaf[T]("u", l.Children, d, data, true)
	return r, u, l
}

func testEuclideanRoutingForward[T autodiff.Float](t *testing.T) {
	tol := pccTolOf[T]()
	for _, cfg := range pccRoutingCfgs {
		for _, node := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s_node%v", pccCfgName(cfg), node), func(t *testing.T) {
				d := 5
				r, u, l := pccRoutingSetup[T](cfg, d, 1, node)
				var tp autodiff.Tape[T]
				v, c := r.ForwardCouplings(&tp, u, l)
				if v.Value.Rows != l.Parents || v.Value.Cols != d {
					t.Fatalf("v is %d×%d, want %d×%d", v.Value.Rows, v.Value.Cols, l.Parents, d)
				}
				wv, wc := pccRoutingRef(pccData(u), pccData(r.W), pccData(r.B), d, l, cfg)
				pccCheckClose(t, "v", pccData(v), wv, tol.fwd)
				pccCheckClose(t, "c", pccData(c), wc, tol.fwd)
				// Forward records the same values.
				tp.Reset()
				pccCheckClose(t, "Forward", pccData(r.Forward(&tp, u, l)), wv, tol.fwd)
			})
		}
	}
}

func TestEuclideanRoutingForward(t *testing.T) {
	t.Run("float64", testEuclideanRoutingForward[float64])
	t.Run("float32", testEuclideanRoutingForward[float32])
}

func testEuclideanRoutingGradients[T autodiff.Float](t *testing.T) {
	for _, cfg := range pccRoutingCfgs {
		if cfg.DetachB {
			continue // the stop-gradient is not the derivative of the forward
		}
		for _, node := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s_node%v", pccCfgName(cfg), node), func(t *testing.T) {
				r, u, l := pccRoutingSetup[T](cfg, 4, 2, node)
				pccGradCheck(t, "EuclideanRouting", func(tp *autodiff.Tape[T]) *autodiff.Var[T] {
					return r.Forward(tp, u, l)
				}, append([]*autodiff.Var[T]{u}, r.Params()...))
			})
		}
	}
}

func TestEuclideanRoutingGradients(t *testing.T) {
	t.Run("float64", testEuclideanRoutingGradients[float64])
	t.Run("float32", testEuclideanRoutingGradients[float32])
}

// TestEuclideanRoutingDetachB: with DetachB the couplings are constants of
// the backward pass, so the gradient equals that of s_j = Σ_i c*_ij û_i with
// c* fixed at their forward values — checked by feeding the recorded
// couplings back as constants.
func TestEuclideanRoutingDetachB(t *testing.T) {
	cfg := EuclideanRoutingConfig{Iters: 3, DetachB: true}
	r, u, l := pccRoutingSetup[float64](cfg, 4, 3, true)
	var tp autodiff.Tape[float64]
	v, c := r.ForwardCouplings(&tp, u, l)
	cStar := pccLeaf[float64]("c*", c.Value.Rows, 1, pccData(c), false)
	seed := v.Value.Clone()
	for i := range seed.Data {
		seed.Data[i] = math.Sin(float64(i))
	}
	grads := func(build func(tp *autodiff.Tape[float64]) *autodiff.Var[float64]) []float64 {
		for _, p := range append([]*autodiff.Var[float64]{u}, r.Params()...) {
			p.ZeroGrad()
		}
		var tp autodiff.Tape[float64]
		if err := tp.BackwardSeeded(build(&tp), seed); err != nil {
			t.Fatal(err)
		}
		return append(append(pccData2(u.Grad.Data), pccData2(r.W.Grad.Data)...), pccData2(r.B.Grad.Data)...)
	}
	got := grads(func(tp *autodiff.Tape[float64]) *autodiff.Var[float64] { return r.Forward(tp, u, l) })
	want := grads(func(tp *autodiff.Tape[float64]) *autodiff.Var[float64] {
		ue := autodiff.GatherRows(tp, autodiff.Add(tp, autodiff.MatMul(tp, u, r.W), r.B), l.Child)
		s := autodiff.ScatterAddRows(tp, autodiff.Mul(tp, ue, cStar), l.Ptr)
		return pccSquashVar(tp, s)
	})
	pccCheckClose(t, "detached gradient", got, want, 1e-12)
}

func pccData2(x []float64) []float64 { return append([]float64(nil), x...) }

// pccSquashVar is squash from generic autodiff ops: s·‖s‖/(1+‖s‖²).
func pccSquashVar(tp *autodiff.Tape[float64], s *autodiff.Var[float64]) *autodiff.Var[float64] {
	n2 := autodiff.RowSum(tp, autodiff.Square(tp, s))
	k := autodiff.Div(tp, autodiff.Sqrt(tp, n2, 0), autodiff.AddScalar(tp, n2, 1))
	return autodiff.Mul(tp, s, k)
}

// TestEuclideanRoutingInvariants: couplings sum to 1 over each parent's
// children (or each child's parents), parents have norm < 1, and T = 1 is
// the squashed plain mean of the predictions over each parent's children.
func TestEuclideanRoutingInvariants(t *testing.T) {
	d := 6
	for _, cfg := range pccRoutingCfgs {
		t.Run(pccCfgName(cfg), func(t *testing.T) {
			r, u, l := pccRoutingSetup[float32](cfg, d, 4, true)
			// Scale the predictions up so that squash saturates.
			nn.Uniform(r.W, -2, 2, rand.New(rand.NewPCG(1, 2)))
			var tp autodiff.Tape[float32]
			v, c := r.ForwardCouplings(&tp, u, l)
			sums := make([]float64, max(l.Parents, l.Children))
			for j := 0; j < l.Parents; j++ {
				for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
					if cfg.Coupling == CouplingOverParents {
						sums[l.Child[e]] += float64(c.Value.Data[e])
					} else {
						sums[j] += float64(c.Value.Data[e])
					}
				}
			}
			for k, s := range sums {
				if math.Abs(s-1) > 1e-5 {
					t.Errorf("couplings of segment %d sum to %v", k, s)
				}
			}
			for j := 0; j < l.Parents; j++ {
				n2 := 0.0
				for _, x := range v.Value.Row(j) {
					n2 += float64(x) * float64(x)
				}
				if !(math.Sqrt(n2) < 1) {
					t.Errorf("‖v_%d‖ = %v, want < 1", j, math.Sqrt(n2))
				}
			}
			if cfg.Iters != 1 || cfg.Coupling == CouplingOverParents {
				return
			}
			// T = 1: v_j = squash(mean_i û_i).
			uh := pccData(autodiff.Add(&tp, autodiff.MatMul(&tp, u, r.W), r.B))
			for j := 0; j < l.Parents; j++ {
				s := make([]float64, d)
				cnt := float64(l.Ptr[j+1] - l.Ptr[j])
				for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
					for k := range s {
						s[k] += uh[int(l.Child[e])*d+k] / cnt
					}
				}
				pccCheckClose(t, fmt.Sprintf("v_%d", j), pccData2(pccRowF64(v.Value.Row(j))), pccSquashRef(s), 1e-5)
			}
		})
	}
}

func pccRowF64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// pccRoutingStep is one forward+backward of Euclidean routing with a sum
// loss.
type pccRoutingStep struct {
	r  *EuclideanRouting[float32]
	u  *autodiff.Var[float32]
	l  *Links
	tp autodiff.Tape[float32]
}

// newPCCRoutingStep builds node-level links on a random graph with about
// m undirected edges on n nodes (Cora: n = 2708, m = 5278 gives ~13.3k
// links with the self-loops).
func newPCCRoutingStep(n, m, d int, cfg EuclideanRoutingConfig) *pccRoutingStep {
	rng := rand.New(rand.NewPCG(5, 6))
	ptr, src := pccSparseGraph(rng, n, m)
	s := &pccRoutingStep{r: NewEuclideanRouting[float32]("eu", d, cfg, rng), l: NodeLinks(n, ptr, src)}
	data := make([]float64, n*d)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	s.u = pccLeaf[float32]("u", n, d, data, true)
	return s
}

func (s *pccRoutingStep) step() error {
	s.tp.Reset()
	return s.tp.Backward(autodiff.Sum(&s.tp, autodiff.Square(&s.tp, s.r.Forward(&s.tp, s.u, s.l))))
}

func TestEuclideanRoutingStepAllocatesNothing(t *testing.T) {
	if pccRaceEnabled() {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	for _, tc := range []struct {
		name string
		n, m int
		cfg  EuclideanRoutingConfig
	}{
		{"small", 30, 40, EuclideanRoutingConfig{Iters: 3}},
		{"parallel", 1500, 3000, EuclideanRoutingConfig{Iters: 3}},
		{"overParents", 1500, 3000, EuclideanRoutingConfig{Iters: 3, Coupling: CouplingOverParents}},
		{"detach", 1500, 3000, EuclideanRoutingConfig{Iters: 2, DetachB: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPCCRoutingStep(tc.n, tc.m, 8, tc.cfg)
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

// BenchmarkEuclideanRoutingStepCora is one forward+backward of node-level
// Euclidean routing (T = 3, d = 18) at Cora size: 2708 nodes, ~13.3k links.
func BenchmarkEuclideanRoutingStepCora(b *testing.B) {
	for _, cfg := range []EuclideanRoutingConfig{{Iters: 3}, {Iters: 3, Coupling: CouplingOverParents}} {
		b.Run(pccCfgName(cfg), func(b *testing.B) {
			s := newPCCRoutingStep(2708, 5278, 18, cfg)
			_ = s.step()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.l.NumLinks()), "links")
		})
	}
}
