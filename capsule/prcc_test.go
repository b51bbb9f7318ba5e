package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
	"github.com/prcaps/prcaps/nn"
)

// pccAlignRef is Align of paper Eq. alignment with DESIGN's ε floor and clip,
// from the manifold's float64 reference functions.
func pccAlignRef(z, w []float64, dims manifold.Dims) float64 {
	a := manifold.TangentMetric(z, w, dims) /
		(math.Max(manifold.PseudoNorm(z, dims), manifold.AlignEps) * math.Max(manifold.PseudoNorm(w, dims), manifold.AlignEps))
	return math.Max(-10, math.Min(10, a))
}

// pccPRCCRef returns the logits of PRCC: for perClass, row g holds
// τ·Align(z_{g·C+c}, w_c) + b_c.
func pccPRCCRef(v, w, b []float64, tau0, beta float64, dims manifold.Dims, perClass bool) []float64 {
	d, C := dims.Tangent(), len(b)
	tau := manifold.Softplus(tau0) * manifold.Radius(beta)
	var out []float64
	for i, x := range pccRows(v, dims.Ambient()) {
		z := manifold.LogOVec(x, beta, dims)
		for c := 0; c < C; c++ {
			if perClass && i%C != c {
				continue
			}
			out = append(out, tau*pccAlignRef(z, w[c*d:(c+1)*d], dims)+b[c])
		}
	}
	return out
}

type pccPRCCCase struct {
	dims    manifold.Dims
	beta    float64
	n, C    int
	seed    uint64
	perCls  bool
	tau0, b float64 // added to the initial τ₀; b spread
}

var pccPRCCCases = []pccPRCCCase{
	{dims: manifold.Dims{S: 9, T: 9}, beta: -1, n: 12, C: 7, seed: 1},
	{dims: manifold.Dims{S: 3, T: 1}, beta: -0.4, n: 9, C: 3, seed: 2, tau0: 0.7, b: 0.5},
	{dims: manifold.Dims{S: 0, T: 3}, beta: -2.5, n: 8, C: 4, seed: 3, tau0: -0.3, b: 1},
	{dims: manifold.Dims{S: 9, T: 9}, beta: -1.3, n: 4 * 7, C: 7, seed: 4, perCls: true, b: 0.3},
	{dims: manifold.Dims{S: 2, T: 2}, beta: -0.7, n: 3 * 5, C: 5, seed: 5, perCls: true, tau0: 0.4, b: 1},
}

func (tc pccPRCCCase) name() string {
	return fmt.Sprintf("s%d_t%d_beta%g_perClass%v", tc.dims.S, tc.dims.T, tc.beta, tc.perCls)
}

// setup returns the classifier, points and β of the case.
func pccPRCCSetup[T autodiff.Float](tc pccPRCCCase) (*PRCC[T], *autodiff.Var[T], *autodiff.Var[T]) {
	rng := rand.New(rand.NewPCG(tc.seed, 77))
	c := NewPRCC[T]("prcc", tc.dims, tc.C, rng)
	c.Tau0.Value.Data[0] += T(tc.tau0)
	nn.Uniform(c.B, -tc.b, tc.b, rng)
	v := pccLeaf[T]("v", tc.n, tc.dims.Ambient(), pccPoints(rng, tc.dims, tc.beta, tc.n), true)
	beta := pccLeaf[T]("beta", 1, 1, []float64{tc.beta}, true)
	return c, v, beta
}

func (c *PRCC[T]) pccForward(t *autodiff.Tape[T], v, beta *autodiff.Var[T], perClass bool) *autodiff.Var[T] {
	if perClass {
		return c.ForwardPerClass(t, v, beta)
	}
	return c.Forward(t, v, beta)
}

