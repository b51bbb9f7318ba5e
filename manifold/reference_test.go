package manifold

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestCurvatureParametrisation(t *testing.T) {
	if got := BetaFromRho(RhoInit); math.Abs(got+1) > 1e-15 {
		t.Fatalf("BetaFromRho(RhoInit) = %v, want −1", got)
	}
	for _, beta := range []float64{-1.0001e-4, -1e-3, -0.01, -0.5, -1, -2, -4, -100, -1e4} {
		rho := RhoFromBeta(beta)
		if got := BetaFromRho(rho); math.Abs(got-beta) > 1e-12*math.Abs(beta) {
			t.Errorf("β=%v: BetaFromRho(RhoFromBeta) = %v", beta, got)
		}
	}
	for _, rho := range []float64{-800, -30, -1, 0, 1, 30, 800} {
		b := BetaFromRho(rho)
		if !(b < -BetaOffset*0.999) || math.IsInf(b, 0) {
			t.Errorf("ρ=%v: β = %v not < −1e-4", rho, b)
		}
	}
	for _, bad := range []float64{0, 1, -1e-5, math.NaN(), math.Inf(-1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RhoFromBeta(%v) did not panic", bad)
				}
			}()
			RhoFromBeta(bad)
		}()
	}
}

func TestDimsValidate(t *testing.T) {
	for _, d := range []Dims{{S: 0, T: 0}, {S: -1, T: 3}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v.Validate() did not panic", d)
				}
			}()
			d.Validate()
		}()
	}
	d := Dims{S: 9, T: 9}
	if d.Ambient() != 19 || d.Tangent() != 18 {
		t.Fatalf("Dims{9,9}: D=%d d=%d", d.Ambient(), d.Tangent())
	}
}

// The identities of DESIGN §4 on the reference functions.
func TestReferenceIdentities(t *testing.T) {
	forCases(t, func(t *testing.T, d Dims, beta float64, rng *rand.Rand) {
		r := Radius(beta)
		for k := 0; k < 20; k++ {
			vscale := []float64{0.1, 1, 3}[k%3] * r
			x := randPointQ(rng, d, beta, vscale)
			if e := onQErr(x, beta, d); e > 1e-13 {
				t.Fatalf("ψ⁻¹ output off Q: %g", e)
			}
			// ψ⁻¹∘ψ = id on Q.
			if e := relDiff(PsiInv(Psi(x, beta, d), beta, d), x); e > 1e-13 {
				t.Fatalf("ψ⁻¹∘ψ: rel err %g", e)
			}
			// exp̂∘loĝ = id on Q.
			if e := relDiff(ExpOVec(LogOVec(x, beta, d), beta, d), x); e > 1e-12 {
				t.Fatalf("exp̂∘loĝ: rel err %g at x=%v", e, x)
			}
			// Proj_Q fixes Q.
			if e := relDiff(ProjQVec(x, beta, d), x); e > 1e-13 {
				t.Fatalf("Proj_Q not identity on Q: %g", e)
			}
			// loĝ∘exp̂ = id for ‖ξ_T‖ < πr; ExpO lands on Q for any ξ.
			xi := randTangent(rng, d, beta, 0, 0.999*math.Pi, vscale)
			y := ExpOVec(xi, beta, d)
			if e := onQErr(y, beta, d); e > 1e-13 {
				t.Fatalf("exp̂ output off Q: %g", e)
			}
			if e := relDiff(LogOVec(y, beta, d), xi); e > 1e-11 {
				t.Fatalf("loĝ∘exp̂: rel err %g", e)
			}
			big := randTangent(rng, d, beta, math.Pi, 40, vscale)
			if e := onQErr(ExpOVec(big, beta, d), beta, d); e > 1e-13 {
				t.Fatalf("exp̂ (large ξ) off Q: %g", e)
			}
			// Proj_Q lands on Q from anywhere.
			z := make([]float64, d.Ambient())
			for i := range z {
				z[i] = 3 * rng.NormFloat64()
			}
			if e := onQErr(ProjQVec(z, beta, d), beta, d); e > 1e-13 {
				t.Fatalf("Proj_Q off Q: %g", e)
			}
		}
	})
}

