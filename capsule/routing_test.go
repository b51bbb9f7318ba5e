package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
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

// ---------------------------------------------------------------- ops

func randVar[T autodiff.Float](rng *rand.Rand, name string, r, c int, scale float64) *autodiff.Var[T] {
	m := tensor.NewDense[T](r, c)
	for i := range m.Data {
		m.Data[i] = T(scale * rng.NormFloat64())
	}
	v := autodiff.NewVar(m, true)
	v.Name = name
	return v
}

func linkOpsGradCheck[T autodiff.Float](t *testing.T, eps, tol float64) {
	for _, mk := range []func() *Links{routingTestGraph, bipartiteTestLinks} {
		l := mk()
		ix, err := newLinkIndex(l)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(11, 11))
		C, P, E := l.Children, l.Parents, l.NumLinks()
		K, d, m := 3, 5, 4
		a := randVar[T](rng, "a", C, d, 1)
		z := randVar[T](rng, "z", P, d, 1)
		x := randVar[T](rng, "x", C, K*d, 1)
		w := randVar[T](rng, "w", E, K, 1)
		p1 := randVar[T](rng, "p1", C, K*m, 0.7)
		p2 := randVar[T](rng, "p2", P, K*m, 0.7)
		aw := randVar[T](rng, "aw", K, m, 1)
		gam := randVar[T](rng, "gamma", E, K, 1)
		c := randVar[T](rng, "c", E, 1, 1)
		b := randVar[T](rng, "b", E, 1, 1)
		h := randVar[T](rng, "h", E, K, 1)
		cases := []struct {
			name   string
			build  func(tp *autodiff.Tape[T]) *autodiff.Var[T]
			inputs []*autodiff.Var[T]
		}{
			{"cos", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkCos(tp, ix, a, z) }, []*autodiff.Var[T]{a, z}},
			{"inner", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkInner(tp, ix, x, z, K, 2) }, []*autodiff.Var[T]{x, z}},
			{"sum", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkSum(tp, ix, w, x, d) }, []*autodiff.Var[T]{w, x}},
			{"align", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkAlign(tp, ix, p1, p2, aw) }, []*autodiff.Var[T]{p1, p2, aw}},
			{"gated sum", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkSumGated(tp, ix, gam, c, x, d) }, []*autodiff.Var[T]{gam, c, x}},
			{"agree", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return linkAgree(tp, b, gam, h) }, []*autodiff.Var[T]{b, gam, h}},
		}
		for _, tc := range cases {
			rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[T]) (*autodiff.Var[T], error) { return tc.build(tp), nil }, tc.inputs, eps)
			if err != nil {
				t.Fatal(err)
			}
			if rel > tol {
				t.Errorf("%s: relative gradient error %.3g > %g", tc.name, rel, tol)
			}
		}
	}
}

func TestLinkOpsGradients(t *testing.T) {
	t.Run("float64", func(t *testing.T) { linkOpsGradCheck[float64](t, 1e-6, 1e-6) })
	t.Run("float32", func(t *testing.T) { linkOpsGradCheck[float32](t, 1e-2, 1e-3) })
}