func testPRCCForward[T autodiff.Float](t *testing.T) {
	tol := pccTolOf[T]()
	for _, tc := range pccPRCCCases {
		t.Run(tc.name(), func(t *testing.T) {
			c, v, beta := pccPRCCSetup[T](tc)
			var tp autodiff.Tape[T]
			out := c.pccForward(&tp, v, beta, tc.perCls)
			rows := tc.n
			if tc.perCls {
				rows /= tc.C
			}
			if out.Value.Rows != rows || out.Value.Cols != tc.C {
				t.Fatalf("logits are %d×%d, want %d×%d", out.Value.Rows, out.Value.Cols, rows, tc.C)
			}
			want := pccPRCCRef(pccData(v), pccData(c.W), pccData(c.B), float64(c.Tau0.Value.Data[0]), float64(beta.Value.Data[0]), tc.dims, tc.perCls)
			pccCheckClose(t, "logits", pccData(out), want, tol.fwd)
		})
	}
}

func TestPRCCForward(t *testing.T) {
	t.Run("float64", testPRCCForward[float64])
	t.Run("float32", testPRCCForward[float32])
}

// TestPRCCForwardPerClassIsDiagonal checks ForwardPerClass against Forward on
// the same capsules: logit[g][c] = Forward(v)[g·C+c][c].
func TestPRCCForwardPerClassIsDiagonal(t *testing.T) {
	tc := pccPRCCCases[3]
	c, v, beta := pccPRCCSetup[float64](tc)
	var tp autodiff.Tape[float64]
	full := c.Forward(&tp, v, beta)
	per := c.ForwardPerClass(&tp, v, beta)
	C := tc.C
	for g := 0; g < per.Value.Rows; g++ {
		for k := 0; k < C; k++ {
			if a, b := per.Value.At(g, k), full.Value.At(g*C+k, k); math.Abs(a-b) > 1e-14 {
				t.Fatalf("per-class logit[%d][%d] = %v, Forward gives %v", g, k, a, b)
			}
		}
	}
}

func testPRCCGradients[T autodiff.Float](t *testing.T) {
	for _, tc := range pccPRCCCases {
		t.Run(tc.name(), func(t *testing.T) {
			c, v, beta := pccPRCCSetup[T](tc)
			pccGradCheck(t, "PRCC", func(tp *autodiff.Tape[T]) *autodiff.Var[T] {
				return c.pccForward(tp, v, beta, tc.perCls)
			}, append([]*autodiff.Var[T]{v, beta}, c.Params()...))
		})
	}
}

func TestPRCCGradients(t *testing.T) {
	t.Run("float64", testPRCCGradients[float64])
	t.Run("float32", testPRCCGradients[float32])
}

// TestPRCCGradientThroughRho checks the curvature path from the raw
// parameter ρ: β = Beta(ρ) feeds both loĝ_o and τ = softplus(τ₀)·r.
func TestPRCCGradientThroughRho(t *testing.T) {
	tc := pccPRCCCases[0]
	c, v, _ := pccPRCCSetup[float64](tc)
	rho := manifold.NewCurvatureParam[float64]("rho", tc.beta)
	pccGradCheck(t, "PRCC(ρ)", func(tp *autodiff.Tape[float64]) *autodiff.Var[float64] {
		return c.Forward(tp, v, manifold.Beta(tp, rho))
	}, []*autodiff.Var[float64]{rho, c.Tau0})
}

// TestPRCCTauScalesWithRadius: for capsules exp̂_o(ξ) with ‖ξ_T‖ < πr the
// tangent vectors z = ξ do not depend on β, so logit − b scales with
// r = √|β| (τ = softplus(τ₀)·r): β = −1 → −4 doubles it.
func TestPRCCTauScalesWithRadius(t *testing.T) {
	dims := manifold.Dims{S: 3, T: 2}
	rng := rand.New(rand.NewPCG(8, 8))
	c := NewPRCC[float64]("prcc", dims, 4, rng)
	nn.Uniform(c.B, -1, 1, rng)
	n := 6
	xi := make([][]float64, n)
	for i := range xi {
		xi[i] = make([]float64, dims.Tangent())
		for j := range xi[i] {
			xi[i][j] = 0.8 * (rng.Float64()*2 - 1) // ‖ξ_T‖ < 1.2 < π
		}
	}
	logits := func(betaV float64) []float64 {
		var pts []float64
		for _, x := range xi {
			pts = append(pts, manifold.ExpOVec(x, betaV, dims)...)
		}
		v := pccLeaf[float64]("v", n, dims.Ambient(), pts, false)
		beta := pccLeaf[float64]("beta", 1, 1, []float64{betaV}, false)
		var tp autodiff.Tape[float64]
		out := pccData(c.Forward(&tp, v, beta))
		for i := range out {
			out[i] -= c.B.Value.Data[i%4]
		}
		return out
	}
	l1, l4 := logits(-1), logits(-4)
	nonzero := false
	for i := range l1 {
		if math.Abs(l4[i]-2*l1[i]) > 1e-9*(1+math.Abs(l4[i])) {
			t.Fatalf("logit %d − b: %v at β=−4, want 2×%v", i, l4[i], l1[i])
		}
		nonzero = nonzero || math.Abs(l1[i]) > 1e-3
	}
	if !nonzero {
		t.Fatal("all scores vanish; the test is vacuous")
	}
}

