package manifold

import (
	"fmt"
	"math"
)

// Dims is the signature of Q_{s,t}^β: S space-like and T time-like tangent
// dimensions (DESIGN §4). Points have Ambient() = S+T+1 coordinates (time
// block of T+1 first), tangent vectors at the pole Tangent() = S+T.
type Dims struct {
	S, T int
}

// Ambient is D = S+T+1, the number of coordinates of a point on Q.
func (d Dims) Ambient() int { return d.S + d.T + 1 }

// Tangent is d = S+T, the number of tangent coordinates at the pole.
func (d Dims) Tangent() int { return d.S + d.T }

// Validate panics unless S ≥ 0 and T ≥ 1 (the sphere block S^t needs t ≥ 1).
func (d Dims) Validate() {
	if d.S < 0 || d.T < 1 {
		panic(fmt.Sprintf("manifold: invalid Dims{S: %d, T: %d}: need S ≥ 0 and T ≥ 1", d.S, d.T))
	}
}

const (
	// BetaOffset is the margin that keeps β = −softplus(ρ) − BetaOffset
	// strictly negative (DESIGN §4).
	BetaOffset = 1e-4
	// EpsNorm is the norm below which x_T counts as 0 (x is then not on Q
	// and ψ is undefined): ψ uses the pole's direction e₀ instead.
	EpsNorm = 1e-12
	// AxisTol is the relative size ‖x_⊥‖ ≤ AxisTol·‖x_T‖ below which a point
	// with x₀ < 0 counts as the antipode of the pole in loĝ_o.
	AxisTol = 1e-15
	// EpsPseudoNorm is the pseudo-norm below which RowPseudoNorm passes no
	// gradient (√|q| is not differentiable at q = 0).
	EpsPseudoNorm = 1e-12
)

// Softplus is log(1+e^ρ), computed without overflow.
func Softplus(rho float64) float64 {
	return math.Max(rho, 0) + math.Log1p(math.Exp(-math.Abs(rho)))
}

// sigmoid is 1/(1+e^−v), the derivative of Softplus, without overflow.
func sigmoid(v float64) float64 {
	if v >= 0 {
		return 1 / (1 + math.Exp(-v))
	}
	e := math.Exp(v)
	return e / (1 + e)
}

// BetaFromRho is the curvature parametrisation β = −softplus(ρ) − 1e-4
// (DESIGN §4); dβ/dρ = −σ(ρ).
func BetaFromRho(rho float64) float64 { return -Softplus(rho) - BetaOffset }

// RhoFromBeta inverts BetaFromRho: ρ = log(e^(−β−1e-4) − 1). It panics
// unless β < −1e-4 (the range of the parametrisation).
func RhoFromBeta(beta float64) float64 {
	y := -beta - BetaOffset // softplus(ρ) = y > 0
	if !(y > 0) || math.IsInf(y, 0) {
		panic(fmt.Sprintf("manifold: RhoFromBeta(%v): β must be finite and < −%v", beta, BetaOffset))
	}
	// softplus⁻¹(y) = y + log(1 − e^−y) = log(expm1(y)), stable both ways.
	if y > 20 {
		return y + math.Log1p(-math.Exp(-y))
	}
	return math.Log(math.Expm1(y))
}

// RhoInit is the ρ at which β = −1 (the default initial curvature).
var RhoInit = RhoFromBeta(-1)

// Radius is r = √|β| for β < 0 (DESIGN §4); it panics otherwise.
func Radius(beta float64) float64 {
	if !(beta < 0) || math.IsInf(beta, 0) {
		panic(fmt.Sprintf("manifold: curvature β = %v must be finite and negative", beta))
	}
	return math.Sqrt(-beta)
}

func checkLen(name string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("manifold: %s has length %d, want %d", name, got, want))
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// norm is the Euclidean norm, rescaled when the sum of squares overflows or
// underflows.
func norm(a []float64) float64 { return normT(a) }

// Inner is the ambient pseudo-Euclidean product ⟨x,y⟩ = −⟨x_T,y_T⟩ + ⟨x_S,y_S⟩
// with the time block (T+1 coordinates) first (DESIGN §4; paper Eq.
// pseudo_inner_product with the sign moved to the time block).
func Inner(x, y []float64, d Dims) float64 {
	d.Validate()
	checkLen("x", len(x), d.Ambient())
	checkLen("y", len(y), d.Ambient())
	return -dot(x[:d.T+1], y[:d.T+1]) + dot(x[d.T+1:], y[d.T+1:])
}

