package manifold

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Inputs for the batched tests: generic rows plus the special rows each op
// must handle (pole axis, antipode, zero, huge).
func logInputs(rng *rand.Rand, d Dims, beta float64) [][]float64 {
	r := Radius(beta)
	var rows [][]float64
	for k := 0; k < 24; k++ {
		rows = append(rows, randPointQ(rng, d, beta, []float64{0.1, 1, 3}[k%3]*r))
	}
	// Near the pole (series branch) and near the antipode, on Q.
	for _, th := range []float64{1e-9, 1e-4, 0.01, 0.09, math.Pi - 1e-3, math.Pi - 1e-7} {
		rows = append(rows, ExpOVec(randTangent(rng, d, beta, th, th, r), beta, d))
	}
	// Off Q (loĝ only normalises x_T).
	x := randPointQ(rng, d, beta, r)
	for i := 0; i <= d.T; i++ {
		x[i] *= 2.5
	}
	rows = append(rows, x)
	// Huge coordinates (‖x_S‖ ≈ 1e4 when s > 0).
	if d.S > 0 {
		rows = append(rows, randPointQ(rng, d, beta, 1e4/math.Sqrt(float64(d.S))))
	}
	// Exact pole axis, exact antipode, x_T = 0.
	pole := make([]float64, d.Ambient())
	pole[0] = r
	anti := make([]float64, d.Ambient())
	anti[0] = -r
	zero := make([]float64, d.Ambient())
	for i := d.T + 1; i < d.Ambient(); i++ {
		pole[i], zero[i] = 0.5, 0.5
	}
	pole[0] = math.Sqrt(-beta + float64(d.S)*0.25)
	anti[0] = -pole[0]
	copy(anti[d.T+1:], pole[d.T+1:])
	return append(rows, pole, anti, zero)
}

func expInputs(rng *rand.Rand, d Dims, beta float64) [][]float64 {
	r := Radius(beta)
	var rows [][]float64
	for k := 0; k < 24; k++ {
		rows = append(rows, randTangent(rng, d, beta, 0, 6*math.Pi, []float64{0.1, 1, 3}[k%3]*r))
	}
	for _, th := range []float64{0, 1e-9, 1e-3, 0.3, 0.49, 0.51, math.Pi} {
		rows = append(rows, randTangent(rng, d, beta, th, th, r))
	}
	huge := make([]float64, d.Tangent())
	for i := range huge {
		huge[i] = 1e4 / math.Sqrt(float64(len(huge)))
	}
	return append(rows, huge, make([]float64, d.Tangent()))
}

func projInputs(rng *rand.Rand, d Dims, beta float64) [][]float64 {
	var rows [][]float64
	for k := 0; k < 24; k++ {
		x := make([]float64, d.Ambient())
		s := []float64{0.01, 1, 100}[k%3]
		for i := range x {
			x[i] = s * rng.NormFloat64()
		}
		rows = append(rows, x)
	}
	return append(rows, randPointQ(rng, d, beta, 1), make([]float64, d.Ambient()))
}

func paramInputs(rng *rand.Rand, d Dims) [][]float64 {
	var rows [][]float64
	for k := 0; k < 24; k++ {
		x := make([]float64, d.Ambient())
		copy(x, randUnit(rng, d.T+1))
		for i := d.T + 1; i < len(x); i++ {
			x[i] = 2 * rng.NormFloat64()
		}
		rows = append(rows, x)
	}
	return rows
}

func wrapInputs(rng *rand.Rand, d Dims, beta float64) [][]float64 {
	var rows [][]float64
	td := Dims{S: 0, T: d.T}
	for k := 0; k < 24; k++ {
		rows = append(rows, randTangent(rng, td, beta, 0, 8*math.Pi, 0))
	}
	for _, th := range []float64{0, 0.5, math.Pi * 0.999, math.Pi * 1.001, 2 * math.Pi, 1e4} {
		rows = append(rows, randTangent(rng, td, beta, th, th, 0))
	}
	return rows
}

// agreeCase compares one batched op, in T, with its reference on the same
// (T-rounded) inputs, row by row.
func agreeCase[T Float](t *testing.T, name string, rows [][]float64, tol float64,
	op func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T],
	ref func(x []float64) []float64, beta float64) {
	t.Helper()
	var tp autodiff.Tape[T]
	x := autodiff.NewVar(denseOf[T](rows), false)
	b := autodiff.NewVar(denseOf[T]([][]float64{{beta}}), false)
	out := op(&tp, x, b)
	// The reference sees the T-rounded β too.
	for i, row := range rows {
		want := ref(roundTo[T](row))
		got := rowOf(&out.Value, i)
		if e := relDiff(got, want); e > tol || math.IsNaN(e) {
			t.Fatalf("%s row %d: rel err %g > %g\n got  %v\n want %v", name, i, e, tol, got, want)
		}
	}
}