// TestPRCCSetScale: SetScale(s) makes softplus(τ₀) = s, so the logits
// (minus b) scale by s, for small and large s; bad scales are rejected.
func TestPRCCSetScale(t *testing.T) {
	dims := manifold.Dims{S: 3, T: 2}
	rng := rand.New(rand.NewPCG(10, 10))
	c := NewPRCC[float64]("prcc", dims, 3, rng)
	n := 4
	var pts []float64
	for i := 0; i < n; i++ {
		xi := make([]float64, dims.Tangent())
		for j := range xi {
			xi[j] = rng.Float64()*2 - 1
		}
		pts = append(pts, manifold.ExpOVec(xi, -1, dims)...)
	}
	v := pccLeaf[float64]("v", n, dims.Ambient(), pts, false)
	beta := pccLeaf[float64]("beta", 1, 1, []float64{-1}, false)
	logits := func() []float64 {
		var tp autodiff.Tape[float64]
		return pccData(c.Forward(&tp, v, beta))
	}
	base := logits() // softplus(τ₀) = 1 at construction, b = 0
	for _, s := range []float64{0.25, 1, 10, 50, 800} {
		if err := c.SetScale(s); err != nil {
			t.Fatal(err)
		}
		if got := manifold.Softplus(c.Tau0.Value.Data[0]); math.Abs(got-s) > 1e-9*s {
			t.Fatalf("SetScale(%v): softplus(τ₀) = %v", s, got)
		}
		for i, l := range logits() {
			if math.Abs(l-s*base[i]) > 1e-9*(1+math.Abs(l)) {
				t.Fatalf("scale %v: logit %d = %v, want %v", s, i, l, s*base[i])
			}
		}
	}
	for _, s := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := c.SetScale(s); err == nil {
			t.Errorf("SetScale(%v) accepted", s)
		}
	}
}

// TestPRCCSingularCapsules: a capsule at the pole (z = 0) scores 0 (logit =
// b), a light-like z scores ±10 or 0 (its pseudo-norm is floored at ε), and
// both give finite gradients with no NaN.
func TestPRCCSingularCapsules(t *testing.T) {
	dims := manifold.Dims{S: 2, T: 2}
	beta0 := -1.5
	r := manifold.Radius(beta0)
	rng := rand.New(rand.NewPCG(9, 9))
	c := NewPRCC[float64]("prcc", dims, 3, rng)
	nn.Uniform(c.B, -1, 1, rng)
	light := []float64{0.6, 0.8, 1, 0} // g = −1 + 1 = 0
	pole := manifold.ExpOVec([]float64{0, 0, 0, 0}, beta0, dims)
	pts := append(append([]float64{}, pole...), manifold.ExpOVec(light, beta0, dims)...)
	v := pccLeaf[float64]("v", 2, dims.Ambient(), pts, true)
	beta := pccLeaf[float64]("beta", 1, 1, []float64{beta0}, true)
	var tp autodiff.Tape[float64]
	out := c.Forward(&tp, v, beta)
	if err := tp.Backward(autodiff.Sum(&tp, out)); err != nil {
		t.Fatal(err)
	}
	pccFinite(t, "singular", append([]*autodiff.Var[float64]{v, beta, out}, c.Params()...)...)
	tau := manifold.Softplus(float64(c.Tau0.Value.Data[0])) * r
	for k := 0; k < 3; k++ {
		if got, want := out.Value.At(0, k), c.B.Value.Data[k]; math.Abs(got-want) > 1e-12 {
			t.Errorf("pole capsule logit %d = %v, want b = %v", k, got, want)
		}
		s := (out.Value.At(1, k) - c.B.Value.Data[k]) / tau
		if !(math.Abs(math.Abs(s)-10) < 1e-9 || math.Abs(s) < 1e-9) {
			t.Errorf("light-like capsule score %d = %v, want ±10 (clipped) or 0", k, s)
		}
	}
	// The light-like capsule's scores are clipped: no gradient reaches it.
	for j := 0; j < dims.Ambient(); j++ {
		if g := v.Grad.At(1, j); g != 0 {
			t.Errorf("light-like capsule gradient[%d] = %v, want 0 (clipped)", j, g)
		}
	}
}