// linkSumGated and linkAgree give autodiff.Mul with linkSum, and Mul with
// RowSum and Add, bit for bit in float32, values and gradients, at K = 4
// (scalar gradient steps) and K = 8 (Mul's fused vector kernel for ∂γ).
func TestGatedSumAndAgreeMatchTheirComposition(t *testing.T) {
	l := coraLikeLinks()
	ix, err := newLinkIndex(l)
	if err != nil {
		t.Fatal(err)
	}
	E, C, d := l.NumLinks(), l.Children, 18
	for _, K := range []int{4, 8} {
		rng := rand.New(rand.NewPCG(uint64(K), 5))
		gam, c, b := randVar[float32](rng, "gamma", E, K, 1), randVar[float32](rng, "c", E, 1, 1), randVar[float32](rng, "b", E, 1, 1)
		x, h := randVar[float32](rng, "x", C, K*d, 1), randVar[float32](rng, "h", E, K, 1)
		inputs := []*autodiff.Var[float32]{gam, c, b, x, h}
		run := func(fused bool) (vals, grads [][]float32) {
			for _, v := range inputs {
				v.ZeroGrad()
			}
			var tp autodiff.Tape[float32]
			var S, nb *autodiff.Var[float32]
			if fused {
				S, nb = linkSumGated(&tp, ix, gam, c, x, d), linkAgree(&tp, b, gam, h)
			} else {
				S = linkSum(&tp, ix, autodiff.Mul(&tp, gam, c), x, d)
				nb = autodiff.Add(&tp, b, autodiff.RowSum(&tp, autodiff.Mul(&tp, gam, h)))
			}
			// A loss that weighs every output differently.
			loss := autodiff.Add(&tp, autodiff.Sum(&tp, autodiff.Mul(&tp, S, S)), autodiff.Sum(&tp, autodiff.Mul(&tp, nb, nb)))
			if err := tp.Backward(loss); err != nil {
				t.Fatal(err)
			}
			vals = [][]float32{slices.Clone(S.Value.Data), slices.Clone(nb.Value.Data)}
			for _, v := range inputs {
				grads = append(grads, slices.Clone(v.Grad.Data))
			}
			return vals, grads
		}
		fv, fg := run(true)
		cv, cg := run(false)
		for i := range fv {
			if !slices.Equal(fv[i], cv[i]) {
				t.Errorf("K = %d: output %d differs from the composition", K, i)
			}
		}
		for i, v := range inputs {
			if !slices.Equal(fg[i], cg[i]) {
				t.Errorf("K = %d: gradient of %s differs from the composition", K, v.Name)
			}
		}
	}
}

// linkOpRun builds one link op on copies of the inputs (converted to T),
// back-propagates a fixed upstream gradient and returns the output and the
// inputs' gradients, all as float64.
func linkOpRun[T autodiff.Float](op string, ix *linkIndex, in map[string]*tensor.Dense[float64], K, d int) (map[string][]float64, error) {
	v := map[string]*autodiff.Var[T]{}
	for name, m := range in {
		c := tensor.NewDense[T](m.Rows, m.Cols)
		for i, x := range m.Data {
			c.Data[i] = T(x)
		}
		v[name] = autodiff.NewVar(c, true)
	}
	var tp autodiff.Tape[T]
	var out *autodiff.Var[T]
	switch op {
	case "cos":
		out = linkCos(&tp, ix, v["a"], v["z"])
	case "inner":
		out = linkInner(&tp, ix, v["x"], v["z"], K, 9)
	case "sum":
		out = linkSum(&tp, ix, v["w"], v["x"], d)
	case "align":
		out = linkAlign(&tp, ix, v["p1"], v["p2"], v["aw"])
	}
	seed := tensor.NewDense[T](out.Value.Rows, out.Value.Cols)
	for i := range seed.Data {
		seed.Data[i] = T(math.Sin(float64(i)))
	}
	if err := tp.BackwardSeeded(out, seed); err != nil {
		return nil, err
	}
	res := map[string][]float64{}
	for name, x := range map[string]*autodiff.Var[T]{"out": out, "a": v["a"], "x": v["x"], "z": v["z"], "w": v["w"], "p1": v["p1"], "p2": v["p2"], "aw": v["aw"]} {
		data := x.Value.Data
		if name != "out" {
			data = x.Grad.Data
		}
		f := make([]float64, len(data))
		for i, y := range data {
			f[i] = float64(y)
		}
		res[name] = f
	}
	return res, nil
}