func testAgreement[T Float](t *testing.T, tol float64) {
	forCases(t, func(t *testing.T, d Dims, beta float64, rng *rand.Rand) {
		bT := float64(T(beta))
		agreeCase(t, "LogO", logInputs(rng, d, beta), tol, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
			return LogO(tp, x, b, d)
		}, func(x []float64) []float64 { return LogOVec(x, bT, d) }, beta)
		agreeCase(t, "ExpO", expInputs(rng, d, beta), tol, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
			return ExpO(tp, x, b, d)
		}, func(x []float64) []float64 { return ExpOVec(x, bT, d) }, beta)
		agreeCase(t, "ProjQ", projInputs(rng, d, beta), tol, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
			return ProjQ(tp, x, b, d)
		}, func(x []float64) []float64 { return ProjQVec(x, bT, d) }, beta)
		agreeCase(t, "PsiInvUnit", paramInputs(rng, d), tol, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
			return PsiInvUnit(tp, x, b, d)
		}, func(x []float64) []float64 {
			uv := append([]float64(nil), x...)
			for i := 0; i <= d.T; i++ {
				uv[i] *= Radius(bT)
			}
			return PsiInv(uv, bT, d)
		}, beta)
		agreeCase(t, "Wrap", wrapInputs(rng, d, beta), tol, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
			return Wrap(tp, x, b)
		}, func(x []float64) []float64 { return WrapVec(x, Radius(bT)) }, beta)
		agreeCase(t, "LogExpO", withSpace(rng, d, wrapInputs(rng, d, beta), Radius(beta)), tol, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
			return LogExpO(tp, x, b, d)
		}, func(x []float64) []float64 { return append(WrapVec(x[:d.T], Radius(bT)), x[d.T:]...) }, beta)
		for a := ActSquash; a <= ActIdentity; a++ {
			agreeCase(t, "Activation/"+a.String(), expInputs(rng, d, beta), tol, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
				return TangentActivation(tp, x, a)
			}, func(x []float64) []float64 { return ActivateVec(x, a) }, beta)
		}
	})
}

func TestBatchedAgreesWithReference64(t *testing.T) { testAgreement[float64](t, 1e-12) }
func TestBatchedAgreesWithReference32(t *testing.T) { testAgreement[float32](t, 1e-5) }

func TestRowMetrics(t *testing.T) {
	rng := newRNG(3)
	for _, d := range testDims {
		n := 17
		a := make([][]float64, n)
		b := make([][]float64, n)
		x := make([][]float64, n)
		y := make([][]float64, n)
		for i := range a {
			a[i] = randTangent(rng, d, -1, 0, 3, 1)
			b[i] = randTangent(rng, d, -1, 0, 3, 1)
			x[i] = randPointQ(rng, d, -2, 1)
			y[i] = randPointQ(rng, d, -2, 1)
		}
		var tp autodiff.Tape[float64]
		va, vb := leaf(denseOf[float64](a), "a"), leaf(denseOf[float64](b), "b")
		vx, vy := leaf(denseOf[float64](x), "x"), leaf(denseOf[float64](y), "y")
		g := RowTangentInner(&tp, va, vb, d)
		pn := RowPseudoNorm(&tp, va, d)
		in := RowInner(&tp, vx, vy, d)
		self := RowInner(&tp, vx, vx, d)
		for i := 0; i < n; i++ {
			if w := TangentMetric(a[i], b[i], d); math.Abs(g.Value.Data[i]-w) > 1e-13*(1+math.Abs(w)) {
				t.Fatalf("RowTangentInner row %d: %v want %v", i, g.Value.Data[i], w)
			}
			if w := PseudoNorm(a[i], d); math.Abs(pn.Value.Data[i]-w) > 1e-13*(1+w) {
				t.Fatalf("RowPseudoNorm row %d: %v want %v", i, pn.Value.Data[i], w)
			}
			if w := Inner(x[i], y[i], d); math.Abs(in.Value.Data[i]-w) > 1e-13*(1+math.Abs(w)) {
				t.Fatalf("RowInner row %d: %v want %v", i, in.Value.Data[i], w)
			}
			if math.Abs(self.Value.Data[i]+2) > 1e-12 {
				t.Fatalf("⟨x,x⟩ = %v on Q with β=−2", self.Value.Data[i])
			}
		}
	}
}

// Every output of ExpO and ProjQ (float32) lies on Q:
// |⟨x,x⟩ − β| ≤ 1e-5·(1+‖x‖²).
func TestOutputsOnQFloat32(t *testing.T) {
	forCases(t, func(t *testing.T, d Dims, beta float64, rng *rand.Rand) {
		var tp autodiff.Tape[float32]
		b := autodiff.NewVar(denseOf[float32]([][]float64{{beta}}), false)
		bT := float64(float32(beta))
		check := func(name string, out *autodiff.Var[float32]) {
			for i := 0; i < out.Value.Rows; i++ {
				if e := onQErr(rowOf(&out.Value, i), bT, d); e > 1e-5 {
					t.Fatalf("%s row %d off Q: %g", name, i, e)
				}
			}
		}
		xi := autodiff.NewVar(denseOf[float32](expInputs(rng, d, beta)), false)
		check("ExpO", ExpO(&tp, xi, b, d))
		x := autodiff.NewVar(denseOf[float32](projInputs(rng, d, beta)), false)
		check("ProjQ", ProjQ(&tp, x, b, d))
		p := autodiff.NewVar(denseOf[float32](paramInputs(rng, d)), false)
		check("PsiInvUnit", PsiInvUnit(&tp, p, b, d))
		// The model's chain: Proj_Q(exp̂(σ(loĝ(x)))).
		y := autodiff.NewVar(denseOf[float32](logInputs(rng, d, beta)), false)
		for a := ActSquash; a <= ActIdentity; a++ {
			check("chain", ProjQ(&tp, ExpO(&tp, TangentActivation(&tp, LogO(&tp, y, b, d), a), b, d), b, d))
		}
	})
}

