package autodiff

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/tensor"
)

// LayerNormEps is PyTorch's default epsilon of nn.LayerNorm.
const LayerNormEps = 1e-5

// layerNormOp is the record of y = γ ⊙ (x − μ)·rstd + β over each row, with
// the per-row statistics kept for the backward pass.
type layerNormOp[T Float] struct {
	x, gamma, beta, out *Var[T]
	eps                 float64
	rstd                []float64 // 1/√(var+eps) per row, reused across passes
	xhat                []T       // normalised input, kept for the backward pass
	accG, accB          []float64 // column sums of the gamma and beta gradients
	fwd, bwd            func(lo, hi int)
}

// LayerNorm normalises each row of x to zero mean and unit variance, then
// applies the learnable 1×C scale gamma and shift beta: PyTorch's
// nn.LayerNorm(C) (biased variance, eps inside the square root; LayerNormEps
// is its default). gamma and beta may be nil for no affine part. A constant
// row maps to beta. It panics if gamma or beta is not 1×C.
//
// Statistics are computed in float64 with two passes (mean, then squared
// deviations), which stays accurate on rows with a large common offset.
func LayerNorm[T Float](t *Tape[T], x, gamma, beta *Var[T], eps float64) *Var[T] {
	R, C := x.Value.Rows, x.Value.Cols
	for _, a := range [2]struct {
		v    *Var[T]
		name string
	}{{gamma, "gamma"}, {beta, "beta"}} {
		if a.v != nil && (a.v.Value.Rows != 1 || a.v.Value.Cols != C) {
			panic(fmt.Sprintf("autodiff: LayerNorm %s is %d×%d, want 1×%d", a.name, a.v.Value.Rows, a.v.Value.Cols, C))
		}
	}
	out := t.Node(R, C, x, gamma, beta)
	p := OpOf[layerNormOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRows, p.backwardRowsX
	}
	p.x, p.gamma, p.beta, p.out, p.eps = x, gamma, beta, out, eps
	if cap(p.rstd) < R {
		p.rstd = make([]float64, R)
	}
	p.rstd = p.rstd[:R]
	if cap(p.xhat) < R*C {
		p.xhat = make([]T, R*C)
	}
	p.xhat = p.xhat[:R*C]
	tensor.ParallelFor(R, 4*C, p.fwd)
	return out
}

func (p *layerNormOp[T]) forwardRows(lo, hi int) {
	C := p.x.Value.Cols
	i := lo
	for ; i+2 <= hi; i += 2 { // two rows' statistics at once: independent sums
		xa, xb := p.x.Value.Data[i*C:(i+1)*C], p.x.Value.Data[(i+1)*C:(i+2)*C]
		mua, mub, ra, rb := p.stats2(xa, xb)
		p.normalizeRow(i, mua, ra)
		p.normalizeRow(i+1, mub, rb)
	}
	if i < hi {
		x := p.x.Value.Data[i*C : (i+1)*C]
		mu, _, r, _ := p.stats2(x, nil)
		p.normalizeRow(i, mu, r)
	}
}

// stats2 returns the mean and 1/√(var+eps) of row a and, unless b is nil,
// of row b: each row's sums in its own order (the bits of one row at a
// time), the two rows' chains of additions interleaved so that they
// overlap in the pipeline.
func (p *layerNormOp[T]) stats2(a, b []T) (mua, mub, ra, rb float64) {
	C := len(a)
	n := float64(max(C, 1))
	if b == nil {
		for _, v := range a {
			mua += float64(v)
		}
		mua /= n
		var ss float64
		for _, v := range a {
			d := float64(v) - mua
			ss += d * d
		}
		return mua, 0, 1 / math.Sqrt(ss/n+p.eps), 0
	}
	b = b[:C]
	for j, v := range a {
		mua += float64(v)
		mub += float64(b[j])
	}
	mua /= n
	mub /= n
	var sa, sb float64
	for j, v := range a {
		da, db := float64(v)-mua, float64(b[j])-mub
		sa += da * da
		sb += db * db
	}
	return mua, mub, 1 / math.Sqrt(sa/n+p.eps), 1 / math.Sqrt(sb/n+p.eps)
}

// normalizeRow writes row i of x̂ and of the output from its mean and
// 1/√(var+eps), and keeps the latter for the backward pass.
func (p *layerNormOp[T]) normalizeRow(i int, mu, rstd float64) {
	C := p.x.Value.Cols
	x := p.x.Value.Data[i*C : (i+1)*C]
	y := p.out.Value.Data[i*C : (i+1)*C]
	p.rstd[i] = rstd
	xh := p.xhat[i*C : (i+1)*C]
	var gd, bd []T
	if p.gamma != nil {
		gd = p.gamma.Value.Data[:C]
	}
	if p.beta != nil {
		bd = p.beta.Value.Data[:C]
	}
	for j, v := range x {
		h := (float64(v) - mu) * rstd
		xh[j] = T(h)
		if gd != nil {
			h *= float64(gd[j])
		}
		if bd != nil {
			h += float64(bd[j])
		}
		y[j] = T(h)
	}
}

