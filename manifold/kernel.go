package manifold

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Float is the element type constraint of the batched ops.
type Float = tensor.Float

// blockRows is the row block of the curvature-gradient reduction: each block
// writes one partial sum, and the partials are added in block order, so the
// result does not depend on how many goroutines ran.
const blockRows = 256

// rowsReducer is a backward kernel over rows [lo, hi) that returns its
// contribution to a scalar gradient (∂L/∂r).
type rowsReducer interface {
	backwardRows(lo, hi int) float64
}

// reducer runs a rowsReducer over fixed row blocks in parallel and sums the
// block results deterministically. It lives inside an op record, so its
// buffers and bound method value are reused from pass to pass.
type reducer struct {
	k       rowsReducer
	n       int
	partial []float64
	fn      func(lo, hi int)
}

func (r *reducer) blocks(blo, bhi int) {
	for b := blo; b < bhi; b++ {
		lo := b * blockRows
		r.partial[b] = r.k.backwardRows(lo, min(lo+blockRows, r.n))
	}
}

// run calls k on every row of [0, n) (cost = work per row) and returns the
// sum of its results.
func (r *reducer) run(k rowsReducer, n, cost int) float64 {
	if r.fn == nil {
		r.fn = r.blocks
	}
	r.k, r.n = k, n
	nb := (n + blockRows - 1) / blockRows
	if cap(r.partial) < nb {
		r.partial = make([]float64, nb)
	}
	r.partial = r.partial[:nb]
	tensor.ParallelFor(nb, cost*blockRows, r.fn)
	s := 0.0
	for _, v := range r.partial {
		s += v
	}
	r.k = nil
	return s
}

// radiusOf checks that beta is a 1×1 Var holding a finite β < 0 and returns
// r = √|β|.
func radiusOf[T Float](op string, beta *autodiff.Var[T]) float64 {
	if beta == nil || beta.Value.Rows != 1 || beta.Value.Cols != 1 {
		panic(fmt.Sprintf("manifold: %s: β must be a 1×1 Var", op))
	}
	b := float64(beta.Value.Data[0])
	if !(b < 0) || math.IsInf(b, 0) {
		panic(fmt.Sprintf("manifold: %s: curvature β = %v must be finite and negative (use Beta(ρ))", op, b))
	}
	return math.Sqrt(-b)
}

// addBetaGrad adds ∂L/∂β = ∂L/∂r · dr/dβ = ∂L/∂r · (−1/(2r)) to beta.Grad.
func addBetaGrad[T Float](beta *autodiff.Var[T], dr, r float64) {
	beta.Grad.Data[0] += T(-dr / (2 * r))
}

func checkCols[T Float](op, name string, v *autodiff.Var[T], want int) {
	if v.Value.Cols != want {
		panic(fmt.Sprintf("manifold: %s: %s is %d×%d, want %d columns", op, name, v.Value.Rows, v.Value.Cols, want))
	}
}

// Series coefficients (filled by init):
//
//	atanB(z²) = (d/dz (atan z / z)) / z  = Σ_{k≥1} (−1)^k 2k/(2k+1) z^(2k−2)
//	sincS(θ²) = sin θ / θ                = Σ_{k≥0} (−1)^k θ^(2k)/(2k+1)!
//	sincP(θ²) = (d/dθ (sin θ/θ)) / θ     = Σ_{k≥1} (−1)^k 2k θ^(2k−2)/(2k+1)!
var atanBc, sincSc, sincPc [10]float64

func init() {
	fact := 1.0 // (2k+1)!
	for k := 0; k < 10; k++ {
		if k > 0 {
			fact *= float64(2*k) * float64(2*k+1)
		}
		sign := 1.0
		if k%2 == 1 {
			sign = -1
		}
		sincSc[k] = sign / fact
		if k >= 1 {
			atanBc[k-1] = sign * float64(2*k) / float64(2*k+1)
			sincPc[k-1] = sign * float64(2*k) / fact
		}
	}
	// The tenth coefficients of atanB and sincP (k = 10).
	fact *= 20 * 21
	atanBc[9] = 20.0 / 21
	sincPc[9] = 20 / fact
}

func horner(c *[10]float64, x float64) float64 {
	s := 0.0
	for k := len(c) - 1; k >= 0; k-- {
		s = s*x + c[k]
	}
	return s
}

// sincTerms returns S = sin θ/θ and P = S'(θ)/θ = (θ cos θ − sin θ)/θ³ for
// θ ≥ 0, by series below 0.5 (no cancellation, finite at 0).
func sincTerms(th, sin, cos float64) (S, P float64) {
	if th < 0.5 {
		t2 := th * th
		return horner(&sincSc, t2), horner(&sincPc, t2)
	}
	return sin / th, (th*cos - sin) / (th * th * th)
}

// Cases of loĝ_o on one row.
const (
	logGeneric  = iota // ξ_T = r·f·x_⊥
	logZero            // ‖x_T‖ ≤ EpsNorm: ξ_T = 0
	logAntipode        // x on the antipode of the pole: ξ_T = π·r·e₁
)

// logTerms classifies a row of loĝ_o by x₀, n = ‖x_⊥‖, m = ‖x_T‖ and returns
// f = atan2(n, x₀)/n (so that ξ_T = r·f·x_⊥) and q = (∂f/∂n)/n, the factor
// of the second-order term of the Jacobian. Near the pole's axis on the pole
// side (n < 0.1·x₀) both come from series in z = n/x₀:
// f = (atan z/z)/x₀, q = atanB(z²)/x₀³.
func logTerms(x0, n, m float64) (kind int, f, q float64) {
	switch {
	case m <= EpsNorm:
		return logZero, 0, 0
	case x0 < 0 && n <= AxisTol*m:
		return logAntipode, 0, 0
	case x0 > 0 && n < 0.1*x0:
		z := n / x0
		if n > 0 {
			f = math.Atan2(n, x0) / n
		} else {
			f = 1 / x0
		}
		return logGeneric, f, horner(&atanBc, z*z) / (x0 * x0 * x0)
	}
	f = math.Atan2(n, x0) / n
	return logGeneric, f, (x0/(m*m) - f) / (n * n)
}

// sumSq returns Σ v², accumulated in float64.
func sumSq[T Float](v []T) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}

// normT is the Euclidean norm of v in float64, rescaled by max|v| when the
// plain sum of squares overflows or underflows (so that squash and the
// reference stay finite and exact for any finite input).
func normT[T Float](v []T) float64 {
	s := sumSq(v)
	if s == 0 || (s > 1e-280 && !math.IsInf(s, 0)) {
		return math.Sqrt(s)
	}
	mx := 0.0
	for _, x := range v {
		mx = math.Max(mx, math.Abs(float64(x)))
	}
	if mx == 0 || math.IsInf(mx, 0) || math.IsNaN(mx) {
		return math.Sqrt(s)
	}
	t := 0.0
	for _, x := range v {
		y := float64(x) / mx
		t += y * y
	}
	return mx * math.Sqrt(t)
}

// dotT returns Σ a·b in float64.
func dotT[T Float](a, b []T) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