// The per-link ops at the default routing shapes (d = 18 with t = 9
// negated columns, K = 4, d_align = 16), whose float32 forms run the vector
// kernels (column blocks of 8 and a masked tail), agree with their
// float64 forms (portable loops, gradient-checked above), forward and
// backward, on node links with a self-loop and isolated nodes and on
// bipartite links with a parent without children.
func TestLinkOpsFloat32MatchFloat64(t *testing.T) {
	for _, mk := range []func() *Links{routingTestGraph, bipartiteTestLinks, coraLikeLinks} {
		l := mk()
		ix, err := newLinkIndex(l)
		if err != nil {
			t.Fatal(err)
		}
		ix32, _ := newLinkIndex(l)
		rng := rand.New(rand.NewPCG(7, 8))
		E := l.NumLinks()
		K, d, m := 4, 18, 16
		in := linkOpInputs(rng, l, K, d, m)
		for _, op := range []string{"cos", "inner", "sum", "align"} {
			want, err := linkOpRun[float64](op, ix, in, K, d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := linkOpRun[float32](op, ix32, in, K, d)
			if err != nil {
				t.Fatal(err)
			}
			for name, w := range want {
				g := got[name]
				for i := range w {
					if math.Abs(g[i]-w[i]) > 1e-4*(1+math.Abs(w[i])) {
						t.Fatalf("%d links, %s: %s[%d] = %v in float32, %v in float64", E, op, name, i, g[i], w[i])
					}
				}
			}
		}
	}
}

// On one goroutine the float32 alignment adds ∂P1 in its parent pass
// (fuseC); with several it makes a child pass. Both give the same bits.
func TestLinkAlignFusedChildPassBits(t *testing.T) {
	l := randomLinks(600, 2400, 5)
	ix, err := newLinkIndex(l)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	K, m := 4, 16
	in := linkOpInputs(rng, l, K, 18, m)
	run := func(procs int) map[string][]float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := linkOpRun[float32]("align", ix, in, K, 18)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	serial, parallel := run(1), run(4)
	if ix.links.NumLinks() < 2*alignBlock || tensor.Serial(ix.links.Children, linkCost(ix, 24*K*m)) {
		t.Fatal("the graph is too small to take the parallel path")
	}
	sameAlignBits(t, "one goroutine", serial, "several", parallel)
}

// The float32 alignment gives the same bits whether its backward pass reads
// the τ its forward pass kept or recomputes it (above alignKeepMax), on one
// goroutine and on several.
func TestLinkAlignKeptTauBits(t *testing.T) {
	l := randomLinks(600, 2400, 6)
	ix, err := newLinkIndex(l)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 12))
	K, m := 4, 16
	in := linkOpInputs(rng, l, K, 18, m)
	if l.NumLinks()*K*m > alignKeepMax {
		t.Fatal("the links are too many for the kept path")
	}
	run := func(procs, keepMax int) map[string][]float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		defer func(v int) { alignKeepMax = v }(alignKeepMax)
		alignKeepMax = keepMax
		res, err := linkOpRun[float32]("align", ix, in, K, 18)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, procs := range []int{1, 4} {
		kept, recomputed := run(procs, alignKeepMax), run(procs, 0)
		sameAlignBits(t, fmt.Sprintf("%d goroutines, τ kept", procs), kept, "recomputed", recomputed)
	}
}

// linkOpInputs returns random inputs of the link ops on l, under the names
// linkOpRun reads: K perspectives of d columns and alignment blocks of m.
func linkOpInputs(rng *rand.Rand, l *Links, K, d, m int) map[string]*tensor.Dense[float64] {
	in := map[string]*tensor.Dense[float64]{}
	for _, v := range []struct {
		name string
		r, c int
	}{{"a", l.Children, d}, {"x", l.Children, K * d}, {"z", l.Parents, d}, {"w", l.NumLinks(), K},
		{"p1", l.Children, K * m}, {"p2", l.Parents, K * m}, {"aw", K, m}} {
		in[v.name] = &randVar[float64](rng, v.name, v.r, v.c, 0.5).Value
	}
	return in
}

// sameAlignBits fails unless two runs of the alignment (linkOpRun) gave the
// same bits in its output and every gradient.
func sameAlignBits(t *testing.T, nameA string, a map[string][]float64, nameB string, b map[string][]float64) {
	t.Helper()
	for _, name := range []string{"out", "p1", "p2", "aw"} {
		for i, v := range a[name] {
			if b[name][i] != v {
				t.Fatalf("%s[%d]: %v (%s), %v (%s)", name, i, v, nameA, b[name][i], nameB)
			}
		}
	}
}

