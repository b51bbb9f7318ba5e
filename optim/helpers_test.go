package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// maxAbsDiff returns max_i |a_i − b_i|.
func maxAbsDiff[T, U tensor.Float](a []T, b []U) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// assertClose fails when |got − want| > tol elementwise.
func assertClose[T, U tensor.Float](t *testing.T, what string, got []T, want []U, tol float64) {
	t.Helper()
	if d := maxAbsDiff(got, want); !(d <= tol) {
		t.Fatalf("%s: max |got − want| = %.3g > %.3g\ngot  %v\nwant %v", what, d, tol, got, want)
	}
}

// newParamFrom returns a parameter holding vals as an r×c matrix.
func newParamFrom[T tensor.Float](name string, r, c int, vals []float64) *autodiff.Var[T] {
	p := autodiff.NewParam[T](name, r, c)
	for i, v := range vals {
		p.Value.Data[i] = T(v)
	}
	return p
}

// randVals returns n normal values from a fixed seed.
func randVals(seed uint64, n int, scale float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float64, n)
	for i := range out {
		out[i] = scale * rng.NormFloat64()
	}
	return out
}

// quadGrad is the gradient of the toy loss ½Σ a_i (p_i − t_i)² with fixed
// positive curvatures a and targets t, written into p.Grad (accumulating, as
// a backward pass does).
type quadGrad struct{ a, t []float64 }

func newQuad(seed uint64, n int) quadGrad {
	a := randVals(seed, n, 1)
	for i := range a {
		a[i] = 0.5 + math.Abs(a[i])
	}
	return quadGrad{a: a, t: randVals(seed+1, n, 2)}
}

func (q quadGrad) at(p []float64) []float64 {
	g := make([]float64, len(p))
	for i := range p {
		g[i] = q.a[i] * (p[i] - q.t[i])
	}
	return g
}

func setGrad[T tensor.Float](p *autodiff.Var[T], q quadGrad) {
	for i, v := range p.Value.Data {
		p.Grad.Data[i] += T(q.a[i] * (float64(v) - q.t[i]))
	}
}

// unitSphere is a test-only Manifold: every row of a parameter is a point of
// the unit sphere in R^cols, with geoopt Sphere's operations: egrad2rgrad and
// proju are the tangent projection u − ⟨x,u⟩x, retraction x ← (x+u)/‖x+u‖,
// transport = projection onto the new tangent space, inner = row dot
// product (so the second moment is the row inner broadcast, geoopt's default
// component_inner).
type unitSphere[T tensor.Float] struct{}

func dotRow[T tensor.Float](a, b []T) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func (unitSphere[T]) Proju(x, u *tensor.Dense[T]) {
	for r := range x.Rows {
		xr, ur := x.Row(r), u.Row(r)
		d := dotRow(xr, ur)
		for k := range ur {
			ur[k] = T(float64(ur[k]) - d*float64(xr[k]))
		}
	}
}

func (s unitSphere[T]) EgradToRgrad(x, g *tensor.Dense[T]) { s.Proju(x, g) }

func (s unitSphere[T]) RetrTransp(x, u, v *tensor.Dense[T]) {
	for r := range x.Rows {
		xr, ur := x.Row(r), u.Row(r)
		for k := range xr {
			xr[k] += ur[k]
		}
	}
	s.Proj(x)
	s.Proju(x, v)
}

func (unitSphere[T]) Inner(x, u, w *tensor.Dense[T], dst []T) {
	for r := range x.Rows {
		dst[r] = T(dotRow(u.Row(r), w.Row(r)))
	}
}

func (unitSphere[T]) Proj(x *tensor.Dense[T]) {
	for r := range x.Rows {
		xr := x.Row(r)
		n := math.Sqrt(dotRow(xr, xr))
		for k := range xr {
			xr[k] = T(float64(xr[k]) / n)
		}
	}
}

// euclid is a test-only Euclidean Manifold that goes through
// RiemannianAdam's general manifold path: identity gradient conversion,
// retraction x + u, identity transport, elementwise component inner.
type euclid[T tensor.Float] struct{}

func (euclid[T]) EgradToRgrad(x, g *tensor.Dense[T]) {}

func (euclid[T]) RetrTransp(x, u, v *tensor.Dense[T]) {
	for i := range x.Data {
		x.Data[i] += u.Data[i]
	}
}

func (euclid[T]) Inner(x, u, w *tensor.Dense[T], dst []T) {
	for r := range x.Rows {
		dst[r] = T(dotRow(u.Row(r), w.Row(r)))
	}
}

func (euclid[T]) Proj(x *tensor.Dense[T]) {}

func (euclid[T]) ComponentInner(x, u, dst *tensor.Dense[T]) {
	for i, v := range u.Data {
		dst.Data[i] = v * v
	}
}

// indefinite is a test-only Manifold whose metric flips the sign of the
// first coordinate (like a pseudo-Riemannian one) and has no positive
// surrogate: RiemannianAdam must refuse it rather than take sqrt of < 0.
type indefinite[T tensor.Float] struct{ euclid[T] }

func (indefinite[T]) ComponentInner(x, u, dst *tensor.Dense[T]) {
	for i, v := range u.Data {
		dst.Data[i] = v * v
		if i%u.Cols == 0 {
			dst.Data[i] = -v * v
		}
	}
}
