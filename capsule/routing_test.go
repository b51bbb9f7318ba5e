package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/tensor"
)

func routingRaceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// smallRoutingConfig keeps the parameter count small enough for finite
// differences: s = 2, t = 2, K = 3, d_align = 3.
func smallRoutingConfig() RoutingConfig {
	cfg := DefaultRoutingConfig()
	cfg.Dims = manifold.Dims{S: 2, T: 2}
	cfg.K = 3
	cfg.AlignDim = 3
	return cfg
}

// perturbRouting adds U(±scale) to every weight-decayed parameter, so that
// biases, W^C and the α's are generic.
func perturbRouting[T autodiff.Float](r *Routing[T], rng *rand.Rand, scale float64) {
	for _, p := range r.Params() {
		for i := range p.Value.Data {
			p.Value.Data[i] += T(scale * (2*rng.Float64() - 1))
		}
	}
}

func newTestRouting[T autodiff.Float](t testing.TB, cfg RoutingConfig, seed uint64) *Routing[T] {
	t.Helper()
	r, err := NewRouting[T]("r", cfg, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatal(err)
	}
	perturbRouting(r, rand.New(rand.NewPCG(seed, 8)), 0.3)
	return r
}

type routingCase struct {
	name  string
	cfg   RoutingConfig
	links func() *Links
}

func routingCases() []routingCase {
	var cs []routingCase
	add := func(name string, f func(c *RoutingConfig)) {
		cfg := smallRoutingConfig()
		f(&cfg)
		cs = append(cs, routingCase{name + "/graph", cfg, routingTestGraph}, routingCase{name + "/bipartite", cfg, bipartiteTestLinks})
	}
	add("acr", func(c *RoutingConfig) {})
	add("pcr", func(c *RoutingConfig) { c.Kind = PCR })
	add("parents", func(c *RoutingConfig) { c.Coupling = CouplingOverParents })
	add("noC", func(c *RoutingConfig) { c.NoC = true })
	add("noA", func(c *RoutingConfig) { c.NoA = true })
	add("noR", func(c *RoutingConfig) { c.NoR = true })
	add("noCAR", func(c *RoutingConfig) { c.NoC, c.NoA, c.NoR = true, true, true })
	add("T1", func(c *RoutingConfig) { c.Iters = 1 })
	add("tanh_T4", func(c *RoutingConfig) { c.Activation, c.Iters = manifold.ActTanh, 4 })
	add("s0_K1", func(c *RoutingConfig) { c.Dims, c.K = manifold.Dims{S: 0, T: 3}, 1 })
	// Extreme β_k (the default extension gives −8, −16) make their gates
	// vanish (σ of about −β_k²/2), leaving gradients below finite-difference
	// resolution; the extension itself is tested in TestNewRoutingValidation.
	add("K6", func(c *RoutingConfig) { c.K, c.PerspectiveBetas = 6, []float64{-0.5, -0.7, -1, -1.4, -2, -2.8} })
	return cs
}

func routeOnce[T autodiff.Float](r *Routing[T], tp *autodiff.Tape[T], u [][]float64, beta float64, l *Links) *autodiff.Var[T] {
	uv := autodiff.NewVar(denseFromRows[T](u), false)
	bv := autodiff.NewVar(denseFromRows[T]([][]float64{{beta}}), false)
	return r.Forward(tp, uv, bv, l)
}

func TestRoutingMatchesReference(t *testing.T) {
	for _, tc := range routingCases() {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.links()
			beta := -1.3
			rng := rand.New(rand.NewPCG(3, 3))
			// Norms up to 4 > π·r_k for β_k = −0.5: some predictions wrap.
			u := randTangentPoints(rng, l.Children, beta, tc.cfg.Dims, 0.2, 4)
			r64 := newTestRouting[float64](t, tc.cfg, 1)
			r32 := newTestRouting[float32](t, tc.cfg, 1)
			copyRoutingParams(r32, r64)
			want, _ := refRouting(r64, u, beta, l)
			var tp64 autodiff.Tape[float64]
			var tp32 autodiff.Tape[float32]
			got64 := routeOnce(r64, &tp64, u, beta, l)
			got32 := routeOnce(r32, &tp32, u, beta, l)
			D := tc.cfg.Dims.Ambient()
			for j, w := range want {
				for c, x := range w {
					if g := got64.Value.Data[j*D+c]; math.Abs(g-x) > 1e-10*(1+math.Abs(x)) {
						t.Fatalf("float64 v[%d][%d] = %v, reference %v", j, c, g, x)
					}
					if g := float64(got32.Value.Data[j*D+c]); math.Abs(g-x) > 2e-4*(1+math.Abs(x)) {
						t.Fatalf("float32 v[%d][%d] = %v, reference %v", j, c, g, x)
					}
				}
			}
		})
	}
}

