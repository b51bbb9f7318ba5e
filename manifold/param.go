package manifold

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/tensor"
)

// SphereEuclidean is the parameter manifold of points on Q stored through ψ
// (DESIGN §4): each row is (û, v) with û on the unit sphere S^t ⊂ R^(t+1)
// (the first T+1 columns) and v ∈ R^s, and PsiInvUnit maps it to
// ψ⁻¹(r·û, v) ∈ Q for the current β. The metric is the one induced by
// R^(t+1) × R^s (the product of the round unit sphere and Euclidean space),
// which is ψ's pull-back of the product metric up to the constant factor r²
// on the sphere block; Adam's per-coordinate scaling makes that factor
// immaterial, and keeping û on the unit sphere leaves stored parameters valid
// while β is learned.
//
// It implements optim.Manifold[T] (geoopt's Sphere × Euclidean):
//   - EgradToRgrad projects out the radial component on the sphere block,
//     g_T ← g_T − (g_T·û)û, identity on R^s;
//   - RetrTransp moves û along the great circle (the exact exponential map)
//     and v by addition, then transports by projection onto the new tangent
//     space;
//   - Inner is the Euclidean row dot product;
//   - Proj renormalises û (e₀ when û ≈ 0).
type SphereEuclidean[T Float] struct {
	Dims Dims
}

func (m SphereEuclidean[T]) check(name string, x *tensor.Dense[T]) {
	m.Dims.Validate()
	if x.Cols != m.Dims.Ambient() {
		panic(fmt.Sprintf("manifold: SphereEuclidean: %s is %d×%d, want %d columns", name, x.Rows, x.Cols, m.Dims.Ambient()))
	}
}

func (m SphereEuclidean[T]) checkPair(x, u *tensor.Dense[T], name string) {
	m.check("x", x)
	if !u.SameShape(x) {
		panic(fmt.Sprintf("manifold: SphereEuclidean: %s is %d×%d, x is %d×%d", name, u.Rows, u.Cols, x.Rows, x.Cols))
	}
}

// EgradToRgrad implements optim.Manifold: g_T ← g_T − (g_T·û)û on each row.
func (m SphereEuclidean[T]) EgradToRgrad(x, g *tensor.Dense[T]) {
	m.checkPair(x, g, "g")
	T1 := m.Dims.T + 1
	for i := 0; i < x.Rows; i++ {
		projectTangent(g.Row(i)[:T1], x.Row(i)[:T1])
	}
}

// projectTangent sets v ← v − (v·u)u for a unit u.
func projectTangent[T Float](v, u []T) {
	c := dotT(v, u)
	for j, x := range u {
		v[j] = T(float64(v[j]) - c*float64(x))
	}
}

// RetrTransp implements optim.Manifold. On the sphere block of each row, with
// u_T first projected onto the tangent space at û (so that drift cannot
// leave the sphere) and φ = ‖u_T‖,
//
//	û ← cos φ·û + (sin φ/φ)·u_T   (then renormalised against rounding),
//
// the sphere's exponential map; v ← v + u_S. The vector v_T is transported by
// projection onto the tangent space at the new û; v_S is unchanged. x, u and
// v must not share storage except u and v with each other.
func (m SphereEuclidean[T]) RetrTransp(x, u, v *tensor.Dense[T]) {
	m.checkPair(x, u, "u")
	m.checkPair(x, v, "v")
	T1 := m.Dims.T + 1
	for i := 0; i < x.Rows; i++ {
		xr, ur := x.Row(i), u.Row(i)
		xt, ut := xr[:T1], ur[:T1]
		// Tangent component of u_T, in float64, without modifying u.
		c := dotT(ut, xt)
		phi2 := 0.0
		for j := range ut {
			w := float64(ut[j]) - c*float64(xt[j])
			phi2 += w * w
		}
		phi := math.Sqrt(phi2)
		sin, cos := math.Sincos(phi)
		S, _ := sincTerms(phi, sin, cos)
		nn := 0.0
		for j := range xt {
			w := float64(ut[j]) - c*float64(xt[j])
			y := cos*float64(xt[j]) + S*w
			xt[j] = T(y)
			nn += y * y
		}
		normaliseRow(xt, math.Sqrt(nn))
		for j := T1; j < len(xr); j++ {
			xr[j] += ur[j]
		}
		projectTangent(v.Row(i)[:T1], xt)
	}
}

// normaliseRow scales u to unit norm (n = its norm), or sets it to e₀ when
// n ≤ EpsNorm.
func normaliseRow[T Float](u []T, n float64) {
	if n <= EpsNorm || math.IsNaN(n) {
		clear(u)
		u[0] = 1
		return
	}
	for j, x := range u {
		u[j] = T(float64(x) / n)
	}
}

// Inner implements optim.Manifold: dst[i] = Σ_j u_ij·w_ij (the metric
// induced by R^D on S^t × R^s).
func (m SphereEuclidean[T]) Inner(x, u, w *tensor.Dense[T], dst []T) {
	m.checkPair(x, u, "u")
	m.checkPair(x, w, "w")
	if len(dst) != x.Rows {
		panic(fmt.Sprintf("manifold: SphereEuclidean.Inner: dst has length %d, want %d", len(dst), x.Rows))
	}
	for i := range dst {
		dst[i] = T(dotT(u.Row(i), w.Row(i)))
	}
}

// Proj implements optim.Manifold: û ← û/‖û‖ on every row (e₀ if û ≈ 0).
func (m SphereEuclidean[T]) Proj(x *tensor.Dense[T]) {
	m.check("x", x)
	T1 := m.Dims.T + 1
	for i := 0; i < x.Rows; i++ {
		xt := x.Row(i)[:T1]
		normaliseRow(xt, math.Sqrt(sumSq(xt)))
	}
}

// ParamsFromPoints returns the parameter rows (û, v) = (x_T/‖x_T‖, x_S) of the
// points x (n×D) — ψ(x) with the sphere block scaled to radius 1 — so that
// PsiInvUnit gives back x for the β of x's Q. Rows with x_T ≈ 0 get û = e₀.
func ParamsFromPoints[T Float](x *tensor.Dense[T], dims Dims) *tensor.Dense[T] {
	m := SphereEuclidean[T]{Dims: dims}
	m.check("x", x)
	p := x.Clone()
	m.Proj(p)
	return p
}

// ComponentInner implements optim.ComponentInner, mirroring geoopt's
// ProductManifold(Sphere, Euclidean): every coordinate of the sphere block
// gets the block's squared norm ‖u_T‖² (the sphere's inner broadcast over
// its coordinates), and each Euclidean coordinate gets u_j².
func (m SphereEuclidean[T]) ComponentInner(x, u, dst *tensor.Dense[T]) {
	m.checkPair(x, u, "u")
	m.checkPair(x, dst, "dst")
	T1 := m.Dims.T + 1
	for i := 0; i < x.Rows; i++ {
		ur, dr := u.Row(i), dst.Row(i)
		s := T(sumSq(ur[:T1]))
		for j := range T1 {
			dr[j] = s
		}
		for j := T1; j < len(ur); j++ {
			dr[j] = ur[j] * ur[j]
		}
	}
}

// Proju implements optim.TangentProjector: u_T ← u_T − (u_T·û)û on every
// row; the Euclidean block is unchanged.
func (m SphereEuclidean[T]) Proju(x, u *tensor.Dense[T]) {
	m.EgradToRgrad(x, u)
}
