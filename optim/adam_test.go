package optim

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// refAdam is the reference trajectory of torch.optim.Adam (decoupled=false)
// or torch.optim.AdamW (decoupled=true), written out in float64 from the
// algorithm boxes of the PyTorch documentation, for the given gradient
// function. It returns the parameters after each step.
func refAdam(p0 []float64, grad func([]float64) []float64, steps int, lr, b1, b2, eps, wd float64, decoupled, amsgrad bool) [][]float64 {
	n := len(p0)
	p := append([]float64(nil), p0...)
	m := make([]float64, n)
	v := make([]float64, n)
	vmax := make([]float64, n)
	var traj [][]float64
	for t := 1; t <= steps; t++ {
		g := grad(p)
		for i := range p {
			gi := g[i]
			if decoupled {
				p[i] -= lr * wd * p[i]
			} else {
				gi += wd * p[i]
			}
			m[i] = b1*m[i] + (1-b1)*gi
			v[i] = b2*v[i] + (1-b2)*gi*gi
			mhat := m[i] / (1 - math.Pow(b1, float64(t)))
			vv := v[i]
			if amsgrad {
				vmax[i] = math.Max(vmax[i], v[i])
				vv = vmax[i]
			}
			vhat := vv / (1 - math.Pow(b2, float64(t)))
			p[i] -= lr * mhat / (math.Sqrt(vhat) + eps)
		}
		traj = append(traj, append([]float64(nil), p...))
	}
	return traj
}

type adamCase struct {
	name    string
	variant Variant
	cfg     Config
	group   Group[float64] // settings only; Params filled in
}

var adamCases = []adamCase{
	{"adam", VariantAdam, Config{LR: 0.01}, Group[float64]{}},
	{"adam-l2", VariantAdam, Config{LR: 0.01, WeightDecay: 0.1}, Group[float64]{}},
	{"adam-betas-eps", VariantAdam, Config{LR: 0.05, Beta1: 0.8, Beta2: 0.99, Eps: 1e-3, WeightDecay: 0.01}, Group[float64]{}},
	{"adam-amsgrad", VariantAdam, Config{LR: 0.02, WeightDecay: 0.05, AMSGrad: true}, Group[float64]{}},
	{"adamw", VariantAdamW, Config{LR: 0.005, WeightDecay: 5e-4}, Group[float64]{}},
	{"adamw-big-decay", VariantAdamW, Config{LR: 0.01, WeightDecay: 0.5}, Group[float64]{}},
	{"adamw-amsgrad", VariantAdamW, Config{LR: 0.01, WeightDecay: 0.1, AMSGrad: true}, Group[float64]{}},
	{"adamw-lrscale-nodecay", VariantAdamW, Config{LR: 0.01, WeightDecay: 0.1}, Group[float64]{LRScale: 2.5, NoWeightDecay: true}},
	{"radam-euclid", VariantRiemannianAdam, Config{LR: 0.01, WeightDecay: 0.1}, Group[float64]{}},
	{"radam-euclid-amsgrad", VariantRiemannianAdam, Config{LR: 0.01, WeightDecay: 0.1, AMSGrad: true}, Group[float64]{}},
}

func build[T tensor.Float](v Variant, cfg Config, groups ...Group[T]) (*Adam[T], error) {
	switch v {
	case VariantAdam:
		return NewAdam(cfg, groups...)
	case VariantAdamW:
		return NewAdamW(cfg, groups...)
	default:
		return NewRiemannianAdam(cfg, groups...)
	}
}