// The default configuration (s = t = 9, K = 4, d_align = 16) on the graph.
func TestRoutingDefaultConfigMatchesReference(t *testing.T) {
	cfg := DefaultRoutingConfig()
	l := routingTestGraph()
	u := randTangentPoints(rand.New(rand.NewPCG(5, 5)), l.Children, -1, cfg.Dims, 0.5, 3)
	r := newTestRouting[float64](t, cfg, 2)
	want, _ := refRouting(r, u, -1, l)
	var tp autodiff.Tape[float64]
	got := routeOnce(r, &tp, u, -1, l)
	for j, w := range want {
		for c, x := range w {
			if g := got.Value.At(j, c); math.Abs(g-x) > 1e-10*(1+math.Abs(x)) {
				t.Fatalf("v[%d][%d] = %v, reference %v", j, c, g, x)
			}
		}
	}
}

// routingGradCheck checks the gradients of every parameter of a freshly
// initialised (and perturbed) layer, of u and of β, against central finite
// differences in float64.
func routingGradCheck(t *testing.T, cfg RoutingConfig, l *Links) (float64, *Routing[float64]) {
	t.Helper()
	beta := -1.3
	u := randTangentPoints(rand.New(rand.NewPCG(4, 4)), l.Children, beta, cfg.Dims, 0.3, 1.2)
	r := newTestRouting[float64](t, cfg, 3)
	uv := autodiff.NewVar(denseFromRows[float64](u), true)
	uv.Name = "u"
	bv := autodiff.NewVar(denseFromRows[float64]([][]float64{{beta}}), true)
	bv.Name = "beta"
	inputs := append(r.Params(), r.CurvatureParams()...)
	inputs = append(inputs, uv, bv)
	rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
		return r.Forward(tp, uv, bv, l), nil
	}, inputs, 1e-5) // step 1e-5: the α gradients are ~1e-5, so a smaller step drowns them in rounding
	if err != nil {
		t.Fatal(err)
	}
	return rel, r
}

func TestRoutingGradients(t *testing.T) {
	for _, tc := range routingCases() {
		t.Run(tc.name, func(t *testing.T) {
			rel, _ := routingGradCheck(t, tc.cfg, tc.links())
			if rel > 1e-6 {
				t.Fatalf("relative gradient error %.3g > 1e-6", rel)
			}
		})
	}
}

// With DetachB the forward pass is unchanged but gradients no longer flow
// through the b updates, so they differ from the full ones (and from
// finite differences).
func TestRoutingDetachB(t *testing.T) {
	cfg := smallRoutingConfig()
	l := routingTestGraph()
	u := randTangentPoints(rand.New(rand.NewPCG(4, 4)), l.Children, -1, cfg.Dims, 0.3, 1.2)
	cfgD := cfg
	cfgD.DetachB = true
	ra := newTestRouting[float64](t, cfg, 3)
	rb := newTestRouting[float64](t, cfgD, 3)
	var ta, tb autodiff.Tape[float64]
	uv := autodiff.NewVar(denseFromRows[float64](u), true)
	bv := autodiff.NewVar(denseFromRows[float64]([][]float64{{-1}}), false)
	va := ra.Forward(&ta, uv, bv, l)
	grad := func(tp *autodiff.Tape[float64], v *autodiff.Var[float64]) []float64 {
		uv.ZeroGrad()
		if err := tp.BackwardSeeded(v, nil); err != nil {
			t.Fatal(err)
		}
		return append([]float64(nil), uv.Grad.Data...)
	}
	ga := grad(&ta, va)
	vb := rb.Forward(&tb, uv, bv, l)
	gb := grad(&tb, vb)
	for i := range va.Value.Data {
		if va.Value.Data[i] != vb.Value.Data[i] {
			t.Fatalf("DetachB changes the forward output at %d", i)
		}
	}
	diff := 0.0
	for i := range ga {
		if math.IsNaN(gb[i]) || math.IsInf(gb[i], 0) {
			t.Fatal("non-finite gradient with DetachB")
		}
		diff = math.Max(diff, math.Abs(ga[i]-gb[i]))
	}
	if diff < 1e-6 {
		t.Fatalf("DetachB leaves the gradient unchanged (max diff %g)", diff)
	}
}

