package manifold

import (
	"math"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/optim"
	"github.com/prcaps/prcaps/tensor"
)

var (
	_ optim.Manifold[float32]         = SphereEuclidean[float32]{}
	_ optim.Manifold[float64]         = SphereEuclidean[float64]{}
	_ optim.ComponentInner[float32]   = SphereEuclidean[float32]{}
	_ optim.TangentProjector[float32] = SphereEuclidean[float32]{}
)

func TestSphereEuclideanGeometry(t *testing.T) {
	d := Dims{S: 3, T: 2}
	m := SphereEuclidean[float64]{Dims: d}
	rng := newRNG(4)
	var pts, gs, us, vs [][]float64
	for k := 0; k < 10; k++ {
		pts = append(pts, paramInputs(rng, d)[0])
		g := make([]float64, d.Ambient())
		u := make([]float64, d.Ambient())
		v := make([]float64, d.Ambient())
		for i := range g {
			g[i], u[i], v[i] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		}
		gs, us, vs = append(gs, g), append(us, u), append(vs, v)
	}
	x := denseOf[float64](pts)
	g := denseOf[float64](gs)
	orig := g.Clone()
	m.EgradToRgrad(x, g)
	for i := 0; i < x.Rows; i++ {
		if c := dotT(g.Row(i)[:3], x.Row(i)[:3]); math.Abs(c) > 1e-14 {
			t.Fatalf("rgrad not tangent: %g", c)
		}
		for j := 3; j < d.Ambient(); j++ {
			if g.At(i, j) != orig.At(i, j) {
				t.Fatal("rgrad changed the Euclidean block")
			}
		}
	}
	// RetrTransp with a tangent step: the exponential map keeps û unit, and
	// moves it by the geodesic angle ‖u_T‖.
	u := denseOf[float64](us)
	m.EgradToRgrad(x, u)
	v := denseOf[float64](vs)
	x0 := x.Clone()
	m.RetrTransp(x, u, v)
	for i := 0; i < x.Rows; i++ {
		xr := x.Row(i)
		if e := math.Abs(normT(xr[:3]) - 1); e > 1e-15 {
			t.Fatalf("retraction off the sphere: %g", e)
		}
		ang := math.Acos(math.Max(-1, math.Min(1, dotT(xr[:3], x0.Row(i)[:3]))))
		if want := normT(u.Row(i)[:3]); want < math.Pi && math.Abs(ang-want) > 1e-7 {
			t.Fatalf("geodesic angle %v, want %v", ang, want)
		}
		for j := 3; j < d.Ambient(); j++ {
			if math.Abs(xr[j]-x0.At(i, j)-u.At(i, j)) > 1e-15 {
				t.Fatal("Euclidean block not translated")
			}
		}
		if c := dotT(v.Row(i)[:3], xr[:3]); math.Abs(c) > 1e-14 {
			t.Fatalf("transported vector not tangent: %g", c)
		}
	}
	dst := make([]float64, x.Rows)
	m.Inner(x, u, v, dst)
	ci := tensor.NewDense[float64](x.Rows, x.Cols)
	m.ComponentInner(x, u, ci)
	for i := range dst {
		if math.Abs(dst[i]-dotT(u.Row(i), v.Row(i))) > 1e-14 {
			t.Fatal("Inner")
		}
		if s := normT(u.Row(i)[:3]); math.Abs(ci.At(i, 1)-s*s) > 1e-14 || ci.At(i, 4) != u.At(i, 4)*u.At(i, 4) {
			t.Fatal("ComponentInner")
		}
	}
	// Proj and ParamsFromPoints.
	z := tensor.NewDense[float64](2, d.Ambient())
	z.Set(0, 1, 3)
	m.Proj(z)
	if z.At(0, 1) != 1 || z.At(1, 0) != 1 {
		t.Fatalf("Proj: %v", z.Data)
	}
	q := denseOf[float64]([][]float64{randPointQ(rng, d, -2, 1)})
	p := ParamsFromPoints(q, d)
	var tp autodiff.Tape[float64]
	back := PsiInvUnit(&tp, autodiff.NewVar(p, false), autodiff.NewVar(denseOf[float64]([][]float64{{-2}}), false), d)
	if e := relDiff(back.Value.Data, q.Data); e > 1e-14 {
		t.Fatalf("PsiInvUnit(ParamsFromPoints(x)) ≠ x: %g", e)
	}
}