// Round trips through the batched ops, in both precisions.
func TestBatchedRoundTrips(t *testing.T) {
	forCases(t, func(t *testing.T, d Dims, beta float64, rng *rand.Rand) {
		r := Radius(beta)
		var pts, tans [][]float64
		for k := 0; k < 16; k++ {
			pts = append(pts, randPointQ(rng, d, beta, []float64{0.1, 1, 3}[k%3]*r))
			tans = append(tans, randTangent(rng, d, beta, 0, 0.99*math.Pi, r))
		}
		var tp autodiff.Tape[float64]
		b := autodiff.NewVar(denseOf[float64]([][]float64{{beta}}), false)
		x := autodiff.NewVar(denseOf[float64](pts), false)
		xi := autodiff.NewVar(denseOf[float64](tans), false)
		el := ExpO(&tp, LogO(&tp, x, b, d), b, d)
		le := LogO(&tp, ExpO(&tp, xi, b, d), b, d)
		for i := range pts {
			if e := relDiff(rowOf(&el.Value, i), pts[i]); e > 1e-12 {
				t.Fatalf("exp̂∘loĝ row %d: %g", i, e)
			}
			if e := relDiff(rowOf(&le.Value, i), tans[i]); e > 1e-11 {
				t.Fatalf("loĝ∘exp̂ row %d: %g", i, e)
			}
		}
		var t32 autodiff.Tape[float32]
		b32 := autodiff.NewVar(denseOf[float32]([][]float64{{beta}}), false)
		x32 := autodiff.NewVar(denseOf[float32](pts), false)
		el32 := ExpO(&t32, LogO(&t32, x32, b32, d), b32, d)
		for i := range pts {
			if e := relDiff(rowOf(&el32.Value, i), rowOf(&x32.Value, i)); e > 1e-5 {
				t.Fatalf("float32 exp̂∘loĝ row %d: %g", i, e)
			}
		}
	})
}

// gradOp returns the op under test by name, in element type T.
func gradOp[T Float](name string, d Dims) func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
	type V = *autodiff.Var[T]
	type P = *autodiff.Tape[T]
	switch name {
	case "LogO":
		return func(tp P, x, b V) V { return LogO(tp, x, b, d) }
	case "ExpO":
		return func(tp P, x, b V) V { return ExpO(tp, x, b, d) }
	case "ProjQ":
		return func(tp P, x, b V) V { return ProjQ(tp, x, b, d) }
	case "PsiInvUnit":
		return func(tp P, x, b V) V { return PsiInvUnit(tp, x, b, d) }
	case "Wrap":
		return func(tp P, x, b V) V { return Wrap(tp, x, b) }
	case "LogExpO":
		return func(tp P, x, b V) V { return LogExpO(tp, x, b, d) }
	case "Radius":
		return func(tp P, x, b V) V { return autodiff.MulScalarVar(tp, x, RadiusOp(tp, b)) }
	case "metrics":
		return func(tp P, x, b V) V {
			y := Wrap(tp, x, b) // something that depends on β
			return autodiff.ConcatCols(tp, RowTangentInner(tp, x, y, d), RowPseudoNorm(tp, y, d),
				RowInner(tp, ExpO(tp, x, b, d), ExpO(tp, y, b, d), d))
		}
	}
	for a := ActSquash; a <= ActIdentity; a++ {
		if name == "chain/"+a.String() {
			// The model's chain loĝ → σ → exp̂ → Proj_Q, all sharing β.
			return func(tp P, x, b V) V {
				return ProjQ(tp, ExpO(tp, TangentActivation(tp, LogO(tp, x, b, d), a), b, d), b, d)
			}
		}
	}
	panic("unknown op " + name)
}

// curvGrad returns ∂(Σ w⊙op)/∂curvature (β leaf, or ρ with β = Beta(ρ)),
// analytically, for the op in element type T.
func curvGrad[T Float](name string, d Dims, rows [][]float64, c float64, viaRho bool) float64 {
	x := leaf(denseOf[T](rows), "x")
	curv := scalarVar[T](c, "c")
	var tp autodiff.Tape[T]
	b := curv
	if viaRho {
		b = Beta(&tp, curv)
	}
	out := gradOp[T](name, d)(&tp, x, b)
	w := tensor.NewDense[T](out.Value.Rows, out.Value.Cols)
	rng := newRNG(77)
	for i := range w.Data {
		w.Data[i] = T(2*rng.Float64() - 1)
	}
	if err := tp.BackwardSeeded(out, w); err != nil {
		panic(err)
	}
	return float64(curv.Grad.Data[0])
}