func runAdamCase[T tensor.Float](t *testing.T, tc adamCase, tol float64) {
	const steps = 6
	q := newQuad(3, 12)
	p0 := randVals(11, 12, 1)
	// Round the start to T so that both sides start from the same point.
	for i := range p0 {
		p0[i] = float64(T(p0[i]))
	}
	p := newParamFrom[T]("w", 3, 4, p0)
	g := Group[T]{Params: []*autodiff.Var[T]{p}, LRScale: tc.group.LRScale, NoWeightDecay: tc.group.NoWeightDecay}
	opt, err := build(tc.variant, tc.cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	cfg := opt.Config()
	lr, wd := cfg.LR, cfg.WeightDecay
	if tc.group.LRScale != 0 {
		lr *= tc.group.LRScale
	}
	if tc.group.NoWeightDecay {
		wd = 0
	}
	want := refAdam(p0, q.at, steps, lr, cfg.Beta1, cfg.Beta2, cfg.Eps, wd, tc.variant == VariantAdamW, cfg.AMSGrad)
	for s := range steps {
		opt.ZeroGrad()
		setGrad(p, q)
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		assertClose(t, tc.name+" step "+string(rune('1'+s)), p.Value.Data, want[s], tol)
	}
	if got := opt.StepCount(p); got != steps {
		t.Fatalf("StepCount = %d, want %d", got, steps)
	}
}

// TestAdamReference compares Adam, AdamW and Euclidean RiemannianAdam with
// the reference trajectories written out in float64.
func TestAdamReference(t *testing.T) {
	for _, tc := range adamCases {
		t.Run(tc.name+"/float64", func(t *testing.T) { runAdamCase[float64](t, tc, 1e-12) })
		t.Run(tc.name+"/float32", func(t *testing.T) { runAdamCase[float32](t, tc, 1e-6) })
	}
}

// TestFirstStepClosedForm checks the textbook first step, where the bias
// corrections make m̂ = g and v̂ = g²: Adam moves by −lr·g'/(|g'|+eps) with
// g' = g + wd·p, AdamW by −lr·wd·p − lr·g/(|g|+eps).
func TestFirstStepClosedForm(t *testing.T) {
	const lr, wd, eps = 0.1, 0.3, 1e-8
	p0, g0 := []float64{1, -2, 0.5, 3}, []float64{0.4, 0.1, -2, -0.05}
	for _, tc := range []struct {
		variant Variant
		want    func(p, g float64) float64
	}{
		{VariantAdam, func(p, g float64) float64 { g += wd * p; return p - lr*g/(math.Abs(g)+eps) }},
		{VariantAdamW, func(p, g float64) float64 { return p - lr*wd*p - lr*g/(math.Abs(g)+eps) }},
		{VariantRiemannianAdam, func(p, g float64) float64 { g += wd * p; return p - lr*g/(math.Abs(g)+eps) }},
	} {
		p := newParamFrom[float64]("p", 1, 4, p0)
		copy(p.Grad.Data, g0)
		opt, err := build(tc.variant, Config{LR: lr, WeightDecay: wd, Eps: eps}, Group[float64]{Params: []*autodiff.Var[float64]{p}})
		if err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, 4)
		for i := range want {
			want[i] = tc.want(p0[i], g0[i])
		}
		assertClose(t, tc.variant.String(), p.Value.Data, want, 1e-15)
		// The gradient is the caller's: the optimiser must not change it.
		assertClose(t, tc.variant.String()+" grad", p.Grad.Data, g0, 0)
	}
}

// TestAdamWDecoupled checks that AdamW's decoupled decay is not Adam's L2:
// with weight decay the trajectories part, without it they coincide.
func TestAdamWDecoupled(t *testing.T) {
	run := func(v Variant, wd float64) []float64 {
		q := newQuad(5, 8)
		p := newParamFrom[float64]("w", 2, 4, randVals(9, 8, 3))
		opt, err := build(v, Config{LR: 0.05, WeightDecay: wd}, Group[float64]{Params: []*autodiff.Var[float64]{p}})
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			opt.ZeroGrad()
			setGrad(p, q)
			if err := opt.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return p.Value.Data
	}
	if d := maxAbsDiff(run(VariantAdam, 0.2), run(VariantAdamW, 0.2)); d < 1e-3 {
		t.Fatalf("Adam (L2) and AdamW (decoupled) agree to %.3g with weight decay 0.2; they should differ", d)
	}
	assertClose(t, "no decay", run(VariantAdam, 0), run(VariantAdamW, 0), 0)
}