// linkCos is 0 with a finite gradient when a vector is 0.
func TestLinkCosZero(t *testing.T) {
	l := routingTestGraph()
	ix, _ := newLinkIndex(l)
	rng := rand.New(rand.NewPCG(1, 2))
	a := randVar[float64](rng, "a", l.Children, 4, 1)
	z := autodiff.NewVar(tensor.NewDense[float64](l.Parents, 4), true)
	var tp autodiff.Tape[float64]
	k := linkCos(&tp, ix, a, z)
	for _, v := range k.Value.Data {
		if v != 0 {
			t.Fatalf("κ̂ = %v with z = 0", v)
		}
	}
	if err := tp.BackwardSeeded(k, nil); err != nil {
		t.Fatal(err)
	}
	for _, g := range append(a.Grad.Data, z.Grad.Data...) {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Fatal("non-finite gradient at z = 0")
		}
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

func linkGateGradCheck[T autodiff.Float](t *testing.T, eps, tol float64) {
	rng := rand.New(rand.NewPCG(21, 21))
	n, K := 9, 3
	kappa := randVar[T](rng, "kappa", n, 1, 0.5)
	betaRow := randVar[T](rng, "betaRow", 1, K, 1)
	a := randVar[T](rng, "a", n, K, 1)
	h := randVar[T](rng, "h", n, K, 1)
	wc := randVar[T](rng, "wc", K, K, 0.5)
	c := randVar[T](rng, "c", n, 1, 0)
	for i := range c.Value.Data {
		c.Value.Data[i] = T(0.1 + 0.8*rng.Float64())
	}
	alphas := []*autodiff.Var[T]{randVar[T](rng, "ac", 1, 1, 1), randVar[T](rng, "aa", 1, 1, 1), randVar[T](rng, "ar", 1, 1, 1)}
	for mask := 1; mask < 8; mask++ {
		var in gateInputs[T]
		var inputs []*autodiff.Var[T]
		if mask&1 != 0 {
			in.kappa, in.betaRow, in.alphaC = kappa, betaRow, alphas[0]
			inputs = append(inputs, kappa, betaRow, alphas[0])
		}
		if mask&2 != 0 {
			in.a, in.alphaA = a, alphas[1]
			inputs = append(inputs, a, alphas[1])
		}
		if mask&4 != 0 {
			in.c, in.h, in.wc, in.alphaR = c, h, wc, alphas[2]
			inputs = append(inputs, c, h, wc, alphas[2])
		}
		rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[T]) (*autodiff.Var[T], error) { return linkGate(tp, in, n, K), nil }, inputs, eps)
		if err != nil {
			t.Fatal(err)
		}
		if rel > tol {
			t.Errorf("terms %03b: relative gradient error %.3g > %g", mask, rel, tol)
		}
	}
}

func TestLinkGateGradients(t *testing.T) {
	t.Run("float64", func(t *testing.T) { linkGateGradCheck[float64](t, 1e-6, 1e-6) })
	t.Run("float32", func(t *testing.T) { linkGateGradCheck[float32](t, 1e-2, 1e-3) })
}

// predict's gradients, with rows on both branches of the wrap (θ < π and
// θ > π, away from the branch cut at θ = π).
func predictGradCheck[T autodiff.Float](t *testing.T, eps, tol float64) {
	rng := rand.New(rand.NewPCG(31, 31))
	s, tt, K, n := 2, 3, 3, 12
	d := s + tt
	var wsph, weuc, bias, beta []*autodiff.Var[T]
	for k := 0; k < K; k++ {
		ws := randVar[T](rng, fmt.Sprint("wsph", k), tt, tt, 0.3)
		for m := 0; m < tt; m++ {
			ws.Value.Data[m*tt+m] += 1
		}
		wsph = append(wsph, ws)
		weuc = append(weuc, randVar[T](rng, fmt.Sprint("weuc", k), s, s, 1))
		bias = append(bias, randVar[T](rng, fmt.Sprint("bias", k), 1, d, 1))
		b := randVar[T](rng, fmt.Sprint("beta", k), 1, 1, 0)
		b.Value.Data[0] = T(-0.4 - 0.5*float64(k))
		beta = append(beta, b)
	}
	a := randVar[T](rng, "a", n, d, 1)
	// Scale the rows so that θ_k = ‖a_T·Wsph_k‖/r_k stays at least 0.05 away
	// from odd multiples of π for every k.
	for i := 0; i < n; i++ {
		for {
			scale := 0.3 + 5*rng.Float64()
			ok := true
			for k := 0; k < K; k++ {
				x := make([]float64, tt)
				for m := 0; m < tt; m++ {
					for c := 0; c < tt; c++ {
						x[c] += scale * float64(a.Value.Data[i*d+m]) * float64(wsph[k].Value.Data[m*tt+c])
					}
				}
				th := math.Sqrt(dotF(x, x)) / math.Sqrt(-float64(beta[k].Value.Data[0]))
				if r := math.Mod(th, 2*math.Pi); math.Abs(r-math.Pi) < 0.05 {
					ok = false
				}
			}
			if ok {
				for m := 0; m < d; m++ {
					a.Value.Data[i*d+m] *= T(scale)
				}
				break
			}
		}
	}
	inputs := append(append(append(append([]*autodiff.Var[T]{a}, wsph...), weuc...), bias...), beta...)
	rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[T]) (*autodiff.Var[T], error) {
		return predict(tp, a, wsph, weuc, bias, beta, s, tt), nil
	}, inputs, eps)
	if err != nil {
		t.Fatal(err)
	}
	if rel > tol {
		t.Fatalf("relative gradient error %.3g > %g", rel, tol)
	}
	// Both branches were exercised.
	wrapped := 0
	for i := 0; i < n; i++ {
		for k := 0; k < K; k++ {
			x := make([]float64, tt)
			for m := 0; m < tt; m++ {
				for c := 0; c < tt; c++ {
					x[c] += float64(a.Value.Data[i*d+m]) * float64(wsph[k].Value.Data[m*tt+c])
				}
			}
			if th, _, _ := wrapFactor(x, math.Sqrt(-float64(beta[k].Value.Data[0]))); th > math.Pi {
				wrapped++
			}
		}
	}
	if wrapped == 0 || wrapped == n*K {
		t.Fatalf("%d of %d predictions wrap: one branch is untested", wrapped, n*K)
	}
}