// Independent evaluation of exp̂: the sphere geodesic as the matrix
// exponential of the rotation generator θ·(e_ξ e₀ᵀ − e₀ e_ξᵀ) applied to
// the pole (gonum mat.Exp, Padé), then ψ⁻¹ written out by hand. For loĝ the
// geodesic angle is r·arccos(x₀/‖x_T‖) and the direction x_⊥/‖x_⊥‖, and
// exp(log(x)) is re-evaluated with the matrix exponential.
func TestIndependentEvaluation(t *testing.T) {
	rotExp := func(xiT []float64, r float64) []float64 {
		n := len(xiT) + 1
		th := norm(xiT) / r
		A := mat.NewDense(n, n, nil)
		if th > 0 {
			for i, v := range xiT {
				e := v / norm(xiT)
				A.Set(1+i, 0, th*e)
				A.Set(0, 1+i, -th*e)
			}
		}
		var R mat.Dense
		R.Exp(A)
		out := make([]float64, n)
		for i := range out {
			out[i] = r * R.At(i, 0)
		}
		return out
	}
	forCases(t, func(t *testing.T, d Dims, beta float64, rng *rand.Rand) {
		r := Radius(beta)
		for k := 0; k < 10; k++ {
			xi := randTangent(rng, d, beta, 0, 6*math.Pi, r)
			u := rotExp(xi[:d.T], r)
			xs := xi[d.T:]
			c := math.Sqrt(-beta + dot(xs, xs))
			want := make([]float64, d.Ambient())
			for i, v := range u {
				want[i] = c / r * v
			}
			copy(want[d.T+1:], xs)
			got := ExpOVec(xi, beta, d)
			if e := relDiff(got, want); e > 1e-12 {
				t.Fatalf("exp̂ vs matrix exponential: rel err %g", e)
			}

			// loĝ by arccos, away from the pole and the antipode where
			// arccos is well conditioned.
			x := ExpOVec(randTangent(rng, d, beta, 0.3, 2.8, r), beta, d)
			xT := x[:d.T+1]
			ang := math.Acos(x[0] / norm(xT))
			nperp := norm(xT[1:])
			lg := LogOVec(x, beta, d)
			for i := 0; i < d.T; i++ {
				if w := r * ang * xT[1+i] / nperp; math.Abs(lg[i]-w) > 1e-10*r {
					t.Fatalf("loĝ vs arccos: coord %d got %v want %v", i, lg[i], w)
				}
			}
			back := rotExp(lg[:d.T], r)
			for i := range back {
				back[i] *= math.Sqrt(-beta+dot(lg[d.T:], lg[d.T:])) / r
			}
			if e := relDiff(back, xT); e > 1e-12 {
				t.Fatalf("matrix-exp(loĝ(x)) ≠ x: %g", e)
			}
		}
	})
}

// dψ⁻¹ at the pole is the identity: d/ds exp̂(sξ)|₀ = (0, ξ_T, ξ_S) (central
// differences on the reference), and the pole maps to ξ = 0.
func TestExpDifferentialAtPole(t *testing.T) {
	forCases(t, func(t *testing.T, d Dims, beta float64, rng *rand.Rand) {
		r := Radius(beta)
		xi := randTangent(rng, d, beta, 0.1, 2, r)
		h := 1e-6
		sc := func(s float64) []float64 {
			v := make([]float64, len(xi))
			for i := range v {
				v[i] = s * xi[i]
			}
			return ExpOVec(v, beta, d)
		}
		p, m := sc(h), sc(-h)
		want := make([]float64, d.Ambient())
		copy(want[1:], xi)
		got := make([]float64, d.Ambient())
		for i := range got {
			got[i] = (p[i] - m[i]) / (2 * h)
		}
		if e := relDiff(got, want); e > 1e-7 {
			t.Fatalf("d exp̂ at 0: rel err %g", e)
		}
		o := make([]float64, d.Ambient())
		o[0] = r
		if lg := LogOVec(o, beta, d); norm(lg) != 0 {
			t.Fatalf("loĝ(o) = %v, want 0", lg)
		}
	})
}

