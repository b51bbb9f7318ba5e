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

// ComponentInner is an optional extension of Manifold, detected by type
// assertion, that mirrors geoopt's Manifold.component_inner: the squared
// Riemannian norm of the tangent vector u at x split over the coordinates of
// the parameter, one value per element. RiemannianAdam accumulates it into
// its second moment, so each coordinate block gets its own adaptive step.
//
// geoopt's component_inner is the row inner product broadcast over the row
// for every manifold but ProductManifold; that is what RiemannianAdam uses
// when a Manifold does not implement this interface. A ProductManifold tiles
// each factor's own component_inner over that factor's coordinates: for
// S^t(r) × R^s (the ψ chart of the pseudo-hyperboloid) the sphere's row
// inner over the time block and u⊙u over the Euclidean block, which is what
// an implementation of this interface should then return. Values must be
// finite and non-negative: a manifold whose metric is indefinite
// (pseudo-Riemannian) must give a positive-definite surrogate here, since
// Adam takes the square root; RiemannianAdam returns an error otherwise.
type ComponentInner[T tensor.Float] interface {
	// ComponentInner writes the per-coordinate inner ⟨u, u⟩_x into dst,
	// which has x's shape.
	ComponentInner(x, u, dst *tensor.Dense[T])
}

// TangentProjector is an optional extension of Manifold, detected by type
// assertion, used by RiemannianAdam's periodic stabilisation (geoopt's
// stabilize_group): after re-projecting the point it re-projects the
// transported first moment onto the tangent space at the point.
type TangentProjector[T tensor.Float] interface {
	// Proju projects every row of u onto the tangent space at the matching
	// row of x, in place.
	Proju(x, u *tensor.Dense[T])
}