// backwardRowsX adds the input gradient of rows [lo, hi). With x̂ the
// normalised row and ĝ = g ⊙ γ, the fused formula is
// dx = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)).
func (p *layerNormOp[T]) backwardRowsX(lo, hi int) {
	i := lo
	for ; i+2 <= hi; i += 2 { // two rows' sums at once, as in forwardRows
		sga, sgxa, sgb, sgxb := p.gradSums2(i, true)
		p.gradRow(i, sga, sgxa)
		p.gradRow(i+1, sgb, sgxb)
	}
	if i < hi {
		sg, sgx, _, _ := p.gradSums2(i, false)
		p.gradRow(i, sg, sgx)
	}
}

// gradSums2 returns mean(ĝ) and mean(ĝ ⊙ x̂) of row i and, when two is set,
// of row i+1, each row's sums in its own order, the rows' chains
// interleaved.
func (p *layerNormOp[T]) gradSums2(i int, two bool) (sga, sgxa, sgb, sgxb float64) {
	C := p.x.Value.Cols
	inv := 1 / float64(max(C, 1))
	var gd []T
	if p.gamma != nil {
		gd = p.gamma.Value.Data[:C]
	}
	xa, ga := p.xhat[i*C:(i+1)*C], p.out.Grad.Data[i*C:(i+1)*C]
	ga = ga[:len(xa)]
	if !two {
		for j, h := range xa {
			gh := float64(ga[j])
			if gd != nil {
				gh *= float64(gd[j])
			}
			sga += gh
			sgxa += gh * float64(h)
		}
		return sga * inv, sgxa * inv, 0, 0
	}
	xb, gb := p.xhat[(i+1)*C:(i+2)*C], p.out.Grad.Data[(i+1)*C:(i+2)*C]
	xb, gb = xb[:len(xa)], gb[:len(xa)]
	for j, h := range xa {
		gha, ghb := float64(ga[j]), float64(gb[j])
		if gd != nil {
			gha *= float64(gd[j])
			ghb *= float64(gd[j])
		}
		sga += gha
		sgxa += gha * float64(h)
		sgb += ghb
		sgxb += ghb * float64(xb[j])
	}
	return sga * inv, sgxa * inv, sgb * inv, sgxb * inv
}

// gradRow adds row i's input gradient rstd·(ĝ − sg − x̂·sgx).
func (p *layerNormOp[T]) gradRow(i int, sg, sgx float64) {
	C := p.x.Value.Cols
	var gd []T
	if p.gamma != nil {
		gd = p.gamma.Value.Data[:C]
	}
	xh := p.xhat[i*C : (i+1)*C]
	g := p.out.Grad.Data[i*C : (i+1)*C]
	gx := p.x.Grad.Data[i*C : (i+1)*C]
	g, gx = g[:len(xh)], gx[:len(xh)]
	rstd := p.rstd[i]
	for j, h := range xh {
		gh := float64(g[j])
		if gd != nil {
			gh *= float64(gd[j])
		}
		gx[j] += T(rstd * (gh - sg - float64(h)*sgx))
	}
}

// Backward implements Op. The input gradient is parallel over rows; the
// gamma and beta gradients are column sums over all rows and run serially.
func (p *layerNormOp[T]) Backward(out *Var[T]) {
	R, C := out.Value.Rows, out.Value.Cols
	if p.x.requiresGrad {
		tensor.ParallelFor(R, 6*C, p.bwd)
	}
	gg := p.gamma != nil && p.gamma.requiresGrad
	gb := p.beta != nil && p.beta.requiresGrad
	if !gg && !gb {
		return
	}
	// Accumulate the column sums in float64: over thousands of rows float32
	// partial sums would lose digits.
	if cap(p.accG) < C {
		p.accG, p.accB = make([]float64, C), make([]float64, C)
	}
	accG, accB := p.accG[:C], p.accB[:C]
	clear(accG)
	clear(accB)
	for i := 0; i < R; i++ {
		xh := p.xhat[i*C : (i+1)*C]
		g := out.Grad.Data[i*C : (i+1)*C]
		g = g[:len(xh)]
		for j, v := range g {
			accB[j] += float64(v)
			accG[j] += float64(v) * float64(xh[j])
		}
	}
	if gb {
		for j, v := range accB {
			p.beta.Grad.Data[j] += T(v)
		}
	}
	if gg {
		for j, v := range accG {
			p.gamma.Grad.Data[j] += T(v)
		}
	}
}