// TestRiemannianAdamEuclideanIsAdam checks geoopt's property that
// RiemannianAdam on Euclidean parameters is Adam with coupled L2 decay, over
// 100 steps, both through the nil-Manifold fast path and through the general
// manifold path with an explicit Euclidean manifold.
func TestRiemannianAdamEuclideanIsAdam(t *testing.T) {
	for _, ams := range []bool{false, true} {
		cfg := Config{LR: 0.01, WeightDecay: 0.05, AMSGrad: ams}
		q := newQuad(21, 30)
		p0 := randVals(22, 30, 2)
		mk := func() *autodiff.Var[float64] { return newParamFrom[float64]("w", 5, 6, p0) }
		pa, pr, pm := mk(), mk(), mk()
		adam, err := NewAdam(cfg, Group[float64]{Params: []*autodiff.Var[float64]{pa}})
		if err != nil {
			t.Fatal(err)
		}
		radam, err := NewRiemannianAdam(cfg, Group[float64]{Params: []*autodiff.Var[float64]{pr}})
		if err != nil {
			t.Fatal(err)
		}
		madam, err := NewRiemannianAdam(cfg, Group[float64]{Params: []*autodiff.Var[float64]{pm}, Manifold: euclid[float64]{}})
		if err != nil {
			t.Fatal(err)
		}
		for s := range 100 {
			for _, o := range []*Adam[float64]{adam, radam, madam} {
				o.ZeroGrad()
			}
			setGrad(pa, q)
			setGrad(pr, q)
			setGrad(pm, q)
			for _, o := range []*Adam[float64]{adam, radam, madam} {
				if err := o.Step(); err != nil {
					t.Fatal(err)
				}
			}
			for i := range pa.Value.Data {
				a := pa.Value.Data[i]
				for _, b := range []float64{pr.Value.Data[i], pm.Value.Data[i]} {
					if math.Abs(a-b) > 1e-7*(1+math.Abs(a)) {
						t.Fatalf("amsgrad=%v step %d element %d: Adam %v, RiemannianAdam %v", ams, s, i, a, b)
					}
				}
			}
		}
	}
}