// gradCase checks op's gradients with respect to its input and the
// curvature, once through a β leaf and once through ρ with β = Beta(ρ).
//
// In float64 both use autodiff.GradCheck; ∂L/∂β (∂L/∂ρ) sums over every
// row, so its central difference carries the rounding of the whole output
// and gets a step relative to the curvature's size (1e-5·|c|), which balances
// rounding against truncation. In float32 the input is checked with
// GradCheck, but no finite-difference step resolves the curvature gradient
// of a float32 sum over many rows to 1e-3 (rounding and truncation both
// exceed it for the small ∂/∂β of ProjQ and PsiInvUnit), so the float32
// analytic ∂/∂β is compared with the float64 analytic one (itself
// GradCheck-verified) on the same rounded inputs, to tol.
func gradCase[T Float](t *testing.T, name string, d Dims, rows [][]float64, beta, eps, tol float64) {
	t.Helper()
	_, is32 := any(T(0)).(float32)
	op := gradOp[T](name, d)
	for _, viaRho := range []bool{false, true} {
		x := leaf(denseOf[T](rows), "x")
		c := beta
		curv := scalarVar[T](beta, "β")
		if viaRho {
			c = RhoFromBeta(beta)
			curv = scalarVar[T](c, "ρ")
		}
		build := func(tp *autodiff.Tape[T]) (*autodiff.Var[T], error) {
			b := curv
			if viaRho {
				b = Beta(tp, curv)
			}
			return op(tp, x, b), nil
		}
		checks := []struct {
			v   *autodiff.Var[T]
			eps float64
		}{{x, eps}}
		if !is32 {
			// The curvature's step is at least 1e-6: with 1e-7 (β =
			// −0.01) the central difference's rounding, ε·|f|/h, reached
			// 1.6e-6 of the gradient on arm64, whose fused multiply-adds
			// round f differently; the truncation error at 1e-6 stays
			// below 1e-8.
			checks = append(checks, struct {
				v   *autodiff.Var[T]
				eps float64
			}{curv, 1e-5 * math.Max(1e-1, math.Abs(c))})
		}
		for _, in := range checks {
			e, err := autodiff.GradCheck(build, []*autodiff.Var[T]{in.v}, in.eps)
			if err != nil {
				t.Fatalf("%s (viaRho=%v): %v", name, viaRho, err)
			}
			if e > tol {
				t.Errorf("%s (viaRho=%v): ∂/∂%s rel err %g > %g (step %g)", name, viaRho, in.v.Name, e, tol, in.eps)
			}
		}
		if !allFinite(x.Grad.Data) || !allFinite(curv.Grad.Data) {
			t.Fatalf("%s: non-finite gradient", name)
		}
		if is32 {
			rounded := make([][]float64, len(rows))
			for i, r := range rows {
				rounded[i] = roundTo[T](r)
			}
			cT := float64(T(c))
			g32 := curvGrad[T](name, d, rows, c, viaRho)
			g64 := curvGrad[float64](name, d, rounded, cT, viaRho)
			if e := math.Abs(g32-g64) / math.Max(math.Abs(g64), 1e-12); e > tol {
				t.Errorf("%s (viaRho=%v): float32 ∂/∂%s = %v, float64 %v (rel %g)", name, viaRho, curv.Name, g32, g64, e)
			}
		}
	}
}

// Generic inputs for the gradient checks: away from the antipode, from
// θ = kπ for Wrap, and from x_T = 0; the pole axis, ξ = 0 and the series
// branches are smooth and included.
func gradInputs(rng *rand.Rand, d Dims, beta float64) (logX, expX, projX, parX, wrapX, actX [][]float64) {
	r := Radius(beta)
	for k := 0; k < 6; k++ {
		s := []float64{0.2, 1, 2}[k%3] * r
		logX = append(logX, ExpOVec(randTangent(rng, d, beta, 0.2, 2.8, s), beta, d))
		expX = append(expX, randTangent(rng, d, beta, 0.05, 5, s))
		parX = append(parX, paramInputs(rng, d)[0])
		// Away from the light cone g(ξ,ξ) = 0, where √|g| bends sharply.
		a := randTangent(rng, d, beta, 0.1, 3, s)
		for q := TangentMetric(a, a, d); math.Abs(q) < 0.3*dot(a, a); q = TangentMetric(a, a, d) {
			for i := d.T; i < len(a); i++ {
				a[i] *= 2
			}
			if d.S == 0 {
				break
			}
		}
		actX = append(actX, a)
		w := randTangent(rng, Dims{T: d.T}, beta, 0.1, 2.9, 0)
		if k%2 == 1 {
			w = randTangent(rng, Dims{T: d.T}, beta, 3.3, 6, 0)
		}
		wrapX = append(wrapX, w)
	}
	// Off Q, series branch, pole axis.
	x := ExpOVec(randTangent(rng, d, beta, 0.5, 2, r), beta, d)
	for i := 0; i <= d.T; i++ {
		x[i] *= 0.7
	}
	logX = append(logX, x, ExpOVec(randTangent(rng, d, beta, 0.03, 0.03, r), beta, d))
	pole := make([]float64, d.Ambient())
	pole[0] = 1.3 * r
	for i := d.T + 1; i < len(pole); i++ {
		pole[i] = 0.3 * r
	}
	logX = append(logX, pole)
	expX = append(expX, make([]float64, d.Tangent()), randTangent(rng, d, beta, 0.2, 0.2, r))
	for k := 0; k < 4; k++ {
		p := make([]float64, d.Ambient())
		for i := range p {
			p[i] = r * rng.NormFloat64()
		}
		projX = append(projX, p)
	}
	return
}

