package optim

import "github.com/prcaps/prcaps/tensor"

// Manifold is the geometry of a manifold-valued parameter for RiemannianAdam
// (geoopt's algorithm). Each row of the parameter matrix is one point on the
// manifold, in the manifold's own coordinates. Implementations live beside
// the geometry (package manifold); Euclidean parameters have no Manifold.
type Manifold[T tensor.Float] interface {
	// EgradToRgrad turns the Euclidean gradient g at x into the Riemannian
	// gradient, in place.
	EgradToRgrad(x, g *tensor.Dense[T])
	// RetrTransp moves every point x along the tangent vector u (x ← R_x(u))
	// and transports the tangent vector v from the old point to the new one,
	// both in place.
	RetrTransp(x, u, v *tensor.Dense[T])
	// Inner returns the Riemannian inner product ⟨u, w⟩ at x for each row,
	// written into dst (len Rows); used for Adam's second moment.
	Inner(x, u, w *tensor.Dense[T], dst []T)
	// Proj maps every row of x back onto the manifold, in place (guards
	// against drift from rounding).
	Proj(x *tensor.Dense[T])
}
