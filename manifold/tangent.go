package manifold

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// ---------------------------------------------------------------- activation

type activationOp[T Float] struct {
	xi, out  *autodiff.Var[T]
	kind     Activation
	fwd, bwd func(lo, hi int)
	offs     [8]int32 // squash's kernels: the lanes' row offsets {0, c, …, 7c}
}

// squashVec reports whether squash's rows run the AVX2 or AVX-512 kernels
// (float32).
func (p *activationOp[T]) squashVec() bool {
	var z T
	_, ok := any(z).(float32)
	return ok && haveSquashVec && !squashVecOff
}

// setOffs sets the kernels' lane offsets for rows of c values, before the
// rows are split among goroutines.
func (p *activationOp[T]) setOffs() {
	c := p.xi.Value.Cols
	for l := range p.offs {
		p.offs[l] = int32(l * c)
	}
}

// squashVecOff makes squash take the Go loops alone, and squashAVX2Only
// its AVX2 kernels on AVX-512 (tests).
var squashVecOff, squashAVX2Only = false, false

// TangentActivation records σ(ξ) on every row of xi (n×c tangent
// coordinates), σ = kind (DESIGN §5 step 4; paper Eq. activation_projection):
// ActSquash is row-wise ‖ξ‖²/(1+‖ξ‖²)·ξ/‖ξ‖ with the Euclidean norm of the
// whole row (see ActSquash), the others act per coordinate.
func TangentActivation[T Float](t *autodiff.Tape[T], xi *autodiff.Var[T], kind Activation) *autodiff.Var[T] {
	if kind > ActIdentity {
		panic(fmt.Sprintf("manifold: TangentActivation: unknown %v", kind))
	}
	out := t.Node(xi.Value.Rows, xi.Value.Cols, xi)
	p := autodiff.OpOf[activationOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRows, p.backwardRows
	}
	p.xi, p.out, p.kind = xi, out, kind
	p.setOffs()
	tensor.ParallelFor(xi.Value.Rows, 16*xi.Value.Cols, p.fwd)
	return out
}

func (p *activationOp[T]) forwardRows(lo, hi int) {
	c := p.xi.Value.Cols
	x := p.xi.Value.Data[lo*c : hi*c]
	y := p.out.Value.Data[lo*c : hi*c]
	switch p.kind {
	case ActSquash:
		if c > 0 && p.squashVec() {
			x32, y32 := any(x).([]float32), any(y).([]float32)
			for i0 := 0; i0 < hi-lo; i0 += 64 {
				left := squashFwdVec(&x32[i0*c], &y32[i0*c], c, min(64, hi-lo-i0), &p.offs[0])
				for left != 0 {
					i := i0 + bits.TrailingZeros64(left)
					squashRow(x[i*c:(i+1)*c], y[i*c:(i+1)*c])
					left &= left - 1
				}
			}
			return
		}
		for i := 0; i < hi-lo; i++ {
			squashRow(x[i*c:(i+1)*c], y[i*c:(i+1)*c])
		}
	case ActTanh:
		for j, v := range x {
			y[j] = T(math.Tanh(float64(v)))
		}
	case ActReLU:
		for j, v := range x {
			y[j] = max(v, 0)
		}
	case ActIdentity:
		copy(y, x)
	}
}