// withSpace returns the time-block rows ts extended by random space
// blocks of scale s (d-wide tangent rows).
func withSpace(rng *rand.Rand, d Dims, ts [][]float64, s float64) [][]float64 {
	rows := make([][]float64, len(ts))
	for k, x := range ts {
		rows[k] = append(make([]float64, 0, d.Tangent()), x...)
		for range d.S {
			rows[k] = append(rows[k], s*rng.NormFloat64())
		}
	}
	return rows
}

// LogExpO is the composition loĝ_o ∘ exp̂_o, and loĝ_o ∘ Proj_Q ∘ exp̂_o,
// of the batched ops in value and in gradient (into ξ and β), away from
// ‖ξ_T‖ = kπr, where the composition meets the antipode.
func TestLogExpOIsLogOfExpO(t *testing.T) {
	forCases(t, func(t *testing.T, d Dims, beta float64, rng *rand.Rand) {
		r := Radius(beta)
		var rows [][]float64
		for len(rows) < 30 {
			x := randTangent(rng, d, beta, 0, 7*math.Pi, []float64{0.1, 1, 3}[len(rows)%3]*r)
			th := math.Sqrt(dot(x[:d.T], x[:d.T])) / r
			if k := math.Round(th / math.Pi); k > 0 && math.Abs(th-k*math.Pi) < 1e-3 {
				continue
			}
			rows = append(rows, x)
		}
		rows = append(rows, make([]float64, d.Tangent()))
		w := make([]float64, len(rows)*d.Tangent())
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		eval := func(op func(tp *autodiff.Tape[float64], x, b *autodiff.Var[float64]) *autodiff.Var[float64]) (y, gx []float64, gb float64) {
			var tp autodiff.Tape[float64]
			x := leaf(denseOf[float64](rows), "x")
			b := scalarVar[float64](beta, "β")
			out := op(&tp, x, b)
			seed := tensor.NewDense[float64](out.Value.Rows, out.Value.Cols)
			copy(seed.Data, w)
			if err := tp.BackwardSeeded(out, seed); err != nil {
				t.Fatal(err)
			}
			return out.Value.Data, x.Grad.Data, b.Grad.Data[0]
		}
		y, gx, gb := eval(func(tp *autodiff.Tape[float64], x, b *autodiff.Var[float64]) *autodiff.Var[float64] {
			return LogExpO(tp, x, b, d)
		})
		for _, proj := range []bool{false, true} {
			cy, cgx, cgb := eval(func(tp *autodiff.Tape[float64], x, b *autodiff.Var[float64]) *autodiff.Var[float64] {
				p := ExpO(tp, x, b, d)
				if proj {
					p = ProjQ(tp, p, b, d)
				}
				return LogO(tp, p, b, d)
			})
			if e := relDiff(y, cy); e > 1e-10 {
				t.Errorf("Proj_Q %v: values differ from the composition by %.2g", proj, e)
			}
			if e := relDiff(gx, cgx); e > 1e-8 {
				t.Errorf("Proj_Q %v: ∂ξ differs from the composition's by %.2g", proj, e)
			}
			if e := math.Abs(gb - cgb); e > 1e-7*(1+math.Abs(cgb)) {
				t.Errorf("Proj_Q %v: ∂β = %v, the composition's %v", proj, gb, cgb)
			}
		}
	})
}