// predictRun runs predict in T on the given float64 values (a: n×d, the
// K Wsph, Weuc, biases and curvatures), back-propagates sin(index) and
// returns the output followed by every gradient, as float64.
func predictRun[T autodiff.Float](a [][]float64, ws, we, bs [][][]float64, betas []float64, s, tt int) []float64 {
	conv := func(rows [][]float64) *autodiff.Var[T] { return autodiff.NewVar(denseFromRows[T](rows), true) }
	av := conv(a)
	var wsph, weuc, bias, beta []*autodiff.Var[T]
	for k := range ws {
		wsph, weuc, bias = append(wsph, conv(ws[k])), append(weuc, conv(we[k])), append(bias, conv(bs[k]))
		beta = append(beta, conv([][]float64{{betas[k]}}))
	}
	var tp autodiff.Tape[T]
	out := predict(&tp, av, wsph, weuc, bias, beta, s, tt)
	seed := tensor.NewDense[T](out.Value.Rows, out.Value.Cols)
	for i := range seed.Data {
		seed.Data[i] = T(math.Sin(float64(i)))
	}
	if err := tp.BackwardSeeded(out, seed); err != nil {
		panic(err)
	}
	var res []float64
	for _, v := range append([]*autodiff.Var[T]{out}, av) {
		for _, x := range v.Value.Data {
			res = append(res, float64(x))
		}
	}
	for _, v := range append(append(append(append([]*autodiff.Var[T]{av}, wsph...), weuc...), bias...), beta...) {
		for _, x := range v.Grad.Data {
			res = append(res, float64(x))
		}
	}
	return res
}

// predict in float32 (matrix products) agrees with predict in float64 (row
// loops, gradient-checked above) at the default shapes (s = t = 9, K = 4),
// with rows on both branches of the wrap.
func TestPredictFloat32MatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 41))
	s, tt, K, n := 9, 9, 4, 300
	randRows := func(r, c int, scale float64) [][]float64 {
		m := make([][]float64, r)
		for i := range m {
			m[i] = make([]float64, c)
			for j := range m[i] {
				m[i][j] = scale * rng.NormFloat64()
			}
		}
		return m
	}
	a := randRows(n, s+tt, 1)
	for i := range a { // norms from 0.1 to 8: some θ_k beyond π
		f := 0.1 + 8*rng.Float64()
		for j := range a[i] {
			a[i][j] *= f / 3
		}
	}
	var ws, we, bs [][][]float64
	betas := []float64{-0.5, -1, -2, -4}
	for range K {
		ws, we, bs = append(ws, randRows(tt, tt, 0.4)), append(we, randRows(s, s, 0.4)), append(bs, randRows(1, s+tt, 0.1))
	}
	want := predictRun[float64](a, ws, we, bs, betas, s, tt)
	got := predictRun[float32](a, ws, we, bs, betas, s, tt)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 2e-4*(1+math.Abs(want[i])) {
			t.Fatalf("value %d of %d: float32 %v, float64 %v", i, len(want), got[i], want[i])
		}
	}
}