// backwardRows adds σ'(ξ)ᵀG. For squash y = h(s)·ξ with s = ‖ξ‖,
// h(s) = s/(1+s²), h'(s) = (1−s²)/(1+s²)²:
//
//	∂ξ += h·G + (h'(s)/s)·(G·ξ)·ξ   (the second term is 0 at s = 0).
//
// ReLU passes no gradient at exactly 0.
func (p *activationOp[T]) backwardRows(lo, hi int) {
	c := p.xi.Value.Cols
	x := p.xi.Value.Data[lo*c : hi*c]
	y := p.out.Value.Data[lo*c : hi*c]
	g := p.out.Grad.Data[lo*c : hi*c]
	gx := p.xi.Grad.Data[lo*c : hi*c]
	switch p.kind {
	case ActSquash:
		if c > 0 && p.squashVec() {
			x32, g32, gx32 := any(x).([]float32), any(g).([]float32), any(gx).([]float32)
			for i0 := 0; i0 < hi-lo; i0 += 64 {
				left := squashBackVec(&x32[i0*c], &g32[i0*c], &gx32[i0*c], c, min(64, hi-lo-i0), &p.offs[0])
				for left != 0 {
					i := i0 + bits.TrailingZeros64(left)
					squashBackRow(x[i*c:(i+1)*c], g[i*c:(i+1)*c], gx[i*c:(i+1)*c])
					left &= left - 1
				}
			}
			return
		}
		for i := 0; i < hi-lo; i++ {
			squashBackRow(x[i*c:(i+1)*c], g[i*c:(i+1)*c], gx[i*c:(i+1)*c])
		}
	case ActTanh:
		for j, v := range y {
			gx[j] += T((1 - float64(v)*float64(v)) * float64(g[j]))
		}
	case ActReLU:
		for j, v := range x {
			if v > 0 {
				gx[j] += g[j]
			}
		}
	case ActIdentity:
		for j, v := range g {
			gx[j] += v
		}
	}
}

// squashRow writes squash(xr) to yr.
func squashRow[T Float](xr, yr []T) {
	s := squashScale(normT(xr))
	for j, v := range xr {
		yr[j] = T(s * float64(v))
	}
}

// squashBackRow adds squash's backward pass for one row (see backwardRows)
// to gxr.
func squashBackRow[T Float](xr, gr, gxr []T) {
	s := normT(xr)
	h := squashScale(s)
	b := 0.0
	// Below 1e-150 the second term, O(s)·‖G‖, is negligible.
	if s > 1e-150 {
		// h'(s) = (1−s²)/(1+s²)², written without overflow for tiny and
		// huge s as [(1/s − s)/(s + 1/s)]·[1/(1+s²)]; the term is
		// (h'(s)/s)·(G·ξ)·ξ = b·ξ.
		dh := (1/s - s) / (s + 1/s) / (1 + s*s)
		b = dh * dotT(gr, xr) / s
	}
	for j, v := range xr {
		gxr[j] += T(h*float64(gr[j]) + b*float64(v))
	}
}

// Backward implements autodiff.Op.
func (p *activationOp[T]) Backward(out *autodiff.Var[T]) {
	if p.xi.RequiresGrad() {
		p.setOffs()
		tensor.ParallelFor(p.xi.Value.Rows, 16*p.xi.Value.Cols, p.bwd)
	}
}

// ---------------------------------------------------------------- row metrics

// metricOp is the record of the row-wise pseudo-Euclidean products: the
// first neg coordinates carry the sign −.
type metricOp[T Float] struct {
	a, b, out *autodiff.Var[T]
	neg       int
	norm      bool // pseudo-norm √|g(a,a)| instead of g(a,b)
	fwd, bwd  func(lo, hi int)
}

func recordMetric[T Float](op string, t *autodiff.Tape[T], a, b *autodiff.Var[T], width, neg int, norm bool) *autodiff.Var[T] {
	checkCols(op, "a", a, width)
	checkCols(op, "b", b, width)
	if a.Value.Rows != b.Value.Rows {
		panic(fmt.Sprintf("manifold: %s: a has %d rows, b has %d", op, a.Value.Rows, b.Value.Rows))
	}
	out := t.Node(a.Value.Rows, 1, a, b)
	p := autodiff.OpOf[metricOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRows, p.backwardRows
	}
	p.a, p.b, p.out, p.neg, p.norm = a, b, out, neg, norm
	tensor.ParallelFor(a.Value.Rows, 2*width, p.fwd)
	return out
}