// TangentMetric is g(ξ,η) = −⟨ξ_T,η_T⟩ + ⟨ξ_S,η_S⟩ on tangent coordinates
// at the pole (T time-like coordinates first; DESIGN §4).
func TangentMetric(xi, eta []float64, d Dims) float64 {
	d.Validate()
	checkLen("ξ", len(xi), d.Tangent())
	checkLen("η", len(eta), d.Tangent())
	return -dot(xi[:d.T], eta[:d.T]) + dot(xi[d.T:], eta[d.T:])
}

// PseudoNorm is ‖ξ‖_ps = √|g(ξ,ξ)| (DESIGN §4).
func PseudoNorm(xi []float64, d Dims) float64 {
	return math.Sqrt(math.Abs(TangentMetric(xi, xi, d)))
}

// Psi is ψ(x) = (r·x_T/‖x_T‖, x_S) ∈ S^t(r) × R^s (DESIGN §4; paper Theorem
// "Diffeomorphism ψ"), returned as one slice (u | v) of length D. For
// ‖x_T‖ ≤ EpsNorm (x not on Q) it uses the pole direction: u = r·e₀.
func Psi(x []float64, beta float64, d Dims) []float64 {
	d.Validate()
	checkLen("x", len(x), d.Ambient())
	r := Radius(beta)
	out := make([]float64, len(x))
	m := norm(x[:d.T+1])
	if m <= EpsNorm {
		out[0] = r
	} else {
		for i := 0; i <= d.T; i++ {
			out[i] = r * x[i] / m
		}
	}
	copy(out[d.T+1:], x[d.T+1:])
	return out
}

// PsiInv is ψ⁻¹(u,v) = (√(|β|+‖v‖²)/r · u, v) for u ∈ S^t(r), v ∈ R^s, given
// as one slice (u | v) of length D (DESIGN §4; paper Eq. psi_inv_map).
func PsiInv(uv []float64, beta float64, d Dims) []float64 {
	d.Validate()
	checkLen("(u,v)", len(uv), d.Ambient())
	r := Radius(beta)
	v := uv[d.T+1:]
	s := math.Sqrt(-beta+dot(v, v)) / r
	out := make([]float64, len(uv))
	for i := 0; i <= d.T; i++ {
		out[i] = s * uv[i]
	}
	copy(out[d.T+1:], v)
	return out
}

// SphereLog is the logarithmic map of the sphere S^t(r) at the pole
// p = r·e₀: for u = (u₀, u_⊥) ∈ R^(t+1),
//
//	log_p(u) = r·atan2(‖u_⊥‖, u₀)·u_⊥/‖u_⊥‖ ∈ R^t
//
// (DESIGN §4), with the limit u_⊥ at u_⊥ = 0, u₀ > 0 (the pole), and the
// documented choice π·r·e₁ at the antipode (‖u_⊥‖ ≤ AxisTol·‖u‖, u₀ < 0),
// where the log is not unique. u = 0 gives 0.
func SphereLog(u []float64, r float64) []float64 {
	t := len(u) - 1
	if t < 1 {
		panic("manifold: SphereLog needs t ≥ 1")
	}
	out := make([]float64, t)
	n := norm(u[1:])
	m := norm(u)
	switch {
	case m <= EpsNorm:
	case u[0] < 0 && n <= AxisTol*m:
		out[0] = math.Pi * r
	case n == 0:
		// u_⊥ = 0 on the pole side: the limit is u_⊥ = 0.
	default:
		s := r * math.Atan2(n, u[0]) / n
		for i := range out {
			out[i] = s * u[1+i]
		}
	}
	return out
}

// SphereExp is the exponential map of S^t(r) at p = r·e₀:
//
//	exp_p(ξ) = r·(cos θ, sin θ·ξ/‖ξ‖) = (r cos θ, (sin θ/θ)·ξ),  θ = ‖ξ‖/r
//
// (DESIGN §4), with sin θ/θ = 1 at θ = 0.
func SphereExp(xi []float64, r float64) []float64 {
	out := make([]float64, len(xi)+1)
	th := norm(xi) / r
	sinc := 1.0
	if th != 0 {
		sinc = math.Sin(th) / th
	}
	out[0] = r * math.Cos(th)
	for i, v := range xi {
		out[1+i] = sinc * v
	}
	return out
}

// LogOVec is the reference diffeomorphic log at the pole,
// loĝ_o(x) = (log_p(ψ(x)_T), x_S) ∈ R^d (DESIGN §4; paper Eq.
// diffeo_log_map, where dψ⁻¹ at the pole is the identity).
func LogOVec(x []float64, beta float64, d Dims) []float64 {
	u := Psi(x, beta, d)
	out := make([]float64, d.Tangent())
	copy(out, SphereLog(u[:d.T+1], Radius(beta)))
	copy(out[d.T:], x[d.T+1:])
	return out
}