// TestAlignClipping exercises the clip of manifold.Align directly on tangent
// vectors: a score beyond ±10 is clipped and passes no gradient, a score
// inside passes the full one, and a zero vector scores 0 with a finite
// gradient.
func TestAlignClipping(t *testing.T) {
	dims := manifold.Dims{S: 1, T: 1}
	for _, tc := range []struct {
		name    string
		z, w    []float64
		want    float64
		zeroGrd bool
	}{
		// g(z,w) = −1·1 + 0.995·0 ... choose nearly light-like z.
		{"clipped_high", []float64{1, 1.001}, []float64{0, 1}, 10, true},
		{"clipped_low", []float64{1, 1.001}, []float64{0, -1}, -10, true},
		{"inside", []float64{1, 2}, []float64{0.3, 1}, (-0.3 + 2) / (math.Sqrt(3) * math.Sqrt(1-0.09)), false},
		{"zero", []float64{0, 0}, []float64{0.3, 1}, 0, false},
		{"light_like_w", []float64{1, 2}, []float64{1, 1}, 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z := pccLeaf[float64]("z", 1, 2, tc.z, true)
			w := pccLeaf[float64]("w", 1, 2, tc.w, true)
			var tp autodiff.Tape[float64]
			out := manifold.Align(&tp, z, w, dims)
			if err := tp.Backward(autodiff.Sum(&tp, out)); err != nil {
				t.Fatal(err)
			}
			if got := out.Value.Data[0]; math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Align = %v, want %v", got, tc.want)
			}
			if ref := pccAlignRef(tc.z, tc.w, dims); math.Abs(ref-tc.want) > 1e-12 {
				t.Errorf("reference Align = %v, want %v", ref, tc.want)
			}
			pccFinite(t, tc.name, z, w, out)
			gz := math.Abs(z.Grad.Data[0]) + math.Abs(z.Grad.Data[1])
			gw := math.Abs(w.Grad.Data[0]) + math.Abs(w.Grad.Data[1])
			if tc.zeroGrd && gz+gw != 0 {
				t.Errorf("clipped score passes gradient %v, %v", z.Grad.Data, w.Grad.Data)
			}
			if !tc.zeroGrd && tc.name != "zero" && gz == 0 {
				t.Errorf("score inside the clip passes no gradient to z")
			}
			if tc.name != "zero" && !tc.zeroGrd {
				pccGradCheck(t, "Align", func(tp *autodiff.Tape[float64]) *autodiff.Var[float64] {
					return manifold.Align(tp, z, w, dims)
				}, []*autodiff.Var[float64]{z, w})
			}
		})
	}
}

func TestPRCCInit(t *testing.T) {
	dims := manifold.Dims{S: 9, T: 9}
	c := NewPRCC[float32]("prcc", dims, 7, rand.New(rand.NewPCG(1, 1)))
	if r, cc := c.W.Value.Rows, c.W.Value.Cols; r != 7 || cc != 18 {
		t.Fatalf("W is %d×%d, want 7×18", r, cc)
	}
	if sp := manifold.Softplus(float64(c.Tau0.Value.Data[0])); math.Abs(sp-1) > 1e-6 {
		t.Errorf("softplus(τ₀) = %v, want 1", sp)
	}
	for _, b := range c.B.Value.Data {
		if b != 0 {
			t.Fatalf("bias %v, want 0", b)
		}
	}
	for k, w := range pccRows(pccData(c.W), 18) {
		n2 := 0.0
		for _, x := range w {
			n2 += x * x
		}
		if q := manifold.TangentMetric(w, w, dims); math.Abs(q) < 0.25*n2 || n2 < 0.1 || n2 > 10 {
			t.Errorf("w_%d: g(w,w) = %v, ‖w‖² = %v", k, q, n2)
		}
	}
	names := map[string]bool{}
	for _, p := range c.Params() {
		names[p.Name] = true
	}
	if len(names) != 3 {
		t.Errorf("parameter names %v", names)
	}
}