func TestWrapReference(t *testing.T) {
	for _, r := range []float64{0.1, 1, 10} {
		rng := newRNG(7)
		for k := 0; k < 200; k++ {
			n := 1 + k%5
			dir := randUnit(rng, n)
			th := 10 * math.Pi * rng.Float64()
			xi := make([]float64, n)
			for i := range xi {
				xi[i] = r * th * dir[i]
			}
			// Independent: reduce θ into [−π, π] with math.Remainder.
			w := math.Remainder(th, 2*math.Pi)
			want := make([]float64, n)
			for i := range want {
				want[i] = r * w * dir[i]
			}
			if e := relDiff(WrapVec(xi, r), want); e > 1e-9 {
				t.Fatalf("r=%v θ=%v: wrap rel err %g", r, th, e)
			}
		}
	}
}

func TestMetricsAndActivationReference(t *testing.T) {
	d := Dims{S: 2, T: 1}
	x := []float64{2, 1, 0.5, -1}
	y := []float64{1, -1, 2, 3}
	if got, want := Inner(x, y, d), -(2*1+1*-1)+(0.5*2+-1*3); got != want {
		t.Fatalf("Inner = %v, want %v", got, want)
	}
	a := []float64{3, 1, 2}
	if got, want := TangentMetric(a, a, d), -9.0+1+4; got != want {
		t.Fatalf("TangentMetric = %v, want %v", got, want)
	}
	if got := PseudoNorm(a, d); got != 2 {
		t.Fatalf("PseudoNorm = %v, want 2", got)
	}
	sq := ActivateVec([]float64{3, 4}, ActSquash)
	if e := relDiff(sq, []float64{25.0 / 26 * 0.6, 25.0 / 26 * 0.8}); e > 1e-15 {
		t.Fatalf("squash = %v", sq)
	}
	if got := ActivateVec([]float64{0, 0}, ActSquash); got[0] != 0 || got[1] != 0 {
		t.Fatalf("squash(0) = %v", got)
	}
	if got := ActivateVec([]float64{1e200, 0}, ActSquash); math.Abs(got[0]-1) > 1e-15 {
		t.Fatalf("squash(1e200) = %v", got)
	}
	for a := ActSquash; a <= ActIdentity; a++ {
		if b, err := ParseActivation(a.String()); err != nil || b != a {
			t.Fatalf("ParseActivation(%q) = %v, %v", a.String(), b, err)
		}
	}
	if _, err := ParseActivation("gelu"); err == nil {
		t.Fatal("ParseActivation(gelu) did not fail")
	}
}

// The reference's documented singular values.
func TestReferenceSingularPoints(t *testing.T) {
	d := Dims{S: 2, T: 3}
	beta := -4.0
	r := 2.0
	// Antipode: ξ_T = π·r·e₁, and exp̂ of it gives the antipode back.
	x := []float64{-math.Sqrt(4 + 1 + 4), 0, 0, 0, 1, 2}
	lg := LogOVec(x, beta, d)
	want := []float64{math.Pi * r, 0, 0, 1, 2}
	if e := relDiff(lg, want); e > 1e-15 {
		t.Fatalf("loĝ(antipode) = %v, want %v", lg, want)
	}
	if e := relDiff(ExpOVec(lg, beta, d), x); e > 1e-15 {
		t.Fatalf("exp̂(loĝ(antipode)) = %v, want %v", ExpOVec(lg, beta, d), x)
	}
	// Pole axis: ξ_T = 0.
	x[0] = -x[0]
	if lg := LogOVec(x, beta, d); norm(lg[:3]) != 0 {
		t.Fatalf("loĝ(pole axis) = %v", lg)
	}
	// x_T = 0: ψ uses e₀; Proj_Q gives a point on Q.
	z := []float64{0, 0, 0, 0, 1, 2}
	if lg := LogOVec(z, beta, d); norm(lg[:3]) != 0 {
		t.Fatalf("loĝ(x_T=0) = %v", lg)
	}
	if e := onQErr(ProjQVec(z, beta, d), beta, d); e > 1e-15 {
		t.Fatalf("Proj_Q(x_T=0) off Q: %g", e)
	}
	// Huge ξ: finite and on Q.
	big := []float64{1e4, -1e4, 3e3, 1e4, 0}
	y := ExpOVec(big, beta, d)
	for _, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("exp̂(1e4) = %v", y)
		}
	}
	if e := onQErr(y, beta, d); e > 1e-14 {
		t.Fatalf("exp̂(1e4) off Q: %g", e)
	}
}