func testGradients[T Float](t *testing.T, eps, tol float64, betas []float64) {
	_, is32 := any(T(0)).(float32)
	for _, d := range testDims {
		for _, beta := range betas {
			for seed := uint64(0); seed < 3; seed++ {
				t.Run(caseName(d, beta, seed), func(t *testing.T) {
					rng := newRNG(seed + 100)
					logX, expX, projX, parX, wrapX, actX := gradInputs(rng, d, beta)
					e := eps
					if is32 {
						e *= math.Min(1, Radius(beta))
					}
					gradCase[T](t, "LogO", d, logX, beta, e, tol)
					gradCase[T](t, "ExpO", d, expX, beta, e, tol)
					gradCase[T](t, "ProjQ", d, projX, beta, e, tol)
					gradCase[T](t, "PsiInvUnit", d, parX, beta, e, tol)
					gradCase[T](t, "Wrap", d, wrapX, beta, e, tol)
					gradCase[T](t, "LogExpO", d, withSpace(rng, d, wrapX, Radius(beta)), beta, e, tol)
					gradCase[T](t, "Radius", d, logX[:1], beta, e, tol)
					gradCase[T](t, "metrics", d, actX, beta, e, tol)
					// The chain in float64 only: float32 rounding of the
					// intermediate results makes central differences of
					// the composition noisier than 1e-3 (each op passes on
					// its own above). The step is 1e-6 in units of
					// max(1, r), since the chain's outputs scale with r
					// while squash makes its gradient small. ReLU and
					// squash skip the pole-axis row, where loĝ gives
					// ξ_T = 0: ReLU has a kink there, and squash(ξ) ≈ ‖ξ‖·ξ
					// at ξ = 0 (s = 0) is C¹ but not C², so central
					// differences are off by O(step) while the analytic
					// Jacobian (0) is exact.
					if is32 {
						return
					}
					for a := ActSquash; a <= ActIdentity; a++ {
						rows := logX
						if a == ActReLU || a == ActSquash {
							rows = logX[:len(logX)-1]
						}
						gradCase[T](t, "chain/"+a.String(), d, rows, beta, e*math.Max(1, Radius(beta)), tol)
					}
				})
			}
		}
	}
}

func TestGradCheck64(t *testing.T) { testGradients[float64](t, 1e-6, 1e-6, testBetas) }

func TestGradCheck32(t *testing.T) {
	testGradients[float32](t, 1e-2, 1e-3, []float64{-0.3, -1, -4})
}

// Activations on their own (no curvature input).
func TestActivationGradients(t *testing.T) {
	rng := newRNG(11)
	rows := [][]float64{make([]float64, 6)}
	for k := 0; k < 8; k++ {
		row := make([]float64, 6)
		for i := range row {
			row[i] = []float64{0.01, 1, 30}[k%3] * rng.NormFloat64()
		}
		rows = append(rows, row)
	}
	for a := ActSquash; a <= ActIdentity; a++ {
		in := rows
		if a == ActReLU {
			in = rows[1:] // ReLU's kink at the zero row
		}
		x := leaf(denseOf[float64](in), "ξ")
		e, err := autodiff.GradCheck(func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
			return TangentActivation(tp, x, a), nil
		}, []*autodiff.Var[float64]{x}, 1e-7)
		if err != nil || e > 1e-6 {
			t.Fatalf("%v: err %v rel %g", a, err, e)
		}
	}
}

// Finite values and finite gradients at the singular points, in both
// precisions: ξ = 0, u_⊥ = 0 (pole axis), the antipode, ‖ξ‖ = 1e4, x_T = 0,
// light-like tangent vectors, and θ = π for Wrap.
func TestSingularPointsFinite(t *testing.T) {
	singularFinite[float64](t)
	singularFinite[float32](t)
}

func singularFinite[T Float](t *testing.T) {
	for _, d := range testDims {
		for _, beta := range testBetas {
			r := Radius(beta)
			rng := newRNG(5)
			logRows := logInputs(rng, d, beta)
			expRows := expInputs(rng, d, beta)
			light := make([]float64, d.Tangent())
			light[0] = 1
			if d.S > 0 {
				light[d.T] = 1
			}
			expRows = append(expRows, light)
			big := make([]float64, d.Tangent())
			big[0] = 1e4
			wrapRows := [][]float64{make([]float64, d.T), big[:d.T]}
			pi := make([]float64, d.T)
			pi[0] = math.Pi * r
			wrapRows = append(wrapRows, pi)
			projRows := [][]float64{make([]float64, d.Ambient()), logRows[len(logRows)-2]}
			run := func(name string, rows [][]float64, op func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T]) {
				var tp autodiff.Tape[T]
				x := leaf(denseOf[T](rows), "x")
				rho := scalarVar[T](RhoFromBeta(beta), "ρ")
				out := op(&tp, x, Beta(&tp, rho))
				if !allFinite(out.Value.Data) {
					t.Fatalf("%s s%d t%d β=%v: non-finite value %v", name, d.S, d.T, beta, out.Value.Data)
				}
				if err := tp.BackwardSeeded(out, nil); err != nil {
					t.Fatal(err)
				}
				if !allFinite(x.Grad.Data) || !allFinite(rho.Grad.Data) {
					t.Fatalf("%s s%d t%d β=%v: non-finite gradient %v %v", name, d.S, d.T, beta, x.Grad.Data, rho.Grad.Data)
				}
			}
			run("LogO", logRows, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] { return LogO(tp, x, b, d) })
			run("ExpO", expRows, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] { return ExpO(tp, x, b, d) })
			run("ProjQ", projRows, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] { return ProjQ(tp, x, b, d) })
			run("Wrap", wrapRows, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] { return Wrap(tp, x, b) })
			run("LogExpO", append(expRows, withSpace(rng, d, wrapRows, r)...), func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
				return LogExpO(tp, x, b, d)
			})
			run("chain", logRows, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
				return ProjQ(tp, ExpO(tp, TangentActivation(tp, LogO(tp, x, b, d), ActSquash), b, d), b, d)
			})
			run("metrics", expRows, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] {
				return autodiff.ConcatCols(tp, RowPseudoNorm(tp, x, d), RowTangentInner(tp, x, x, d), RowPseudoNorm(tp, LogO(tp, ExpO(tp, x, b, d), b, d), d))
			})
			for a := ActSquash; a <= ActIdentity; a++ {
				run("act", expRows, func(tp *autodiff.Tape[T], x, b *autodiff.Var[T]) *autodiff.Var[T] { return TangentActivation(tp, x, a) })
			}
		}
	}
}