// A point on Q optimised with optim.RiemannianAdam for 1000 steps on the
// squared ambient distance to a target point on Q stays on Q (float32, the
// brief's tolerance) and reaches the target. The second case learns the
// curvature too (ρ as a Euclidean parameter of the same optimiser, target on
// the Q of β* = −2, start at β = −1).
func TestRiemannianAdamOnQ(t *testing.T) {
	for _, tc := range []struct {
		name        string
		d           Dims
		beta, betaT float64
		learnBeta   bool
	}{
		{"s9t9_fixed", Dims{S: 9, T: 9}, -1, -1, false},
		{"s3t1_fixed_flat", Dims{S: 3, T: 1}, -0.01, -0.01, false},
		{"s0t5_fixed_curved", Dims{S: 0, T: 5}, -4, -4, false},
		{"s2t1_learned_beta", Dims{S: 2, T: 1}, -1, -2, true},
		{"s9t9_learned_beta", Dims{S: 9, T: 9}, -1, -2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.d
			rng := newRNG(31)
			const n = 8
			var start, target [][]float64
			for k := 0; k < n; k++ {
				start = append(start, randPointQ(rng, d, tc.beta, 1))
				target = append(target, randPointQ(rng, d, tc.betaT, 1))
			}
			p := leaf(ParamsFromPoints(denseOf[float32](start), d), "points")
			rho := NewCurvatureParam[float32]("ρ", tc.beta)
			groups := []optim.Group[float32]{{Name: "points", Params: []*autodiff.Var[float32]{p}, Manifold: SphereEuclidean[float32]{Dims: d}}}
			if tc.learnBeta {
				groups = append(groups, optim.Group[float32]{Name: "curvature", Params: []*autodiff.Var[float32]{rho}})
			}
			const lr0, steps = 0.05, 1000
			opt, err := optim.NewRiemannianAdam(optim.Config{LR: lr0}, groups...)
			if err != nil {
				t.Fatal(err)
			}
			tgt := denseOf[float32](target)
			seed := tensor.NewDense[float32](n, d.Ambient())
			var tp autodiff.Tape[float32]
			var x *autodiff.Var[float32]
			var beta float64
			forward := func() {
				tp.Reset()
				b := Beta(&tp, rho)
				beta = float64(b.Value.Data[0])
				x = PsiInvUnit(&tp, p, b, d)
			}
			for s := 0; s < steps; s++ {
				opt.SetLR(lr0 * (1 - float64(s)/steps)) // linear decay
				opt.ZeroGrad()
				forward()
				for i, v := range x.Value.Data {
					seed.Data[i] = 2 * (v - tgt.Data[i]) // ∂‖x − target‖²/∂x
				}
				if err := tp.BackwardSeeded(x, seed); err != nil {
					t.Fatal(err)
				}
				if err := opt.Step(); err != nil {
					t.Fatal(err)
				}
				forward()
				for i := 0; i < n; i++ {
					if e := onQErr(rowOf(&x.Value, i), beta, d); !(e <= 1e-5) {
						t.Fatalf("step %d row %d off Q: %g", s, i, e)
					}
				}
			}
			worst, init := 0.0, 0.0
			for i := 0; i < n; i++ {
				init = math.Max(init, relDiff(start[i], target[i]))
				e := relDiff(rowOf(&x.Value, i), target[i])
				worst = math.Max(worst, e)
				if e > 2e-4 {
					t.Errorf("row %d: rel distance to the target %g after %d steps", i, e, steps)
				}
			}
			t.Logf("rel distance to the targets: start ≤ %.3g, after %d steps ≤ %.3g; β = %.6g", init, steps, worst, beta)
			if tc.learnBeta && math.Abs(beta-tc.betaT) > 1e-2 {
				t.Errorf("learned β = %v, want %v", beta, tc.betaT)
			}
		})
	}
}
