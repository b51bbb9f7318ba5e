package manifold

import (
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Cost units per row handed to tensor.ParallelFor: a few transcendental
// functions per row plus a pass over the coordinates.
const rowCostBase = 64

// ---------------------------------------------------------------- LogO

type logOOp[T Float] struct {
	x, beta, out *autodiff.Var[T]
	dims         Dims
	r            float64
	red          reducer
	fwd          func(lo, hi int)
	// terms keeps each row's logTerms (kind, f, q) and m = ‖x_T‖ from the
	// forward pass when a backward pass will follow, so that it does not
	// take the square roots and the arctangent again (same values).
	terms []float64
}

// LogO records loĝ_o on every row of x (n×D points of Q) and returns the n×d
// tangent coordinates at the pole (DESIGN §4; paper Eq. diffeo_log_map):
//
//	ξ_T = log_p(r·x_T/‖x_T‖) = r·atan2(‖x_⊥‖, x₀)·x_⊥/‖x_⊥‖,   ξ_S = x_S,
//
// which does not depend on ‖x_T‖ (ψ only normalises it), so it is defined
// for any x with x_T ≠ 0. beta is the 1×1 curvature (see Beta); gradients
// flow into x and β. Singular rows (pole axis, antipode, x_T ≈ 0) follow the
// package documentation.
func LogO[T Float](t *autodiff.Tape[T], x, beta *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	dims.Validate()
	checkCols("LogO", "x", x, dims.Ambient())
	r := radiusOf("LogO", beta)
	out := t.Node(x.Value.Rows, dims.Tangent(), x, beta)
	p := autodiff.OpOf[logOOp[T]](out)
	if p.fwd == nil {
		p.fwd = p.forwardRows
	}
	p.x, p.beta, p.out, p.dims, p.r = x, beta, out, dims, r
	p.terms = keepRows(p.terms, out.RequiresGrad(), x.Value.Rows)
	tensor.ParallelFor(x.Value.Rows, rowCostBase+4*dims.Ambient(), p.fwd)
	return out
}

// keepRows returns buf resized to 4 values per row, or emptied when no
// backward pass will read them (the forward pass then stores nothing).
func keepRows(buf []float64, keep bool, rows int) []float64 {
	if !keep {
		return buf[:0]
	}
	if cap(buf) < 4*rows {
		return make([]float64, 4*rows)
	}
	return buf[:4*rows]
}

func (p *logOOp[T]) forwardRows(lo, hi int) {
	D, d, T1 := p.dims.Ambient(), p.dims.Tangent(), p.dims.T+1
	r := p.r
	for i := lo; i < hi; i++ {
		x := p.x.Value.Data[i*D : (i+1)*D]
		y := p.out.Value.Data[i*d : (i+1)*d]
		x0 := float64(x[0])
		n2 := sumSq(x[1:T1])
		n := math.Sqrt(n2)
		m := math.Sqrt(x0*x0 + n2)
		kind, f, q := logTerms(x0, n, m)
		if len(p.terms) > 0 {
			k := p.terms[4*i : 4*i+4]
			k[0], k[1], k[2], k[3] = float64(kind), f, q, m
		}
		yt := y[:T1-1]
		switch kind {
		case logGeneric:
			s := r * f
			for j, v := range x[1:T1] {
				yt[j] = T(s * float64(v))
			}
		default:
			clear(yt)
			if kind == logAntipode {
				yt[0] = T(math.Pi * r)
			}
		}
		copy(y[T1-1:], x[T1:])
	}
}

// backwardRows adds ∂L/∂x for rows [lo, hi) and returns their ∂L/∂r:
//
//	∂x_⊥ += r·(f·G + q·(G·x_⊥)·x_⊥),  ∂x₀ += −r·(G·x_⊥)/‖x_T‖²,
//	∂r   += f·(G·x_⊥),                 ∂x_S += G_S,
//
// with ∂x_T = 0 and ∂r = π·G₀ at the antipode, and ∂x_T = ∂r = 0 at x_T ≈ 0.
func (p *logOOp[T]) backwardRows(lo, hi int) float64 {
	D, d, T1 := p.dims.Ambient(), p.dims.Tangent(), p.dims.T+1
	r := p.r
	gradX := p.x.RequiresGrad()
	dr := 0.0
	for i := lo; i < hi; i++ {
		x := p.x.Value.Data[i*D : (i+1)*D]
		g := p.out.Grad.Data[i*d : (i+1)*d]
		xp := x[1:T1]
		k := p.terms[4*i : 4*i+4] // logTerms and m of the forward pass
		kind, f, q, m := int(k[0]), k[1], k[2], k[3]
		gt := g[:T1-1]
		switch kind {
		case logAntipode:
			dr += math.Pi * float64(gt[0])
		case logGeneric:
			gd := dotT(gt, xp)
			dr += f * gd
			if gradX {
				gx := p.x.Grad.Data[i*D : (i+1)*D]
				gx[0] += T(-r * gd / (m * m))
				a, b := r*f, r*q*gd
				for j, v := range xp {
					gx[1+j] += T(a*float64(gt[j]) + b*float64(v))
				}
			}
		}
		if gradX {
			gx := p.x.Grad.Data[i*D+T1 : (i+1)*D]
			for j, v := range g[T1-1:] {
				gx[j] += v
			}
		}
	}
	return dr
}

// Backward implements autodiff.Op.
func (p *logOOp[T]) Backward(out *autodiff.Var[T]) {
	dr := p.red.run(p, p.x.Value.Rows, rowCostBase+6*p.dims.Ambient())
	if p.beta.RequiresGrad() {
		addBetaGrad(p.beta, dr, p.r)
	}
}

// ---------------------------------------------------------------- ExpO

type expOOp[T Float] struct {
	xi, beta, out *autodiff.Var[T]
	dims          Dims
	r             float64
	red           reducer
	fwd           func(lo, hi int)
	// terms keeps each row's θ, sin θ, cos θ and c from the forward pass
	// when a backward pass will follow (see logOOp.terms).
	terms []float64
}

// ExpO records exp̂_o on every row of xi (n×d tangent coordinates at the
// pole) and returns the n×D points of Q (DESIGN §4; paper Eq.
// diffeo_exp_map): with θ = ‖ξ_T‖/r and c = √(|β|+‖ξ_S‖²),
//
//	x = ψ⁻¹(exp_p(ξ_T), ξ_S) = (c·cos θ, (c/r)·(sin θ/θ)·ξ_T, ξ_S),
//
// so ‖x_T‖² = |β| + ‖x_S‖² holds by construction. Gradients flow into ξ and
// β; sin θ/θ and its derivative use series near θ = 0.
func ExpO[T Float](t *autodiff.Tape[T], xi, beta *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	dims.Validate()
	checkCols("ExpO", "ξ", xi, dims.Tangent())
	r := radiusOf("ExpO", beta)
	out := t.Node(xi.Value.Rows, dims.Ambient(), xi, beta)
	p := autodiff.OpOf[expOOp[T]](out)
	if p.fwd == nil {
		p.fwd = p.forwardRows
	}
	p.xi, p.beta, p.out, p.dims, p.r = xi, beta, out, dims, r
	p.terms = keepRows(p.terms, out.RequiresGrad(), xi.Value.Rows)
	tensor.ParallelFor(xi.Value.Rows, rowCostBase+4*dims.Ambient(), p.fwd)
	return out
}

func (p *expOOp[T]) forwardRows(lo, hi int) {
	D, d, Tt := p.dims.Ambient(), p.dims.Tangent(), p.dims.T
	r := p.r
	for i := lo; i < hi; i++ {
		xi := p.xi.Value.Data[i*d : (i+1)*d]
		y := p.out.Value.Data[i*D : (i+1)*D]
		n := math.Sqrt(sumSq(xi[:Tt]))
		c := math.Sqrt(r*r + sumSq(xi[Tt:]))
		th := n / r
		sin, cos := math.Sincos(th)
		if len(p.terms) > 0 {
			k := p.terms[4*i : 4*i+4]
			k[0], k[1], k[2], k[3] = th, sin, cos, c
		}
		S, _ := sincTerms(th, sin, cos)
		y[0] = T(c * cos)
		k := c / r * S
		for j, v := range xi[:Tt] {
			y[1+j] = T(k * float64(v))
		}
		copy(y[Tt+1:], xi[Tt:])
	}
}

// backwardRows adds ∂L/∂ξ for rows [lo, hi) and returns their ∂L/∂r. With
// G = (G₀, G_⊥, G_S), γ = G_⊥·ξ_T, k = c/r, S = sin θ/θ, P = S'(θ)/θ:
//
//	∂L/∂c = G₀ cos θ + (S/r)·γ
//	∂ξ_T += k·S·G_⊥ + (−c·S·G₀ + k·P·γ)·ξ_T/r²
//	∂ξ_S += G_S + (∂L/∂c)·ξ_S/c
//	∂r   += (∂L/∂c)·r/c + c·θ·sin θ·G₀/r − (c/r²)·cos θ·γ
func (p *expOOp[T]) backwardRows(lo, hi int) float64 {
	D, d, Tt := p.dims.Ambient(), p.dims.Tangent(), p.dims.T
	r := p.r
	gradXi := p.xi.RequiresGrad()
	dr := 0.0
	for i := lo; i < hi; i++ {
		xi := p.xi.Value.Data[i*d : (i+1)*d]
		g := p.out.Grad.Data[i*D : (i+1)*D]
		xt, xs := xi[:Tt], xi[Tt:]
		k := p.terms[4*i : 4*i+4] // θ, sin θ, cos θ and c of the forward pass
		th, sin, cos, c := k[0], k[1], k[2], k[3]
		S, P := sincTerms(th, sin, cos)
		g0 := float64(g[0])
		gp := g[1 : Tt+1]
		gam := dotT(gp, xt)
		dc := g0*cos + S/r*gam
		dr += dc*r/c + c*th*sin*g0/r - c/(r*r)*cos*gam
		if gradXi {
			gx := p.xi.Grad.Data[i*d : (i+1)*d]
			k := c / r
			a := k * S
			b := (-c*S*g0 + k*P*gam) / (r * r)
			for j, v := range xt {
				gx[j] += T(a*float64(gp[j]) + b*float64(v))
			}
			e := dc / c
			for j, v := range xs {
				gx[Tt+j] += T(float64(g[Tt+1+j]) + e*float64(v))
			}
		}
	}
	return dr
}

// Backward implements autodiff.Op.
func (p *expOOp[T]) Backward(out *autodiff.Var[T]) {
	dr := p.red.run(p, p.xi.Value.Rows, rowCostBase+6*p.dims.Ambient())
	if p.beta.RequiresGrad() {
		addBetaGrad(p.beta, dr, p.r)
	}
}

// ---------------------------------------------------------------- ProjQ and PsiInvUnit

// scaleOp is the record of both maps of the form
//
//	y = (a·x_T/‖x_T‖, x_S)  (ProjQ, normalise = true) or
//	y = (a·x_T, x_S)         (PsiInvUnit, normalise = false),
//
// with a = √(|β|+‖x_S‖²).
type scaleOp[T Float] struct {
	x, beta, out *autodiff.Var[T]
	dims         Dims
	r            float64
	normalise    bool
	red          reducer
	fwd          func(lo, hi int)
}

func recordScale[T Float](name string, t *autodiff.Tape[T], x, beta *autodiff.Var[T], dims Dims, normalise bool) *autodiff.Var[T] {
	dims.Validate()
	checkCols(name, "x", x, dims.Ambient())
	r := radiusOf(name, beta)
	out := t.Node(x.Value.Rows, dims.Ambient(), x, beta)
	p := autodiff.OpOf[scaleOp[T]](out)
	if p.fwd == nil {
		p.fwd = p.forwardRows
	}
	p.x, p.beta, p.out, p.dims, p.r, p.normalise = x, beta, out, dims, r, normalise
	tensor.ParallelFor(x.Value.Rows, rowCostBase+3*dims.Ambient(), p.fwd)
	return out
}

// ProjQ records Proj_Q on every row of x (n×D) and returns n×D points on Q
// (DESIGN §4; paper Eq. activation_projection):
//
//	Proj_Q(x) = (√(|β|+‖x_S‖²)·x_T/‖x_T‖, x_S),
//
// with the direction e₀ (and no gradient into x_T) when ‖x_T‖ ≤ EpsNorm.
func ProjQ[T Float](t *autodiff.Tape[T], x, beta *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	return recordScale("ProjQ", t, x, beta, dims, true)
}

// PsiInvUnit records ψ⁻¹ for parameters stored on the unit sphere: each row
// of p (n×D) is (û, v) with û ∈ S^t ⊂ R^(t+1) of norm 1 and v ∈ R^s, and the
// output row is
//
//	ψ⁻¹(r·û, v) = (√(|β|+‖v‖²)·û, v) ∈ Q
//
// (DESIGN §4; paper Eq. psi_inv_map). û is not renormalised (the optimiser's
// manifold, SphereEuclidean, keeps it on the sphere), so ∂L/∂û is the plain
// Euclidean gradient that RiemannianAdam projects.
func PsiInvUnit[T Float](t *autodiff.Tape[T], p, beta *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	return recordScale("PsiInvUnit", t, p, beta, dims, false)
}

// rowScale returns a and the factor s with y_T = s·x_T (s = a/m, or a), and
// m = ‖x_T‖ when normalising (0 marks the x_T ≈ 0 case).
func (p *scaleOp[T]) rowScale(x []T) (a, s, m float64) {
	T1 := p.dims.T + 1
	a = math.Sqrt(p.r*p.r + sumSq(x[T1:]))
	if !p.normalise {
		return a, a, 1
	}
	m = math.Sqrt(sumSq(x[:T1]))
	if m <= EpsNorm {
		return a, 0, 0
	}
	return a, a / m, m
}

func (p *scaleOp[T]) forwardRows(lo, hi int) {
	D, T1 := p.dims.Ambient(), p.dims.T+1
	for i := lo; i < hi; i++ {
		x := p.x.Value.Data[i*D : (i+1)*D]
		y := p.out.Value.Data[i*D : (i+1)*D]
		a, s, m := p.rowScale(x)
		if m == 0 {
			clear(y[:T1])
			y[0] = T(a)
		} else {
			for j, v := range x[:T1] {
				y[j] = T(s * float64(v))
			}
		}
		copy(y[T1:], x[T1:])
	}
}

// backwardRows adds ∂L/∂x for rows [lo, hi) and returns their ∂L/∂r. With
// x̂ = x_T/‖x_T‖ (ProjQ) or x̂ = x_T (PsiInvUnit) and ∂L/∂a = G_T·x̂:
//
//	ProjQ:      ∂x_T += (a/‖x_T‖)·(G_T − (G_T·x̂)·x̂)
//	PsiInvUnit: ∂x_T += a·G_T
//	∂x_S += G_S + (∂L/∂a)·x_S/a,   ∂r += (∂L/∂a)·r/a.
func (p *scaleOp[T]) backwardRows(lo, hi int) float64 {
	D, T1 := p.dims.Ambient(), p.dims.T+1
	gradX := p.x.RequiresGrad()
	dr := 0.0
	for i := lo; i < hi; i++ {
		x := p.x.Value.Data[i*D : (i+1)*D]
		g := p.out.Grad.Data[i*D : (i+1)*D]
		a, s, m := p.rowScale(x)
		var da float64
		switch {
		case m == 0:
			da = float64(g[0])
		case p.normalise:
			gx := dotT(g[:T1], x[:T1]) / m // G_T·x̂
			da = gx
			if gradX {
				gr := p.x.Grad.Data[i*D : i*D+T1]
				c := gx / m
				for j, v := range x[:T1] {
					gr[j] += T(s * (float64(g[j]) - c*float64(v)))
				}
			}
		default:
			da = dotT(g[:T1], x[:T1])
			if gradX {
				gr := p.x.Grad.Data[i*D : i*D+T1]
				for j, v := range g[:T1] {
					gr[j] += T(a * float64(v))
				}
			}
		}
		dr += da * p.r / a
		if gradX {
			gr := p.x.Grad.Data[i*D+T1 : (i+1)*D]
			e := da / a
			for j, v := range x[T1:] {
				gr[j] += T(float64(g[T1+j]) + e*float64(v))
			}
		}
	}
	return dr
}

// Backward implements autodiff.Op.
func (p *scaleOp[T]) Backward(out *autodiff.Var[T]) {
	dr := p.red.run(p, p.x.Value.Rows, rowCostBase+4*p.dims.Ambient())
	if p.beta.RequiresGrad() {
		addBetaGrad(p.beta, dr, p.r)
	}
}

// ---------------------------------------------------------------- Wrap

type wrapOp[T Float] struct {
	xi, beta, out *autodiff.Var[T]
	r             float64
	tc            int // the leading tc columns are wrapped, the rest copied
	red           reducer
	fwd           func(lo, hi int)
}

// Wrap records wrap_r = log_p ∘ exp_p on S^t(r) (DESIGN §5 step 1, used on
// the time block of predictions) on every row of xi (n×t, any t ≥ 1), with
// r = √|β|: with θ = ‖ξ‖/r and ω = atan2(sin θ, cos θ) ∈ (−π, π],
//
//	wrap_r(ξ) = ξ for θ < π,   (ω/θ)·ξ otherwise.
//
// Gradients flow into ξ and β.
func Wrap[T Float](t *autodiff.Tape[T], xi, beta *autodiff.Var[T]) *autodiff.Var[T] {
	return recordWrap("Wrap", t, xi, beta, xi.Value.Cols)
}

// LogExpO records loĝ_o ∘ exp̂_o on every row of xi (n × d tangent
// coordinates at o). Exactly (DESIGN §4): exp̂_o(ξ) = ψ⁻¹(exp_p(ξ_T), ξ_S),
// and loĝ_o reads only the direction of the time block, which ψ⁻¹ keeps,
// so
//
//	loĝ_o(exp̂_o(ξ)) = (wrap_r(ξ_T), ξ_S)
//
// (Wrap on the time block, identity on the space block): ξ itself unless
// ‖ξ_T‖ ≥ πr. Since loĝ_o ∘ Proj_Q = loĝ_o as well (Proj_Q only rescales
// x_T), this is also loĝ_o(Proj_Q(exp̂_o(ξ))). The routing uses it for
// loĝ_o(s_j) and loĝ_o(v_j) of Eqs. (11)-(12), computing the wrap exactly
// where the composition would round through the ambient point. When no row
// wraps (the usual case), the result is xi itself.
func LogExpO[T Float](t *autodiff.Tape[T], xi, beta *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	dims.Validate()
	checkCols("LogExpO", "ξ", xi, dims.Tangent())
	r := radiusOf("LogExpO", beta)
	if noneWraps(xi, dims.T, r) {
		// The identity in value and in gradient (∂r = 0 off the wrap). The
		// wrap's position on the tape stays taken, so that the ops after
		// it keep their records when the next pass wraps a row.
		t.Skip()
		return xi
	}
	return recordWrap("LogExpO", t, xi, beta, dims.T)
}

// noneWraps reports whether no row of xi has a leading tc-column block of
// norm πr or more (wrapTerms' test), so that the wrap is the identity.
//
// A row whose sum of squares s is below (πr·(1−10⁻⁹))² passes without the
// square root and the division: √s and then θ = √s/r, each rounded
// correctly, exceed their exact values by a factor of at most (1+2⁻⁵³)
// each, far less than the margin, so θ < π for such a row and the answer
// is wrapTerms' own. Other rows (and NaNs) take wrapTerms' test.
func noneWraps[T Float](xi *autodiff.Var[T], tc int, r float64) bool {
	c := xi.Value.Cols
	lim := math.Pi * r * (1 - 1e-9)
	lim *= lim
	for i := range xi.Value.Rows {
		x := xi.Value.Data[i*c : i*c+tc]
		if sumSq(x) < lim {
			continue
		}
		if th, _ := wrapTheta(x, r); !(th < math.Pi) {
			return false
		}
	}
	return true
}

// recordWrap records the wrap of the leading tc columns of xi's rows.
func recordWrap[T Float](name string, t *autodiff.Tape[T], xi, beta *autodiff.Var[T], tc int) *autodiff.Var[T] {
	r := radiusOf(name, beta)
	out := t.Node(xi.Value.Rows, xi.Value.Cols, xi, beta)
	p := autodiff.OpOf[wrapOp[T]](out)
	if p.fwd == nil {
		p.fwd = p.forwardRows
	}
	p.xi, p.beta, p.out, p.r, p.tc = xi, beta, out, r, tc
	tensor.ParallelFor(xi.Value.Rows, rowCostBase+2*xi.Value.Cols, p.fwd)
	return out
}

// wrapTerms returns θ, n = ‖ξ‖ and h = ω/θ (h = 1 when θ < π).
func (p *wrapOp[T]) wrapTerms(x []T) (th, n, h float64) {
	th, n = wrapTheta(x, p.r)
	if th < math.Pi {
		return th, n, 1
	}
	sin, cos := math.Sincos(th)
	return th, n, math.Atan2(sin, cos) / th
}

// wrapTheta returns θ = ‖ξ‖/r and n = ‖ξ‖ of the wrap of ξ on S(r).
func wrapTheta[T Float](x []T, r float64) (th, n float64) {
	n = math.Sqrt(sumSq(x))
	return n / r, n
}

// WrapAngle returns θ reduced modulo 2π into (−π, π], the ω = atan2(sin θ,
// cos θ) of the wrap (Wrap, WrapVec), by exact reduction rather than
// through sin, cos and atan2: θ − 2π·⌈(θ−π)/2π⌉. It differs from the atan2
// form only by rounding (at a whole number of turns it gives 0 where sin
// gives ±1e-16); the routing's fused prediction uses it, Wrap keeps the
// atan2 form.
func WrapAngle(th float64) float64 {
	return th - 2*math.Pi*math.Ceil((th-math.Pi)/(2*math.Pi))
}

func (p *wrapOp[T]) forwardRows(lo, hi int) {
	c := p.xi.Value.Cols
	for i := lo; i < hi; i++ {
		x := p.xi.Value.Data[i*c : (i+1)*c]
		y := p.out.Value.Data[i*c : (i+1)*c]
		_, _, h := p.wrapTerms(x[:p.tc])
		if h == 1 {
			copy(y, x)
			continue
		}
		for j, v := range x[:p.tc] {
			y[j] = T(h * float64(v))
		}
		copy(y[p.tc:], x[p.tc:])
	}
}

// backwardRows: for θ ≥ π, with γ = G·ξ and ω' = 1 on each branch,
//
//	∂ξ += h·G + γ·(θ−ω)/(θ²·n·r)·ξ,   ∂r += −γ·(θ−ω)/(θ·r);
//
// the identity branch, and the copied columns, pass G through.
func (p *wrapOp[T]) backwardRows(lo, hi int) float64 {
	c, tc := p.xi.Value.Cols, p.tc
	gradXi := p.xi.RequiresGrad()
	dr := 0.0
	for i := lo; i < hi; i++ {
		x := p.xi.Value.Data[i*c : i*c+tc]
		g := p.out.Grad.Data[i*c : (i+1)*c]
		th, n, h := p.wrapTerms(x)
		if th < math.Pi {
			if gradXi {
				gx := p.xi.Grad.Data[i*c : (i+1)*c]
				for j, v := range g {
					gx[j] += v
				}
			}
			continue
		}
		gam := dotT(g[:tc], x)
		dw := th - h*th // θ − ω
		dr -= gam * dw / (th * p.r)
		if gradXi {
			gx := p.xi.Grad.Data[i*c : (i+1)*c]
			b := gam * dw / (th * th * n * p.r)
			for j, v := range x {
				gx[j] += T(h*float64(g[j]) + b*float64(v))
			}
			for j := tc; j < c; j++ {
				gx[j] += g[j]
			}
		}
	}
	return dr
}

// Backward implements autodiff.Op.
func (p *wrapOp[T]) Backward(out *autodiff.Var[T]) {
	dr := p.red.run(p, p.xi.Value.Rows, rowCostBase+3*p.xi.Value.Cols)
	if p.beta.RequiresGrad() {
		addBetaGrad(p.beta, dr, p.r)
	}
}

// ---------------------------------------------------------------- curvature

type betaOp[T Float] struct {
	rho, out *autodiff.Var[T]
}

// Beta records the curvature parametrisation β = −softplus(ρ) − 1e-4
// (DESIGN §4) on a 1×1 ρ and returns the 1×1 β; ∂L/∂ρ = −σ(ρ)·∂L/∂β
// exactly. Initialise ρ to RhoInit for β = −1 (or RhoFromBeta(β₀)).
func Beta[T Float](t *autodiff.Tape[T], rho *autodiff.Var[T]) *autodiff.Var[T] {
	if rho.Value.Rows != 1 || rho.Value.Cols != 1 {
		panic("manifold: Beta: ρ must be a 1×1 Var")
	}
	out := t.Node(1, 1, rho)
	p := autodiff.OpOf[betaOp[T]](out)
	p.rho, p.out = rho, out
	out.Value.Data[0] = T(BetaFromRho(float64(rho.Value.Data[0])))
	return out
}

// Backward implements autodiff.Op.
func (p *betaOp[T]) Backward(out *autodiff.Var[T]) {
	if p.rho.RequiresGrad() {
		p.rho.Grad.Data[0] += T(-sigmoid(float64(p.rho.Value.Data[0])) * float64(out.Grad.Data[0]))
	}
}

// NewCurvatureParam returns a trainable 1×1 ρ (autodiff.NewParam) with
// BetaFromRho(ρ) = beta0, e.g. −1 for the manifold and −0.5, −1, −2, −4 for
// the routing perspectives (DESIGN §5); record Beta(t, ρ) to use it. It
// panics unless beta0 < −1e-4.
func NewCurvatureParam[T Float](name string, beta0 float64) *autodiff.Var[T] {
	rho := autodiff.NewParam[T](name, 1, 1)
	rho.Value.Data[0] = T(RhoFromBeta(beta0))
	return rho
}

type radiusOp[T Float] struct {
	beta *autodiff.Var[T]
	r    float64
}

// RadiusOp records r = √|β| on the 1×1 β (for the classifier's curvature
// weighting τ·r, DESIGN §5 PRCC); ∂L/∂β = −∂L/∂r/(2r).
func RadiusOp[T Float](t *autodiff.Tape[T], beta *autodiff.Var[T]) *autodiff.Var[T] {
	r := radiusOf("RadiusOp", beta)
	out := t.Node(1, 1, beta)
	p := autodiff.OpOf[radiusOp[T]](out)
	p.beta, p.r = beta, r
	out.Value.Data[0] = T(r)
	return out
}

// Backward implements autodiff.Op.
func (p *radiusOp[T]) Backward(out *autodiff.Var[T]) {
	if p.beta.RequiresGrad() {
		addBetaGrad(p.beta, float64(out.Grad.Data[0]), p.r)
	}
}