// Each removed gate term changes the output.
func TestRoutingAblationsChangeOutput(t *testing.T) {
	l := routingTestGraph()
	base := smallRoutingConfig()
	u := randTangentPoints(rand.New(rand.NewPCG(6, 6)), l.Children, -1, base.Dims, 0.3, 2)
	run := func(cfg RoutingConfig) []float64 {
		r := newTestRouting[float64](t, cfg, 9)
		var tp autodiff.Tape[float64]
		return append([]float64(nil), routeOnce(r, &tp, u, -1, l).Value.Data...)
	}
	full := run(base)
	for _, f := range []func(c *RoutingConfig){
		func(c *RoutingConfig) { c.NoC = true },
		func(c *RoutingConfig) { c.NoA = true },
		func(c *RoutingConfig) { c.NoR = true },
	} {
		cfg := base
		f(&cfg)
		got := run(cfg)
		diff := 0.0
		for i := range got {
			diff = math.Max(diff, math.Abs(got[i]-full[i]))
		}
		if diff < 1e-6 {
			t.Errorf("%+v: output unchanged (max diff %g)", cfg, diff)
		}
	}
}

// Σ_{i,k} c_ij γ_ijk = 1 for every parent with children under the default
// coupling: with all predictions equal to one vector x (W = 0, b_k = x), every
// such parent's aggregate is S_j = x, so v_j = Proj_Q(exp̂(σ(loĝ(exp̂(x))))).
func TestRoutingWeightsSumToOne(t *testing.T) {
	for _, mk := range []func() *Links{routingTestGraph, bipartiteTestLinks} {
		l := mk()
		cfg := smallRoutingConfig()
		r := newTestRouting[float64](t, cfg, 4)
		x := []float64{0.3, -0.7, 0.9, 0.2}
		for k := 0; k < r.K; k++ {
			nn.Fill(r.Wsph[k], 0)
			nn.Fill(r.Weuc[k], 0)
			copy(r.B[k].Value.Data, x)
		}
		beta := -0.8
		u := randTangentPoints(rand.New(rand.NewPCG(7, 7)), l.Children, beta, cfg.Dims, 0.3, 2)
		var tp autodiff.Tape[float64]
		got := routeOnce(r, &tp, u, beta, l)
		act := manifold.ActivateVec(manifold.LogOVec(manifold.ExpOVec(x, beta, cfg.Dims), beta, cfg.Dims), cfg.Activation)
		want := manifold.ProjQVec(manifold.ExpOVec(act, beta, cfg.Dims), beta, cfg.Dims)
		for j := 0; j < l.Parents; j++ {
			if l.Ptr[j] == l.Ptr[j+1] {
				continue
			}
			for c, w := range want {
				if g := got.Value.At(j, c); math.Abs(g-w) > 1e-12 {
					t.Fatalf("parent %d: v[%d] = %v, want %v", j, c, g, w)
				}
			}
		}
		// The reference's own per-parent mass agrees.
		_, mass := refRouting(r, u, beta, l)
		for j, m := range mass {
			if l.Ptr[j] < l.Ptr[j+1] && math.Abs(m-1) > 1e-12 {
				t.Fatalf("parent %d: Σ c γ = %v", j, m)
			}
		}
	}
}