// Documented gradient values at the singular points.
func TestSingularGradientValues(t *testing.T) {
	d := Dims{S: 1, T: 2}
	beta := -4.0
	r := 2.0
	// Antipode: no gradient into x_T, ∂ξ_T/∂r = π·e₁ ⇒ ∂L/∂β = π·G₀·(−1/(2r)).
	x := leaf(denseOf[float64]([][]float64{{-3, 0, 0, math.Sqrt(5)}}), "x")
	b := scalarVar[float64](beta, "β")
	var tp autodiff.Tape[float64]
	out := LogO(&tp, x, b, d)
	seed := denseOf[float64]([][]float64{{1, 2, 3}})
	if err := tp.BackwardSeeded(out, seed); err != nil {
		t.Fatal(err)
	}
	if g := x.Grad.Data; g[0] != 0 || g[1] != 0 || g[2] != 0 || g[3] != 3 {
		t.Fatalf("antipode ∂x = %v", g)
	}
	if got, want := b.Grad.Data[0], math.Pi*1*(-1/(2*r)); math.Abs(got-want) > 1e-15 {
		t.Fatalf("antipode ∂β = %v, want %v", got, want)
	}
	// ξ = 0: ExpO's Jacobian is the embedding ξ ↦ (0, ξ_T, ξ_S).
	xi := leaf(tensor.NewDense[float64](1, 3), "ξ")
	tp.Reset()
	out = ExpO(&tp, xi, b, d)
	if err := tp.BackwardSeeded(out, denseOf[float64]([][]float64{{7, 1, 2, 3}})); err != nil {
		t.Fatal(err)
	}
	if g := xi.Grad.Data; math.Abs(g[0]-1) > 1e-15 || math.Abs(g[1]-2) > 1e-15 || math.Abs(g[2]-3) > 1e-15 {
		t.Fatalf("ExpO Jacobian at 0: ∂ξ = %v, want [1 2 3]", g)
	}
}

func TestShapeAndCurvaturePanics(t *testing.T) {
	d := Dims{S: 2, T: 2}
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	var tp autodiff.Tape[float64]
	x := autodiff.NewVar(tensor.NewDense[float64](3, 6), false)
	good := scalarVar[float64](-1, "β")
	mustPanic("wrong cols", func() { LogO(&tp, x, good, d) })
	mustPanic("β ≥ 0", func() {
		ExpO(&tp, autodiff.NewVar(tensor.NewDense[float64](3, 4), false), scalarVar[float64](0.5, "β"), d)
	})
	mustPanic("β NaN", func() { ProjQ(&tp, x, scalarVar[float64](math.NaN(), "β"), d) })
	mustPanic("β shape", func() { Wrap(&tp, x, autodiff.NewVar(tensor.NewDense[float64](2, 1), false)) })
	mustPanic("metric rows", func() {
		RowTangentInner(&tp, autodiff.NewVar(tensor.NewDense[float64](3, 4), false), autodiff.NewVar(tensor.NewDense[float64](2, 4), false), d)
	})
}

// A LogO/ExpO forward+backward pass on a Reset tape allocates nothing.
func TestZeroAllocs(t *testing.T) {
	d := Dims{S: 9, T: 9}
	rng := newRNG(9)
	var rows [][]float64
	for k := 0; k < 64; k++ {
		rows = append(rows, randPointQ(rng, d, -1, 1))
	}
	x := leaf(denseOf[float32](rows), "x")
	rho := scalarVar[float32](RhoInit, "ρ")
	seed := tensor.NewDense[float32](64, d.Ambient())
	for i := range seed.Data {
		seed.Data[i] = 1
	}
	var tp autodiff.Tape[float32]
	pass := func() {
		tp.Reset()
		b := Beta(&tp, rho)
		y := ExpO(&tp, TangentActivation(&tp, LogO(&tp, x, b, d), ActSquash), b, d)
		z := ProjQ(&tp, y, b, d)
		if err := tp.BackwardSeeded(z, seed); err != nil {
			t.Fatal(err)
		}
	}
	pass()
	if n := testing.AllocsPerRun(20, pass); n != 0 {
		t.Fatalf("steady-state pass allocates %v times", n)
	}
}