// RowTangentInner records g(a_i, b_i) = −⟨a_T,b_T⟩ + ⟨a_S,b_S⟩ for every row
// pair of the n×d tangent matrices a and b (DESIGN §4 tangent metric; used by
// the routing agreement, DESIGN §5 steps 2 and 5) and returns n×1. a and b
// may be the same Var.
func RowTangentInner[T Float](t *autodiff.Tape[T], a, b *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	dims.Validate()
	return recordMetric("RowTangentInner", t, a, b, dims.Tangent(), dims.T, false)
}

// RowInner records the ambient product ⟨x_i, y_i⟩ = −⟨x_T,y_T⟩ + ⟨x_S,y_S⟩ of
// every row pair of the n×D matrices x and y (DESIGN §4) and returns n×1.
func RowInner[T Float](t *autodiff.Tape[T], x, y *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	dims.Validate()
	return recordMetric("RowInner", t, x, y, dims.Ambient(), dims.T+1, false)
}

// RowPseudoNorm records ‖a_i‖_ps = √|g(a_i,a_i)| for every row of the n×d
// tangent matrix a (DESIGN §4) and returns n×1. The gradient
// sign(g)·Jaᵢ/‖aᵢ‖_ps (J = diag(−1…, +1…)) is passed only where
// ‖aᵢ‖_ps > EpsPseudoNorm: the pseudo-norm is not differentiable on the light
// cone g = 0, and there the op passes 0.
func RowPseudoNorm[T Float](t *autodiff.Tape[T], a *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	dims.Validate()
	return recordMetric("RowPseudoNorm", t, a, a, dims.Tangent(), dims.T, true)
}

func (p *metricOp[T]) rowProduct(a, b []T) float64 {
	return -dotT(a[:p.neg], b[:p.neg]) + dotT(a[p.neg:], b[p.neg:])
}

func (p *metricOp[T]) forwardRows(lo, hi int) {
	c := p.a.Value.Cols
	for i := lo; i < hi; i++ {
		q := p.rowProduct(p.a.Value.Data[i*c:(i+1)*c], p.b.Value.Data[i*c:(i+1)*c])
		if p.norm {
			q = math.Sqrt(math.Abs(q))
		}
		p.out.Value.Data[i] = T(q)
	}
}

func (p *metricOp[T]) backwardRows(lo, hi int) {
	c := p.a.Value.Cols
	for i := lo; i < hi; i++ {
		g := float64(p.out.Grad.Data[i])
		a := p.a.Value.Data[i*c : (i+1)*c]
		b := p.b.Value.Data[i*c : (i+1)*c]
		if p.norm {
			y := float64(p.out.Value.Data[i])
			if !(y > EpsPseudoNorm) {
				continue
			}
			// y is rounded to T; recompute the product in float64.
			q := p.rowProduct(a, a)
			y = math.Sqrt(math.Abs(q))
			s := g / y
			if q < 0 {
				s = -s
			}
			addSigned(p.a.Grad.Data[i*c:(i+1)*c], a, s, p.neg)
			continue
		}
		if p.a.RequiresGrad() {
			addSigned(p.a.Grad.Data[i*c:(i+1)*c], b, g, p.neg)
		}
		if p.b.RequiresGrad() {
			addSigned(p.b.Grad.Data[i*c:(i+1)*c], a, g, p.neg)
		}
	}
}

// addSigned adds s·J·v into dst, J = diag(−1 ×neg, +1 …).
func addSigned[T Float](dst, v []T, s float64, neg int) {
	for j, x := range v {
		if j < neg {
			dst[j] += T(-s * float64(x))
		} else {
			dst[j] += T(s * float64(x))
		}
	}
}

// Backward implements autodiff.Op.
func (p *metricOp[T]) Backward(out *autodiff.Var[T]) {
	tensor.ParallelFor(p.a.Value.Rows, 2*p.a.Value.Cols, p.bwd)
}