// Outputs lie on Q in float32, and stay finite for large inputs, in both
// gradients and values.
func TestRoutingOnQAndLargeInputs(t *testing.T) {
	cfg := DefaultRoutingConfig()
	l := routingTestGraph()
	for _, scale := range []float64{0.5, 5, 1e3, 1e5} {
		t.Run(fmt.Sprint(scale), func(t *testing.T) {
			beta := -0.7
			u := randTangentPoints(rand.New(rand.NewPCG(8, 8)), l.Children, beta, cfg.Dims, scale/2, scale)
			r := newTestRouting[float32](t, cfg, 5)
			var tp autodiff.Tape[float32]
			uv := autodiff.NewVar(denseFromRows[float32](u), true)
			bv := autodiff.NewVar(denseFromRows[float32]([][]float64{{beta}}), true)
			v := r.Forward(&tp, uv, bv, l)
			D := cfg.Dims.Ambient()
			for j := 0; j < l.Parents; j++ {
				row := make([]float64, D)
				n2 := 0.0
				for c := range row {
					row[c] = float64(v.Value.At(j, c))
					n2 += row[c] * row[c]
				}
				if q := manifold.Inner(row, row, cfg.Dims); math.Abs(q-beta) > 1e-5*(1+n2) {
					t.Fatalf("parent %d: ⟨v,v⟩ = %v, β = %v", j, q, beta)
				}
			}
			if err := tp.BackwardSeeded(v, nil); err != nil {
				t.Fatal(err)
			}
			for _, p := range append(append(r.Params(), r.CurvatureParams()...), uv, bv) {
				for _, g := range p.Grad.Data {
					if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) {
						t.Fatalf("%s: non-finite gradient", p.Name)
					}
				}
			}
		})
	}
}

// An isolated node (only its self-loop) routes its own prediction: with one
// child, c = 1 and γ normalised, so v = f(Σ_k γ_k ξ_k) — checked against the
// reference, including a parent with a single foreign child.
func TestRoutingSingleChild(t *testing.T) {
	cfg := smallRoutingConfig()
	l := &Links{Parents: 2, Children: 2, Ptr: []int32{0, 1, 2}, Child: []int32{1, 1}}
	u := randTangentPoints(rand.New(rand.NewPCG(9, 9)), 2, -1, cfg.Dims, 0.5, 1)
	r := newTestRouting[float64](t, cfg, 6)
	var tp autodiff.Tape[float64]
	got := routeOnce(r, &tp, u, -1, l)
	want, _ := refRouting(r, u, -1, l)
	for j := range want {
		for c, w := range want[j] {
			if g := got.Value.At(j, c); math.Abs(g-w) > 1e-12 {
				t.Fatalf("v[%d][%d] = %v, want %v", j, c, g, w)
			}
		}
	}
	// Both parents see the same single child with the same history.
	for c := range want[0] {
		if got.Value.At(0, c) != got.Value.At(1, c) {
			t.Fatal("parents with the same single child differ")
		}
	}
}

func TestNewRoutingValidation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, f := range []func(c *RoutingConfig){
		func(c *RoutingConfig) { c.K = -1 },
		func(c *RoutingConfig) { c.Iters = -2 },
		func(c *RoutingConfig) { c.Dims = manifold.Dims{S: 3, T: 0} },
		func(c *RoutingConfig) { c.Kind = 7 },
		func(c *RoutingConfig) { c.Coupling = 3 },
		func(c *RoutingConfig) { c.PerspectiveBetas = []float64{0.5} },
		func(c *RoutingConfig) { c.Init = 2 },
		// Zero is not a default: DefaultRoutingConfig writes the defaults.
		func(c *RoutingConfig) { c.K = 0 },
		func(c *RoutingConfig) { c.Iters = 0 },
		func(c *RoutingConfig) { c.AlignDim = 0 },
		func(c *RoutingConfig) { c.Dims = manifold.Dims{} },
		func(c *RoutingConfig) { c.PerspectiveBetas = nil },
	} {
		cfg := DefaultRoutingConfig()
		f(&cfg)
		if _, err := NewRouting[float32]("r", cfg, rng); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	cfg := DefaultRoutingConfig()
	cfg.K = 6
	r, err := NewRouting[float64]("r", cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-0.5, -1, -2, -4, -8, -16}
	for k, rho := range r.CurvatureParams() {
		if b := manifold.BetaFromRho(rho.Value.Data[0]); math.Abs(b-want[k]) > 1e-12 {
			t.Errorf("β_%d = %v, want %v", k, b, want[k])
		}
	}
	cfg.Kind = PCR
	r, err = NewRouting[float64]("r", cfg, rng)
	if err != nil || r.K != 1 || len(r.CurvatureParams()) != 0 || len(r.Params()) != 3 {
		t.Fatalf("PCR: K = %d, %d curvature params, %d params, err %v", r.K, len(r.CurvatureParams()), len(r.Params()), err)
	}
}