// ---------------------------------------------------------------- Linear variant

func testTangentLinear[T autodiff.Float](t *testing.T) {
	tol := pccTolOf[T]()
	dims := manifold.Dims{S: 3, T: 2}
	rng := rand.New(rand.NewPCG(6, 6))
	C, G := 4, 3
	lin := NewTangentLinear[T]("lin", dims, C, rng)
	beta := pccLeaf[T]("beta", 1, 1, []float64{-0.8}, true)
	v := pccLeaf[T]("v", G*C, dims.Ambient(), pccPoints(rng, dims, -0.8, G*C), true)
	d := dims.Tangent()
	W, B := pccData(lin.Lin.W), pccData(lin.Lin.B)
	var want, wantPer []float64
	for i, x := range pccRows(pccData(v), dims.Ambient()) {
		z := manifold.LogOVec(x, float64(beta.Value.Data[0]), dims)
		for c := 0; c < C; c++ {
			s := B[c]
			for j := 0; j < d; j++ {
				s += z[j] * W[j*C+c]
			}
			want = append(want, s)
			if i%C == c {
				wantPer = append(wantPer, s)
			}
		}
	}
	var tp autodiff.Tape[T]
	pccCheckClose(t, "Forward", pccData(lin.Forward(&tp, v, beta)), want, tol.fwd)
	per := lin.ForwardPerClass(&tp, v, beta)
	if per.Value.Rows != G || per.Value.Cols != C {
		t.Fatalf("per-class logits %d×%d, want %d×%d", per.Value.Rows, per.Value.Cols, G, C)
	}
	pccCheckClose(t, "ForwardPerClass", pccData(per), wantPer, tol.fwd)
	inputs := append([]*autodiff.Var[T]{v, beta}, lin.Params()...)
	pccGradCheck(t, "TangentLinear", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return lin.Forward(tp, v, beta) }, inputs)
	pccGradCheck(t, "TangentLinear per class", func(tp *autodiff.Tape[T]) *autodiff.Var[T] { return lin.ForwardPerClass(tp, v, beta) }, inputs)
}

func TestTangentLinear(t *testing.T) {
	t.Run("float64", testTangentLinear[float64])
	t.Run("float32", testTangentLinear[float32])
}

// ---------------------------------------------------------------- allocations, benchmarks

// pccPRCCStep is one forward+backward of PRCC with a cross-entropy loss.
type pccPRCCStep struct {
	c       *PRCC[float32]
	lin     *TangentLinear[float32]
	v, rho  *autodiff.Var[float32]
	labels  autodiff.Labels
	rows    []int32
	perCls  bool
	useLin  bool
	tp      autodiff.Tape[float32]
	classes int
}

func newPCCPRCCStep(n, classes int, perCls bool) *pccPRCCStep {
	dims := manifold.Dims{S: 9, T: 9}
	rng := rand.New(rand.NewPCG(3, 4))
	s := &pccPRCCStep{
		c:       NewPRCC[float32]("prcc", dims, classes, rng),
		lin:     NewTangentLinear[float32]("lin", dims, classes, rng),
		v:       pccLeaf[float32]("v", n, dims.Ambient(), pccPoints(rng, dims, -1, n), true),
		rho:     manifold.NewCurvatureParam[float32]("rho", -1),
		perCls:  perCls,
		classes: classes,
	}
	rows := n
	if perCls {
		rows /= classes
	}
	y := make([]int32, rows)
	for i := range y {
		y[i] = int32(i % classes)
		s.rows = append(s.rows, int32(i))
	}
	var err error
	if s.labels, err = autodiff.NewLabels(y, classes); err != nil {
		panic(err)
	}
	return s
}