// predict with G weight groups is the G one-group predictions stacked by
// rows (what graph-level routing used to build with ConcatRows), in values
// and in every gradient.
func predictGroupsCheck[T autodiff.Float](t *testing.T, tol float64) {
	rng := rand.New(rand.NewPCG(51, 51))
	s, tt, K, G, n := 3, 4, 2, 3, 7
	d := s + tt
	a := randVar[T](rng, "a", n, d, 2) // norms up to ~8: some rows wrap
	var wsph, weuc, bias, beta []*autodiff.Var[T]
	for q := 0; q < G*K; q++ {
		wsph = append(wsph, randVar[T](rng, "ws", tt, tt, 0.8))
		weuc = append(weuc, randVar[T](rng, "we", s, s, 0.8))
		bias = append(bias, randVar[T](rng, "b", 1, d, 0.3))
	}
	for k := 0; k < K; k++ {
		b := randVar[T](rng, "beta", 1, 1, 0)
		b.Value.Data[0] = T(-0.5 - float64(k))
		beta = append(beta, b)
	}
	params := append(append(append(append([]*autodiff.Var[T]{a}, wsph...), weuc...), bias...), beta...)
	run := func(grouped bool) []float64 {
		for _, v := range params {
			v.ZeroGrad()
		}
		var tp autodiff.Tape[T]
		var out *autodiff.Var[T]
		if grouped {
			out = predict(&tp, a, wsph, weuc, bias, beta, s, tt)
		} else {
			var parts []*autodiff.Var[T]
			for g := 0; g < G; g++ {
				parts = append(parts, predict(&tp, a, wsph[g*K:(g+1)*K], weuc[g*K:(g+1)*K], bias[g*K:(g+1)*K], beta, s, tt))
			}
			out = autodiff.ConcatRows(&tp, parts...)
		}
		seed := tensor.NewDense[T](out.Value.Rows, out.Value.Cols)
		for i := range seed.Data {
			seed.Data[i] = T(math.Cos(float64(i)))
		}
		if err := tp.BackwardSeeded(out, seed); err != nil {
			t.Fatal(err)
		}
		var res []float64
		for _, x := range out.Value.Data {
			res = append(res, float64(x))
		}
		for _, v := range params {
			for _, x := range v.Grad.Data {
				res = append(res, float64(x))
			}
		}
		return res
	}
	got, want := run(true), run(false)
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("value %d of %d: grouped %v, stacked %v", i, len(want), got[i], want[i])
		}
	}
}

func TestPredictGroups(t *testing.T) {
	t.Run("float64", func(t *testing.T) { predictGroupsCheck[float64](t, 1e-12) })
	t.Run("float32", func(t *testing.T) { predictGroupsCheck[float32](t, 1e-5) })
}

func TestPredictGradients(t *testing.T) {
	t.Run("float64", func(t *testing.T) { predictGradCheck[float64](t, 1e-6, 1e-6) })
	t.Run("float32", func(t *testing.T) { predictGradCheck[float32](t, 1e-2, 1e-3) })
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

// predict's wrap adds the bias in float32 where h = 1 (no wrap): that is
// the bits of T(float64(v) + float64(b)), its formula, because a float64
// sum of two float32 values rounds to float32 as the float32 sum does.
// Checked here over random exponents, signed zeros, subnormals and the
// float32 extremes.
func TestFloat32SumRoundsOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	special := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.MaxFloat32, -math.MaxFloat32, 1, -1, 1 + 1.0/(1<<23)}
	pick := func() float32 {
		if rng.IntN(8) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(math.Ldexp(rng.Float64()*2-1, rng.IntN(300)-150))
	}
	for range 200000 {
		v, b := pick(), pick()
		got, want := v+b, float32(float64(v)+float64(b))
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("%g + %g: float32 sum %g, float64 sum rounded %g", v, b, got, want)
		}
	}
}