// ---------------------------------------------------------------- allocation and speed

// coraLikeLinks is a random graph with Cora's size: 2708 nodes, 5278
// undirected edges (10556 arcs), plus self-loops: about 13.3k links.
func coraLikeLinks() *Links {
	n, m := 2708, 5278
	rng := rand.New(rand.NewPCG(42, 42))
	adj := make([]map[int32]bool, n)
	for i := range adj {
		adj[i] = map[int32]bool{}
	}
	for e := 0; e < m; {
		// Preferential-ish degrees: square a uniform to skew towards low ids.
		u := int32(float64(n) * math.Pow(rng.Float64(), 2))
		v := int32(rng.IntN(n))
		if u == v || adj[u][v] {
			continue
		}
		adj[u][v], adj[v][u] = true, true
		e++
	}
	ptr := []int32{0}
	var src []int32
	for v := 0; v < n; v++ {
		for u := 0; u < n && len(adj[v]) > 0; u++ {
			if adj[v][int32(u)] {
				src = append(src, int32(u))
			}
		}
		ptr = append(ptr, int32(len(src)))
	}
	return NodeLinks(n, ptr, src)
}

type routingBench struct {
	r    *Routing[float32]
	u    *autodiff.Var[float32]
	rho  *autodiff.Var[float32]
	l    *Links
	tp   autodiff.Tape[float32]
	seed *tensor.Dense[float32]
}

func newRoutingBench(t testing.TB, cfg RoutingConfig, l *Links) *routingBench {
	b := &routingBench{r: newTestRouting[float32](t, cfg, 1), l: l}
	u := randTangentPoints(rand.New(rand.NewPCG(1, 1)), l.Children, -1, cfg.Dims, 0.3, 2)
	b.u = autodiff.NewVar(denseFromRows[float32](u), true)
	b.rho = manifold.NewCurvatureParam[float32]("rho", -1)
	b.seed = tensor.NewDense[float32](l.Parents, cfg.Dims.Ambient())
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range b.seed.Data {
		b.seed.Data[i] = float32(rng.NormFloat64())
	}
	return b
}

func (b *routingBench) step(t testing.TB) {
	b.tp.Reset()
	beta := manifold.Beta(&b.tp, b.rho)
	v := b.r.Forward(&b.tp, b.u, beta, b.l)
	if err := b.tp.BackwardSeeded(v, b.seed); err != nil {
		t.Fatal(err)
	}
}

func TestRoutingAllocatesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    *Links
		f    func(c *RoutingConfig)
	}{
		{"small", routingTestGraph(), func(c *RoutingConfig) {}},
		{"small_pcr_parents_detach", routingTestGraph(), func(c *RoutingConfig) { c.Kind, c.Coupling, c.DetachB = PCR, CouplingOverParents, true }},
		{"parallel", coraLikeLinks(), func(c *RoutingConfig) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultRoutingConfig()
			tc.f(&cfg)
			b := newRoutingBench(t, cfg, tc.l)
			for i := 0; i < 3; i++ {
				b.step(t)
			}
			if n := testing.AllocsPerRun(10, func() { b.step(t) }); n != 0 && !routingRaceEnabled() {
				t.Fatalf("steady-state forward+backward allocates %v times", n)
			}
		})
	}
}