func (s *pccPRCCStep) step() error {
	s.tp.Reset()
	beta := manifold.Beta(&s.tp, s.rho)
	var logits *autodiff.Var[float32]
	switch {
	case s.useLin:
		logits = s.lin.Forward(&s.tp, s.v, beta)
	case s.perCls:
		logits = s.c.ForwardPerClass(&s.tp, s.v, beta)
	default:
		logits = s.c.Forward(&s.tp, s.v, beta)
	}
	return s.tp.Backward(autodiff.SoftmaxCrossEntropy(&s.tp, logits, s.labels, s.rows))
}

func TestPRCCStepAllocatesNothing(t *testing.T) {
	if pccRaceEnabled() {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	for _, tc := range []struct {
		name           string
		n              int
		perCls, useLin bool
	}{{"small", 40, false, false}, {"parallel", 1200, false, false}, {"perClass", 700, true, false}, {"linear", 600, false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPCCPRCCStep(tc.n, 7, tc.perCls)
			s.useLin = tc.useLin
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

// BenchmarkPRCCStepCora is one PRCC forward+backward with cross-entropy at
// Cora size (2708 capsules, s = t = 9, 7 classes).
func BenchmarkPRCCStepCora(b *testing.B) {
	s := newPCCPRCCStep(2708, 7, false)
	_ = s.step()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTangentLinearStepCora is the Linear classifier variant at the
// same size.
func BenchmarkTangentLinearStepCora(b *testing.B) {
	s := newPCCPRCCStep(2708, 7, false)
	s.useLin = true
	_ = s.step()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.step(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAlignPartialGradients checks manifold.Align and AlignPerClass when
// only z or only w requires a gradient.
func TestAlignPartialGradients(t *testing.T) {
	dims := manifold.Dims{S: 3, T: 2}
	rng := rand.New(rand.NewPCG(12, 12))
	C := 3
	z0 := make([]float64, 6*5)
	for i := range z0 {
		z0[i] = rng.NormFloat64()
	}
	w0 := make([]float64, C*5)
	for i := range w0 {
		w0[i] = rng.NormFloat64()
	}
	for _, perClass := range []bool{false, true} {
		for _, which := range []string{"z", "w", "both"} {
			t.Run(fmt.Sprintf("perClass%v_%s", perClass, which), func(t *testing.T) {
				z := pccLeaf[float64]("z", 6, 5, z0, which != "w")
				w := pccLeaf[float64]("w", C, 5, w0, which != "z")
				var inputs []*autodiff.Var[float64]
				for _, v := range []*autodiff.Var[float64]{z, w} {
					if v.RequiresGrad() {
						inputs = append(inputs, v)
					}
				}
				pccGradCheck(t, "Align", func(tp *autodiff.Tape[float64]) *autodiff.Var[float64] {
					if perClass {
						return manifold.AlignPerClass(tp, z, w, dims)
					}
					return manifold.Align(tp, z, w, dims)
				}, inputs)
			})
		}
	}
}

// TestPCCNoGradMatches checks that the three layers compute the same values
// on a NoGrad (evaluation) tape as on a recording one.
func TestPCCNoGradMatches(t *testing.T) {
	pc, v, beta := pccPRCCSetup[float32](pccPRCCCases[0])
	pc2, v2, beta3 := pccPRCCSetup[float32](pccPRCCCases[3])
	er, u, l := pccRoutingSetup[float32](EuclideanRoutingConfig{Iters: 3, Coupling: CouplingOverParents}, 5, 3, true)
	tg, x, beta2, adj := pccTGCNSetup[float32](pccTGCNCases[0])
	run := func(noGrad bool) [][]float64 {
		tp := &autodiff.Tape[float32]{NoGrad: noGrad}
		return [][]float64{
			pccData(pc.Forward(tp, v, beta)),
			pccData(pc2.ForwardPerClass(tp, v2, beta3)),
			pccData(er.Forward(tp, u, l)),
			pccData(tg.Forward(tp, x, beta2, adj)),
		}
	}
	a, b := run(false), run(true)
	for k := range a {
		pccCheckClose(t, fmt.Sprintf("output %d", k), b[k], a[k], 0)
	}
}