// ExpOVec is the reference diffeomorphic exp at the pole,
// exp̂_o(ξ) = ψ⁻¹(exp_p(ξ_T), ξ_S) ∈ Q (DESIGN §4; paper Eq. diffeo_exp_map).
func ExpOVec(xi []float64, beta float64, d Dims) []float64 {
	d.Validate()
	checkLen("ξ", len(xi), d.Tangent())
	uv := make([]float64, d.Ambient())
	copy(uv, SphereExp(xi[:d.T], Radius(beta)))
	copy(uv[d.T+1:], xi[d.T:])
	return PsiInv(uv, beta, d)
}

// ProjQVec is the reference projection onto Q,
// Proj_Q(x) = (√(|β|+‖x_S‖²)·x_T/‖x_T‖, x_S) (DESIGN §4), using e₀ as the
// direction when ‖x_T‖ ≤ EpsNorm.
func ProjQVec(x []float64, beta float64, d Dims) []float64 {
	d.Validate()
	checkLen("x", len(x), d.Ambient())
	Radius(beta)
	xs := x[d.T+1:]
	a := math.Sqrt(-beta + dot(xs, xs))
	out := make([]float64, len(x))
	m := norm(x[:d.T+1])
	if m <= EpsNorm {
		out[0] = a
	} else {
		for i := 0; i <= d.T; i++ {
			out[i] = a * x[i] / m
		}
	}
	copy(out[d.T+1:], xs)
	return out
}

// WrapVec is wrap_r = log_p ∘ exp_p on S^t(r) (DESIGN §5 step 1): the
// identity for ‖ξ‖ < π·r, otherwise ξ with its length reduced into (−πr, πr]
// along ξ's direction. It is computed literally as SphereLog(SphereExp(ξ)).
func WrapVec(xi []float64, r float64) []float64 {
	return SphereLog(SphereExp(xi, r), r)
}

// Activation selects the tangent-space nonlinearity σ of Eq.
// activation_projection (DESIGN §5 step 4).
type Activation uint8

const (
	// ActSquash is CapsNet's squash on the whole tangent vector,
	// ‖ξ‖²/(1+‖ξ‖²)·ξ/‖ξ‖, with the Euclidean norm of the tangent
	// coordinates (the pseudo-norm vanishes on light-like ξ ≠ 0 and would
	// collapse them; the Euclidean norm keeps squash a contraction to the
	// unit ball as in CapsNet).
	ActSquash Activation = iota
	// ActTanh is tanh applied to each coordinate.
	ActTanh
	// ActReLU is max(0, ·) applied to each coordinate.
	ActReLU
	// ActIdentity leaves ξ unchanged.
	ActIdentity
)

// String returns the activation's name as ParseActivation accepts it.
func (a Activation) String() string {
	switch a {
	case ActSquash:
		return "squash"
	case ActTanh:
		return "tanh"
	case ActReLU:
		return "relu"
	case ActIdentity:
		return "identity"
	}
	return fmt.Sprintf("Activation(%d)", uint8(a))
}

// ParseActivation maps "squash", "tanh", "relu" or "identity" to its
// Activation.
func ParseActivation(s string) (Activation, error) {
	for a := ActSquash; a <= ActIdentity; a++ {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("manifold: unknown tangent activation %q (want squash, tanh, relu or identity)", s)
}

// MarshalText writes the activation's name (for JSON configurations).
func (a Activation) MarshalText() ([]byte, error) {
	if a > ActIdentity {
		return nil, fmt.Errorf("manifold: invalid activation %d", uint8(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText parses a name ParseActivation accepts.
func (a *Activation) UnmarshalText(b []byte) error {
	v, err := ParseActivation(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// squashScale is ‖ξ‖/(1+‖ξ‖²) written as 1/(s+1/s), exact for large s, and 0
// at s = 0 (squash(ξ) = squashScale(‖ξ‖)·ξ).
func squashScale(s float64) float64 {
	if s == 0 {
		return 0
	}
	return 1 / (s + 1/s)
}

// ActivateVec is the reference tangent activation σ(ξ).
func ActivateVec(xi []float64, a Activation) []float64 {
	out := make([]float64, len(xi))
	switch a {
	case ActSquash:
		s := squashScale(norm(xi))
		for i, v := range xi {
			out[i] = s * v
		}
	case ActTanh:
		for i, v := range xi {
			out[i] = math.Tanh(v)
		}
	case ActReLU:
		for i, v := range xi {
			out[i] = math.Max(v, 0)
		}
	case ActIdentity:
		copy(out, xi)
	default:
		panic(fmt.Sprintf("manifold: unknown %v", a))
	}
	return out
}