// BenchmarkRoutingCora is one forward+backward pass of the default ACR layer
// (s = t = 9, K = 4, T = 3) on a Cora-sized graph (2708 nodes, ≈13.3k links
// with self-loops).
func BenchmarkRoutingCora(b *testing.B) {
	rb := newRoutingBench(b, DefaultRoutingConfig(), coraLikeLinks())
	rb.step(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rb.step(b)
	}
}

// BenchmarkRoutingCoraForward is the forward pass alone (evaluation).
func BenchmarkRoutingCoraForward(b *testing.B) {
	rb := newRoutingBench(b, DefaultRoutingConfig(), coraLikeLinks())
	rb.tp.NoGrad = true
	beta := autodiff.NewVar(denseFromRows[float32]([][]float64{{-1}}), false)
	rb.r.Forward(&rb.tp, rb.u, beta, rb.l)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rb.tp.Reset()
		rb.r.Forward(&rb.tp, rb.u, beta, rb.l)
	}
}

// BenchmarkRoutingCoraPCR is BenchmarkRoutingCora for PCR.
func BenchmarkRoutingCoraPCR(b *testing.B) {
	cfg := DefaultRoutingConfig()
	cfg.Kind = PCR
	rb := newRoutingBench(b, cfg, coraLikeLinks())
	rb.step(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rb.step(b)
	}
}

// The index cache is bounded: fresh Links per call (one per mini-batch)
// evict the oldest entries.
func TestRoutingLinkCacheBounded(t *testing.T) {
	var c linkCache
	keep := routingTestGraph()
	first := c.get(keep)
	if c.get(keep) != first {
		t.Fatal("cache miss on the same Links")
	}
	for i := 0; i < linkCacheSize+10; i++ {
		c.get(&Links{Parents: 1, Children: 1, Ptr: []int32{0, 1}, Child: []int32{0}})
	}
	if len(c.m) > linkCacheSize || len(c.order) > linkCacheSize {
		t.Fatalf("cache holds %d entries", len(c.m))
	}
	if _, ok := c.m[keep]; ok {
		t.Fatal("the oldest entry was not evicted")
	}
}

// randomLinks is NodeLinks of a random graph on n nodes with m undirected
// edges.
func randomLinks(n, m int, seed uint64) *Links {
	rng := rand.New(rand.NewPCG(seed, 1))
	in := make([]map[int32]bool, n)
	for i := range in {
		in[i] = map[int32]bool{}
	}
	for e := 0; e < m; {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v || in[u][v] {
			continue
		}
		in[u][v], in[v][u] = true, true
		e++
	}
	ptr := []int32{0}
	var src []int32
	for v := 0; v < n; v++ {
		for u := int32(0); u < int32(n); u++ {
			if in[v][u] {
				src = append(src, u)
			}
		}
		ptr = append(ptr, int32(len(src)))
	}
	return NodeLinks(n, ptr, src)
}

// On a graph large enough for every kernel to split its work, the layer
// still matches the reference, and its gradients do not depend on the number
// of goroutines.
func TestRoutingParallelMatchesSerial(t *testing.T) {
	l := randomLinks(400, 1200, 3)
	cfg := DefaultRoutingConfig()
	beta := -1.1
	u := randTangentPoints(rand.New(rand.NewPCG(12, 12)), l.Children, beta, cfg.Dims, 0.3, 2.5)
	r := newTestRouting[float64](t, cfg, 8)
	want, _ := refRouting(r, u, beta, l)
	run := func(procs int) ([]float64, [][]float64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var tp autodiff.Tape[float64]
		uv := autodiff.NewVar(denseFromRows[float64](u), true)
		bv := autodiff.NewVar(denseFromRows[float64]([][]float64{{beta}}), true)
		ps := append(append(r.Params(), r.CurvatureParams()...), uv, bv)
		for _, p := range ps {
			p.ZeroGrad()
		}
		v := r.Forward(&tp, uv, bv, l)
		if err := tp.BackwardSeeded(v, nil); err != nil {
			t.Fatal(err)
		}
		var gs [][]float64
		for _, p := range ps {
			gs = append(gs, append([]float64(nil), p.Grad.Data...))
		}
		return append([]float64(nil), v.Value.Data...), gs
	}
	v1, g1 := run(1)
	v4, g4 := run(4)
	D := cfg.Dims.Ambient()
	for j, w := range want {
		for c, x := range w {
			if math.Abs(v4[j*D+c]-x) > 1e-10*(1+math.Abs(x)) || v1[j*D+c] != v4[j*D+c] {
				t.Fatalf("v[%d][%d]: serial %v, parallel %v, reference %v", j, c, v1[j*D+c], v4[j*D+c], x)
			}
		}
	}
	for n := range g1 {
		for i := range g1[n] {
			if math.Abs(g1[n][i]-g4[n][i]) > 1e-12*(1+math.Abs(g1[n][i])) {
				t.Fatalf("input %d gradient %d: serial %v, parallel %v", n, i, g1[n][i], g4[n][i])
			}
		}
	}
}