// TestFrozenGroup checks that a frozen group is neither updated nor advanced,
// that its gradients are still zeroed, and that SetFrozen thaws it.
func TestFrozenGroup(t *testing.T) {
	w := newParamFrom[float32]("w", 2, 2, []float64{1, 2, 3, 4})
	beta := newParamFrom[float32]("beta", 1, 1, []float64{-1})
	opt, err := NewAdamW(Config{LR: 0.1, WeightDecay: 0.01},
		Group[float32]{Name: "weights", Params: []*autodiff.Var[float32]{w}},
		Group[float32]{Name: "curvature", Params: []*autodiff.Var[float32]{beta}, Frozen: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := opt.Params(); len(got) != 1 || got[0] != w {
		t.Fatalf("Params() = %v, want only w", got)
	}
	for range 3 {
		opt.ZeroGrad()
		for i := range w.Grad.Data {
			w.Grad.Data[i] = 1
		}
		beta.Grad.Data[0] += 5
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if beta.Value.Data[0] != -1 || opt.StepCount(beta) != 0 {
		t.Fatalf("frozen beta moved to %v after %d steps", beta.Value.Data[0], opt.StepCount(beta))
	}
	if w.Value.Data[0] == 1 || opt.StepCount(w) != 3 {
		t.Fatalf("w not updated: %v, %d steps", w.Value.Data, opt.StepCount(w))
	}
	opt.ZeroGrad()
	if beta.Grad.Data[0] != 0 {
		t.Fatalf("ZeroGrad left the frozen gradient at %v", beta.Grad.Data[0])
	}
	if err := opt.SetFrozen(1, false); err != nil {
		t.Fatal(err)
	}
	if len(opt.Params()) != 2 {
		t.Fatalf("after thawing Params() has %d entries, want 2", len(opt.Params()))
	}
	beta.Grad.Data[0] = 5
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	if beta.Value.Data[0] == -1 || opt.StepCount(beta) != 1 {
		t.Fatalf("thawed beta not updated: %v", beta.Value.Data[0])
	}
	if err := opt.SetFrozen(2, true); err == nil {
		t.Fatal("SetFrozen(2) on two groups: want an error")
	}
}

// TestReset checks that a reset optimiser repeats a fresh one's first steps.
func TestReset(t *testing.T) {
	q := newQuad(1, 6)
	p0 := randVals(2, 6, 1)
	p := newParamFrom[float64]("w", 2, 3, p0)
	opt, err := NewAdam(Config{LR: 0.1, AMSGrad: true}, Group[float64]{Params: []*autodiff.Var[float64]{p}})
	if err != nil {
		t.Fatal(err)
	}
	steps := func(n int) []float64 {
		for range n {
			opt.ZeroGrad()
			setGrad(p, q)
			if err := opt.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return append([]float64(nil), p.Value.Data...)
	}
	first := steps(3)
	steps(5)
	opt.Reset()
	copy(p.Value.Data, p0)
	assertClose(t, "after Reset", steps(3), first, 0)
}

// TestSkipsMissingGradient checks that a parameter without a gradient
// buffer is left alone, as PyTorch skips .grad None.
func TestSkipsMissingGradient(t *testing.T) {
	p := newParamFrom[float32]("p", 1, 2, []float64{1, 2})
	p.Grad = tensor.Dense[float32]{}
	opt, err := NewAdam(Config{}, Group[float32]{Params: []*autodiff.Var[float32]{p}})
	if err != nil {
		t.Fatal(err)
	}
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	assertClose(t, "skipped", p.Value.Data, []float64{1, 2}, 0)
}

func TestErrors(t *testing.T) {
	p := autodiff.NewParam[float64]("p", 2, 2)
	q := autodiff.NewParam[float64]("q", 1, 3)
	nograd := autodiff.NewVar(tensor.NewDense[float64](1, 1), false)
	one := func(ps ...*autodiff.Var[float64]) Group[float64] { return Group[float64]{Params: ps} }
	for _, tc := range []struct {
		name, want string
		make       func() (*Adam[float64], error)
	}{
		{"manifold-adam", "NewRiemannianAdam", func() (*Adam[float64], error) {
			return NewAdam(Config{}, Group[float64]{Params: []*autodiff.Var[float64]{p}, Manifold: unitSphere[float64]{}})
		}},
		{"manifold-adamw", "NewRiemannianAdam", func() (*Adam[float64], error) {
			return NewAdamW(Config{}, Group[float64]{Params: []*autodiff.Var[float64]{p}, Manifold: unitSphere[float64]{}})
		}},
		{"duplicate", "also in", func() (*Adam[float64], error) { return NewAdam(Config{}, one(p, q), one(p)) }},
		{"nil", "nil", func() (*Adam[float64], error) { return NewAdam(Config{}, one(nil)) }},
		{"no-grad", "does not require", func() (*Adam[float64], error) { return NewAdam(Config{}, one(nograd)) }},
		{"empty", "no parameters", func() (*Adam[float64], error) { return NewAdam[float64](Config{}, Group[float64]{}) }},
		{"beta1", "Beta1", func() (*Adam[float64], error) { return NewAdam(Config{Beta1: 1}, one(p)) }},
		{"beta2", "Beta2", func() (*Adam[float64], error) { return NewAdam(Config{Beta2: -0.1}, one(p)) }},
		{"lr", "learning rate", func() (*Adam[float64], error) { return NewAdam(Config{LR: math.NaN()}, one(p)) }},
		{"eps", "Eps", func() (*Adam[float64], error) { return NewAdam(Config{Eps: -1}, one(p)) }},
		{"wd", "WeightDecay", func() (*Adam[float64], error) { return NewAdam(Config{WeightDecay: -1}, one(p)) }},
		{"lrscale", "LRScale", func() (*Adam[float64], error) {
			return NewAdam(Config{}, Group[float64]{Params: []*autodiff.Var[float64]{p}, LRScale: -1})
		}},
		{"stabilize", "Stabilize", func() (*Adam[float64], error) { return NewAdam(Config{Stabilize: 10}, one(p)) }},
	} {
		_, err := tc.make()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}

	// Shape errors at Step.
	opt, err := NewAdam(Config{}, one(p))
	if err != nil {
		t.Fatal(err)
	}
	p.Grad.Reshape(4, 1)
	if err := opt.Step(); err == nil || !strings.Contains(err.Error(), "gradient is 4×1") {
		t.Errorf("gradient shape mismatch: error %v", err)
	}
	p.Grad.Reshape(2, 2)
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	p.Value.Reshape(1, 4)
	p.Grad.Reshape(1, 4)
	if err := opt.Step(); err == nil || !strings.Contains(err.Error(), "changed shape") {
		t.Errorf("parameter reshaped: error %v", err)
	}
	opt.Reset()
	if err := opt.Step(); err != nil {
		t.Errorf("reshaped parameter after Reset: %v", err)
	}
}

// TestStepAllocs checks that a warm Step allocates nothing.
func TestStepAllocs(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(p *autodiff.Var[float32]) (*Adam[float32], error)
	}{
		{"adam", func(p *autodiff.Var[float32]) (*Adam[float32], error) {
			return NewAdam(Config{WeightDecay: 1e-4, AMSGrad: true}, Group[float32]{Params: []*autodiff.Var[float32]{p}})
		}},
		{"adamw", func(p *autodiff.Var[float32]) (*Adam[float32], error) {
			return NewAdamW(Config{WeightDecay: 1e-4}, Group[float32]{Params: []*autodiff.Var[float32]{p}})
		}},
		{"radam", func(p *autodiff.Var[float32]) (*Adam[float32], error) {
			return NewRiemannianAdam(Config{WeightDecay: 1e-4}, Group[float32]{Params: []*autodiff.Var[float32]{p}})
		}},
		{"radam-sphere", func(p *autodiff.Var[float32]) (*Adam[float32], error) {
			return NewRiemannianAdam(Config{Stabilize: 1}, Group[float32]{Params: []*autodiff.Var[float32]{p}, Manifold: unitSphere[float32]{}})
		}},
		{"radam-euclid-manifold", func(p *autodiff.Var[float32]) (*Adam[float32], error) {
			return NewRiemannianAdam(Config{}, Group[float32]{Params: []*autodiff.Var[float32]{p}, Manifold: euclid[float32]{}})
		}},
	} {
		p := newParamFrom[float32]("w", 8, 16, randVals(1, 128, 1))
		for i := range p.Grad.Data {
			p.Grad.Data[i] = 0.01 * float32(i%7)
		}
		opt, err := tc.make(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(); err != nil { // allocates the state
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(50, func() {
			if err := opt.Step(); err != nil {
				t.Fatal(err)
			}
			if _, err := ClipGradNorm(opt.Params(), 1); err != nil {
				t.Fatal(err)
			}
			opt.SetLR(opt.LR())
		})
		if allocs != 0 {
			t.Errorf("%s: warm Step allocates %v times", tc.name, allocs)
		}
	}
}

func TestVariantString(t *testing.T) {
	for v, want := range map[Variant]string{VariantAdam: "Adam", VariantAdamW: "AdamW", VariantRiemannianAdam: "RiemannianAdam", 7: "Variant(7)"} {
		if v.String() != want {
			t.Errorf("%d: %q, want %q", int(v), v.String(), want)
		}
	}
}

// plainF32 is float32 under a name that the AVX2 paths do not take: the
// updates' plain loops.
type plainF32 float32

// checkAVX2Update checks that an update's AVX2 float32 path (fast) gives
// exactly its plain Go loop's result (plain: the same update on plainF32),
// same operation order and rounding, over lengths with and without a tail,
// for each set of coefficients.
func checkAVX2Update(t *testing.T, seed uint64, fast func(p, g, m, v, vmax []float32, c *coeffs), plain func(p, g, m, v, vmax []plainF32, c *coeffs), cs []coeffs) {
	t.Helper()
	if !haveAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, n := range []int{8, 13, 64, 101} {
		for _, c := range cs {
			p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range p {
				p[i], g[i], m[i], v[i] = rng.Float32()*2-1, rng.Float32()*2-1, rng.Float32()*0.1, rng.Float32()*0.01
			}
			rp, rg, rm, rv := make([]plainF32, n), make([]plainF32, n), make([]plainF32, n), make([]plainF32, n)
			for i := range rp {
				rp[i], rg[i], rm[i], rv[i] = plainF32(p[i]), plainF32(g[i]), plainF32(m[i]), plainF32(v[i])
			}
			fast(p, g, m, v, nil, &c)
			plain(rp, rg, rm, rv, nil, &c)
			for i := range p {
				if p[i] != float32(rp[i]) || m[i] != float32(rm[i]) || v[i] != float32(rv[i]) {
					t.Fatalf("n=%d element %d: p, m, v = %v %v %v, plain loop %v %v %v", n, i, p[i], m[i], v[i], rp[i], rm[i], rv[i])
				}
			}
		}
	}
}

// torchAdam's AVX2 path (adam32), with and without weight decay.
func TestTorchAdamAVX2BitIdentical(t *testing.T) {
	checkAVX2Update(t, 5, torchAdam[float32], torchAdam[plainF32], []coeffs{
		{b1: 0.9, b2: 0.999, c1: 0.1, c2: 0.001, eps: 1e-8, stepSize: 0.01 / 0.1, bc2Sqrt: math.Sqrt(0.001)},
		{b1: 0.8, b2: 0.99, c1: 0.2, c2: 0.01, eps: 1e-6, stepSize: 0.003, bc2Sqrt: 0.7, l2: 5e-4, lrwd: 1e-5},
	})
}

// RiemannianAdam's update of Euclidean parameters on AVX2 (geoopt32), with
// and without coupled decay.
func TestGeooptEuclideanAVX2BitIdentical(t *testing.T) {
	checkAVX2Update(t, 6, geooptEuclidean[float32], geooptEuclidean[plainF32], []coeffs{
		{b1: 0.9, b2: 0.999, c1: 0.1, c2: 0.001, eps: 1e-8, lr: 0.005, bc1: 0.1, bc2: 0.001},
		{b1: 0.8, b2: 0.99, c1: 0.2, c2: 0.01, eps: 1e-6, lr: 0.003, bc1: 0.5, bc2: 0.7, l2: 5e-4},
	})
}