// Passes whose LogExpO wraps a row and passes where it wraps none take the
// same tape positions (Tape.Skip), so the ops after it keep their records:
// alternating the two allocates nothing. Before Skip, the op after the wrap
// shifted by one position at every change and allocated anew.
func TestLogExpOKeepsTapePositions(t *testing.T) {
	d := Dims{S: 2, T: 3}
	rho := scalarVar[float32](RhoInit, "ρ") // β = −1: a row wraps at ‖ξ_T‖ ≥ π
	inside := leaf(denseOf[float32]([][]float64{{0.5, 0.1, 0, 1, 2}, {0, 0.2, 0.3, 0, 0}}), "inside")
	wraps := leaf(denseOf[float32]([][]float64{{0.5, 0.1, 0, 1, 2}, {4, 0, 0, 0, 0}}), "wraps")
	var tp autodiff.Tape[float32]
	pass := func(x *autodiff.Var[float32]) {
		tp.Reset()
		y := LogExpO(&tp, x, Beta(&tp, rho), d)
		if err := tp.Backward(autodiff.Sum(&tp, autodiff.Mul(&tp, y, y))); err != nil {
			t.Fatal(err)
		}
	}
	both := func() { pass(wraps); pass(inside) }
	both()
	if n := testing.AllocsPerRun(20, both); n != 0 {
		t.Fatalf("alternating wrapping and non-wrapping passes allocate %v times", n)
	}
}

// Large batches take the parallel path; the result (β gradient included) must
// match a serial evaluation row block by row block.
func TestParallelMatchesSerial(t *testing.T) {
	d := Dims{S: 9, T: 9}
	rng := newRNG(21)
	n := 5000
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = randPointQ(rng, d, -2, 1)
	}
	grads := func(rows [][]float64) (float64, []float64) {
		var tp autodiff.Tape[float64]
		x := leaf(denseOf[float64](rows), "x")
		b := scalarVar[float64](-2, "β")
		out := ExpO(&tp, LogO(&tp, x, b, d), b, d)
		if err := tp.BackwardSeeded(out, nil); err != nil {
			t.Fatal(err)
		}
		return b.Grad.Data[0], x.Grad.Data
	}
	gb, gx := grads(rows)
	sum := 0.0
	for lo := 0; lo < n; lo += 100 {
		b, g := grads(rows[lo : lo+100])
		sum += b
		for i, v := range g {
			if math.Abs(v-gx[lo*d.Ambient()+i]) > 1e-12*(1+math.Abs(v)) {
				t.Fatalf("row-block %d: ∂x differs", lo)
			}
		}
	}
	if math.Abs(sum-gb) > 1e-9*(1+math.Abs(gb)) {
		t.Fatalf("∂β parallel %v vs serial blocks %v", gb, sum)
	}
}

// WrapAngle is atan2(sin θ, cos θ) up to rounding, on both sides of every
// odd multiple of π, and ±π at a rounded odd multiple of π (the float k·π
// lies a little above or below the branch cut).
func TestWrapAngle(t *testing.T) {
	for i := 0; i <= 200000; i++ {
		th := math.Pi + float64(i)*0.005
		want := math.Atan2(math.Sin(th), math.Cos(th))
		got := WrapAngle(th)
		if d := math.Abs(got - want); d > 1e-12 && math.Abs(d-2*math.Pi) > 1e-9 {
			t.Fatalf("WrapAngle(%v) = %v, want %v", th, got, want)
		}
		if got <= -math.Pi || got > math.Pi {
			t.Fatalf("WrapAngle(%v) = %v outside (−π, π]", th, got)
		}
	}
	for k := 1; k < 50; k += 2 {
		if got := WrapAngle(float64(k) * math.Pi); math.Abs(math.Abs(got)-math.Pi) > 1e-12 {
			t.Errorf("WrapAngle(%dπ) = %v, want ±π", k, got)
		}
	}
}

// noneWraps' shortcut (no square root below a margin under πr) decides
// every row as wrapTerms' test does, for rows placed just below, at and
// just above θ = π, in float64 and float32.
func TestNoneWrapsMatchesWrapTheta(t *testing.T) {
	t.Run("float64", testNoneWraps[float64])
	t.Run("float32", testNoneWraps[float32])
}

func testNoneWraps[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const tc, cols = 3, 5
	for trial := 0; trial < 4000; trial++ {
		r := math.Exp(rng.NormFloat64())
		x := tensor.NewDense[T](1, cols)
		for j := range x.Data {
			x.Data[j] = T(rng.NormFloat64())
		}
		// Scale the time block to θ = π·(1 + δ), δ from −1e-6 to 1e-6 on a
		// log scale, or 0.
		n := math.Sqrt(sumSq(x.Data[:tc]))
		delta := math.Pow(10, -6-10*rng.Float64())
		if rng.IntN(2) == 0 {
			delta = -delta
		}
		if rng.IntN(10) == 0 {
			delta = 0
		}
		for j := 0; j < tc; j++ {
			x.Data[j] = T(float64(x.Data[j]) * math.Pi * r * (1 + delta) / n)
		}
		th, _ := wrapTheta(x.Data[:tc], r)
		want := th < math.Pi
		if got := noneWraps(autodiff.NewVar(x, false), tc, r); got != want {
			t.Fatalf("trial %d: θ = %.17g: noneWraps %v, wrapTheta says %v", trial, th, got, want)
		}
	}
}