// The fused prediction and gate ops agree with their composition from
// elementary ops, in values and in every gradient.
func TestRoutingFusedMatchesComposed(t *testing.T) {
	for _, tc := range routingCases() {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.links()
			beta := -1.2
			// Norms up to 4: some predictions take the wrap's second branch.
			u := randTangentPoints(rand.New(rand.NewPCG(13, 13)), l.Children, beta, tc.cfg.Dims, 0.3, 4)
			r := newTestRouting[float64](t, tc.cfg, 10)
			run := func(composed bool) ([]float64, []float64) {
				r.composed = composed
				defer func() { r.composed = false }()
				var tp autodiff.Tape[float64]
				uv := autodiff.NewVar(denseFromRows[float64](u), true)
				bv := autodiff.NewVar(denseFromRows[float64]([][]float64{{beta}}), true)
				ps := append(append(r.Params(), r.CurvatureParams()...), uv, bv)
				for _, p := range ps {
					p.ZeroGrad()
				}
				v := r.Forward(&tp, uv, bv, l)
				if err := tp.BackwardSeeded(v, nil); err != nil {
					t.Fatal(err)
				}
				var g []float64
				for _, p := range ps {
					g = append(g, p.Grad.Data...)
				}
				return append([]float64(nil), v.Value.Data...), g
			}
			v1, g1 := run(false)
			v2, g2 := run(true)
			for i := range v1 {
				if math.Abs(v1[i]-v2[i]) > 1e-12*(1+math.Abs(v2[i])) {
					t.Fatalf("value %d: fused %v, composed %v", i, v1[i], v2[i])
				}
			}
			for i := range g1 {
				if math.Abs(g1[i]-g2[i]) > 1e-10*(1+math.Abs(g2[i])) {
					t.Fatalf("gradient %d: fused %v, composed %v", i, g1[i], g2[i])
				}
			}
		})
	}
}

// Parents without children get S = 0, hence the pole; no links at all is
// not an error.
func TestRoutingNoLinks(t *testing.T) {
	cfg := smallRoutingConfig()
	l := &Links{Parents: 2, Children: 3, Ptr: []int32{0, 0, 0}}
	u := randTangentPoints(rand.New(rand.NewPCG(1, 3)), 3, -2, cfg.Dims, 0.5, 1)
	r := newTestRouting[float64](t, cfg, 1)
	var tp autodiff.Tape[float64]
	uv := autodiff.NewVar(denseFromRows[float64](u), true)
	bv := autodiff.NewVar(denseFromRows[float64]([][]float64{{-2}}), true)
	v := r.Forward(&tp, uv, bv, l)
	for j := 0; j < 2; j++ {
		for c := 0; c < cfg.Dims.Ambient(); c++ {
			want := 0.0
			if c == 0 {
				want = math.Sqrt(2)
			}
			if g := v.Value.At(j, c); math.Abs(g-want) > 1e-12 {
				t.Fatalf("v[%d][%d] = %v, want %v", j, c, g, want)
			}
		}
	}
	if err := tp.BackwardSeeded(v, nil); err != nil {
		t.Fatal(err)
	}
}
