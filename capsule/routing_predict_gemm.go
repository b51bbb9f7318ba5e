package capsule

import (
	"math"
	"math/bits"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// The float32 form of predict: the 2K small products a_T·Wsph_k and
// a_S·Weuc_k of all children run as two matrix products against the
// perspectives' weights side by side (tensor.Gemm, vector kernels), and
// only the wrap, the bias and the gradients' bookkeeping stay per row. The
// float64 form (routing_predict.go's row loops) is the reference the tests
// compare it with.

// predictGemm holds the float32 form's matrices. Q = groups·K weights in
// all, in predict's group-major order. Only xT, which the wrap's backward
// pass reads, and the small weight matrices are the op's own; the N-row
// matrices that live within one call are views of the tape's scratch slots
// (scratchView), the columns of a split again for the backward pass. The
// wide ones take slots 0 and 1, which the routing's per-link ops size to
// E·K values (at least as many on node links, where E ≥ N), the narrow ones
// slots 2 and 3.
type predictGemm[T autodiff.Float] struct {
	aT, aS   tensor.Dense[T] // N×t, N×s: the columns of a (scratch 2, 3 forward; 2 backward)
	wT, wS   tensor.Dense[T] // t×(Q·t), s×(Q·s): [W_0 | … | W_{Q−1}]
	xT       tensor.Dense[T] // N×(Q·t): a_T·Wsph_q
	xS       tensor.Dense[T] // N×(Q·s): a_S·Weuc_q (scratch 0, forward)
	gT, gS   tensor.Dense[T] // the gradients of xT and xS (scratch 0, 1)
	dwT, dwS tensor.Dense[T] // t×(K·t), s×(K·s)
	daT, daS tensor.Dense[T] // N×t, N×s (scratch 3)
}

// scratchView sets m to an r×c matrix over the tape's scratch slot, for
// use within one call of the op.
func scratchView[T autodiff.Float](t *autodiff.Tape[T], m *tensor.Dense[T], slot, r, c int) {
	*m = tensor.Dense[T]{Rows: r, Cols: c, Data: t.Scratch(slot, r*c)}
}

// dropViews forgets the scratch views at the end of a call.
func (g *predictGemm[T]) dropViews() {
	for _, m := range []*tensor.Dense[T]{&g.aT, &g.aS, &g.xS, &g.gT, &g.gS, &g.daT, &g.daS} {
		*m = tensor.Dense[T]{}
	}
}

// splitCols copies the columns [lo, hi) of a into dst.
func splitCols[T autodiff.Float](dst *tensor.Dense[T], a *tensor.Dense[T], lo, hi int) {
	dst.Reshape(a.Rows, hi-lo)
	w := hi - lo
	for i := 0; i < a.Rows; i++ {
		copy(dst.Data[i*w:(i+1)*w], a.Data[i*a.Cols+lo:i*a.Cols+hi])
	}
}

// sideBySide sets dst to [w_0 | … | w_{Q−1}] for Q n×n matrices.
func sideBySide[T autodiff.Float](dst *tensor.Dense[T], ws []*autodiff.Var[T], n int) {
	K := len(ws)
	dst.Reshape(n, K*n)
	for k, w := range ws {
		for m := 0; m < n; m++ {
			copy(dst.Data[m*K*n+k*n:m*K*n+(k+1)*n], w.Value.Data[m*n:(m+1)*n])
		}
	}
}

// forwardGemm is predict's forward pass in the matrix-product form.
func (p *predictOp[T]) forwardGemm() {
	g := &p.gemm
	s, tt := p.s, p.t
	Q, n := len(p.wsph), p.a.Value.Rows
	scratchView(p.tape, &g.aT, 2, n, tt)
	splitCols(&g.aT, &p.a.Value, 0, tt)
	sideBySide(&g.wT, p.wsph, tt)
	g.xT.Reshape(n, Q*tt)
	tensor.Gemm(&g.xT, &g.aT, &g.wT, false, false, 1, 0)
	if s > 0 {
		scratchView(p.tape, &g.aS, 3, n, s)
		splitCols(&g.aS, &p.a.Value, tt, tt+s)
		sideBySide(&g.wS, p.weuc, s)
		scratchView(p.tape, &g.xS, 0, n, Q*s)
		tensor.Gemm(&g.xS, &g.aS, &g.wS, false, false, 1, 0)
	}
	p.prepareWrapVec()
	tensor.ParallelFor(n, Q*4*(s+tt), p.fwdWrap)
	g.dropViews()
}

// wrapVec holds what the wrap's vector kernels (routing_predict_amd64.s)
// read, set by prepareWrapVec for a forward pass and kept for its
// backward pass: each block's output row relative to its child's first
// (rk), its screening limit (lim), the biases side by side, and the lane
// masks of the time and space parts.
type wrapVec struct {
	on           bool
	rk           []int32
	lim          []float32
	bias         []float32
	maskT, maskS uint16
}

// wrapScreen is the margin below the wrap limit under which a block's
// float32 sum of squares, whatever its rounding (at most about 16 roundings
// of 2⁻²⁴ each on a sum of non-negative terms), shows that the float64
// sum of the Go code is below the limit too.
const wrapScreen = 1e-4

// prepareWrapVec decides whether the wrap runs the vector kernels (float32
// on AVX2 or AVX-512, t and s at most 16, at most 64 blocks a child, output rows
// that int32 offsets reach) and sets their operands.
func (p *predictOp[T]) prepareWrapVec() {
	v := &p.vec
	Q, K, n, d := len(p.wsph), len(p.beta), p.a.Value.Rows, p.s+p.t
	v.on = haveAVX2 && !wrapVecOff && p.f32 && p.t <= 16 && p.s <= 16 && Q <= 64 && int64(Q)*int64(n) <= math.MaxInt32
	if !v.on {
		return
	}
	v.rk, v.lim = grow(v.rk, Q), grow(v.lim, Q)
	v.bias = grow(v.bias, Q*d)
	for q := 0; q < Q; q++ {
		v.rk[q] = int32((q/K)*n*K + q%K)
		v.lim[q] = float32(wrapLimit(p.r[q%K]) * (1 - wrapScreen))
		copy(v.bias[q*d:(q+1)*d], any(p.bias[q].Value.Data).([]float32))
	}
	v.maskT, v.maskS = uint16(1<<p.t-1), uint16(1<<p.s-1)
}

// wrapVecOff makes the wrap take the Go code alone (tests).
var wrapVecOff = false

// wrapAVX2Only makes the wrap take its AVX2 kernels on AVX-512 (tests).
var wrapAVX2Only = false

// wrapLimit is (πr·(1−10⁻⁹))²: a row whose float64 sum of squares is below
// it has θ < π in wrapFactor whatever the roundings (√ and the division,
// each correctly rounded, exceed their exact values by a factor of at
// most 1+2⁻⁵³ each, far less than the margin; manifold.LogExpO's test).
func wrapLimit(r float64) float64 {
	l := math.Pi * r * (1 - 1e-9)
	return l * l
}

// wrapRows applies the wrap and the bias to rows [lo, hi) of the products,
// writing output row g·N + i for each group g: the vector kernel for the
// blocks that cannot wrap, wrapBlock for the others (or for all, without
// the kernel).
func (p *predictOp[T]) wrapRows(lo, hi int) {
	Q := len(p.wsph)
	if !p.vec.on {
		for i := lo; i < hi; i++ {
			for q := 0; q < Q; q++ {
				p.wrapBlock(i, q)
			}
		}
		return
	}
	g, v := &p.gemm, &p.vec
	s, tt, K, d := p.s, p.t, len(p.beta), p.s+p.t
	out := any(p.out.Value.Data).([]float32)
	xT := any(g.xT.Data).([]float32)
	var xS []float32
	if s > 0 {
		xS = any(g.xS.Data).([]float32)
	}
	for i := lo; i < hi; i++ {
		var xs *float32
		if s > 0 {
			xs = &xS[i*Q*s]
		}
		var w *float64
		if len(p.wrap) > 0 {
			w = &p.wrap[3*i*K]
		}
		missed := wrapRowNone(&xT[i*Q*tt], xs, 4*tt, 4*s, &v.bias[0], 4*d, &out[i*K*d], &v.rk[0], w, &v.lim[0], v.maskT, v.maskS, Q)
		for missed != 0 {
			p.wrapBlock(i, bits.TrailingZeros64(missed))
			missed &= missed - 1
		}
	}
}

// wrapBlock applies the wrap and the bias to block q (weight q) of child i.
func (p *predictOp[T]) wrapBlock(i, q int) {
	g := &p.gemm
	s, tt := p.s, p.t
	d, Q, K, n := s+tt, len(p.wsph), len(p.beta), p.a.Value.Rows
	k, rk := q%K, ((q/K)*n+i)*K+q%K // perspective, output block
	o := p.out.Value.Data[rk*d : (rk+1)*d]
	b := p.bias[q].Value.Data
	x := g.xT.Data[(i*Q+q)*tt : (i*Q+q+1)*tt]
	th, nx, h := wrapFactor(x, p.r[k])
	if len(p.wrap) > 0 {
		p.wrap[rk*3], p.wrap[rk*3+1], p.wrap[rk*3+2] = th, nx, h
	}
	if h == 1 {
		// T(float64(v) + float64(b)) is v + b rounded once: a float64 sum
		// of two float32 values rounds to float32 as their float32 sum
		// does (double rounding is innocuous for addition when
		// 53 ≥ 2·24+2). A loop: a vector call per 9 values costs more than
		// it saves.
		bt := b[:len(x)]
		for c, v := range x {
			o[c] = v + bt[c]
		}
	} else {
		for c, v := range x {
			o[c] = T(h*float64(v) + float64(b[c]))
		}
	}
	if s > 0 {
		xs := g.xS.Data[(i*Q+q)*s : (i*Q+q+1)*s]
		for c, v := range xs {
			o[tt+c] = v + b[tt+c]
		}
	}
}

// backwardGemm is predict's backward pass in the matrix-product form: the
// wrap's backward per row (wrapGradBlocks, which also sums ∂b and ∂r per
// block), then ∂W = aᵀ·∂x and ∂a = ∂x·Wᵀ as matrix products.
func (p *predictOp[T]) backwardGemm() {
	g := &p.gemm
	s, tt := p.s, p.t
	d, Q, K, n := s+tt, len(p.wsph), len(p.beta), p.a.Value.Rows
	scratchView(p.tape, &g.gT, 0, n, Q*tt)
	scratchView(p.tape, &g.gS, 1, n, Q*s)
	defer g.dropViews()
	per := d + 1
	nb := (n + predictBlock - 1) / predictBlock
	p.part = grow(p.part, nb*Q*per)
	tensor.ParallelFor(nb, predictBlock*Q*4*d, p.bwdWrap)
	for q := 0; q < Q; q++ {
		if p.bias[q].RequiresGrad() {
			gb := p.bias[q].Grad.Data
			for c := range gb {
				acc := 0.0
				for b := 0; b < nb; b++ {
					acc += p.part[b*Q*per+q*d+c]
				}
				gb[c] += T(acc)
			}
		}
	}
	for k := 0; k < K; k++ {
		if p.beta[k].RequiresGrad() {
			dr := 0.0
			for b := 0; b < nb; b++ {
				for q := k; q < Q; q += K {
					dr += p.part[b*Q*per+Q*d+q]
				}
			}
			p.beta[k].Grad.Data[0] += T(-dr / (2 * p.r[k])) // ∂β = −∂r/(2r)
		}
	}
	if autodiff.Any(p.wsph...) {
		scratchView(p.tape, &g.aT, 2, n, tt)
		splitCols(&g.aT, &p.a.Value, 0, tt)
		weightGrad(&g.dwT, &g.aT, &g.gT, p.wsph, tt)
	}
	if p.a.RequiresGrad() {
		scratchView(p.tape, &g.daT, 3, n, tt)
		tensor.Gemm(&g.daT, &g.gT, &g.wT, false, true, 1, 0)
		addCols(&p.a.Grad, &g.daT, 0)
	}
	if s > 0 {
		if autodiff.Any(p.weuc...) {
			scratchView(p.tape, &g.aS, 2, n, s)
			splitCols(&g.aS, &p.a.Value, tt, tt+s)
			weightGrad(&g.dwS, &g.aS, &g.gS, p.weuc, s)
		}
		if p.a.RequiresGrad() {
			scratchView(p.tape, &g.daS, 3, n, s)
			tensor.Gemm(&g.daS, &g.gS, &g.wS, false, true, 1, 0)
			addCols(&p.a.Grad, &g.daS, tt)
		}
	}
}

// weightGrad adds the blocks of aᵀ·gx (n×(Q·n)) to the Q weights'
// gradients; the caller checks that one of them requires a gradient.
func weightGrad[T autodiff.Float](dw, a, gx *tensor.Dense[T], ws []*autodiff.Var[T], n int) {
	K := len(ws)
	dw.Reshape(n, K*n)
	tensor.Gemm(dw, a, gx, true, false, 1, 0)
	for k, w := range ws {
		if !w.RequiresGrad() {
			continue
		}
		for m := 0; m < n; m++ {
			tensor.VecAdd(w.Grad.Data[m*n:(m+1)*n], w.Grad.Data[m*n:(m+1)*n], dw.Data[m*K*n+k*n:m*K*n+(k+1)*n])
		}
	}
}

// addCols adds src (N×w) to the columns [off, off+w) of dst. Rows of the
// routing's t or s (9) values are added in a loop: a vector call per row
// costs more than it saves.
func addCols[T autodiff.Float](dst, src *tensor.Dense[T], off int) {
	w := src.Cols
	for i := 0; i < src.Rows; i++ {
		row := dst.Data[i*dst.Cols+off : i*dst.Cols+off+w]
		sr := src.Data[i*w : (i+1)*w]
		if w >= 16 {
			tensor.VecAdd(row, row, sr)
			continue
		}
		for c, v := range sr[:len(row)] {
			row[c] += v
		}
	}
}

// wrapGradBlocks handles row blocks [lo, hi): with G the upstream gradient,
// x = a_T·Wsph and γ = G·x, ∂x = G for θ < π, otherwise (manifold.Wrap)
//
//	∂x = h·G + γ·(θ−ω)/(θ²·n·r)·x,   ∂r += −γ·(θ−ω)/(θ·r),
//
// and the space block passes G through. Per block it sums ∂b for every
// weight q (Q·d values, q-major, first) and ∂r (Q values, after them): the
// ∂b of a group's K weights are the column sums of the group's output rows
// in the block (tensor.SumRowsWiden), in row order as a per-row loop would
// take them.
func (p *predictOp[T]) wrapGradBlocks(lo, hi int) {
	s, tt := p.s, p.t
	d, Q, K, n := s+tt, len(p.wsph), len(p.beta), p.a.Value.Rows
	per := d + 1
	// The float32 views of the vector kernel's operands.
	var gr, gT, gS []float32
	if p.vec.on {
		gr, gT = any(p.out.Grad.Data).([]float32), any(p.gemm.gT.Data).([]float32)
		if s > 0 {
			gS = any(p.gemm.gS.Data).([]float32)
		}
	}
	for b := lo; b < hi; b++ {
		part := p.part[b*Q*per : (b+1)*Q*per]
		clear(part)
		i0, i1 := b*predictBlock, min((b+1)*predictBlock, n)
		for grp := 0; grp < Q/K; grp++ {
			tensor.SumRowsWiden(part[grp*K*d:(grp+1)*K*d], p.out.Grad.Data[(grp*n+i0)*K*d:(grp*n+i1)*K*d])
		}
		dr := part[Q*d:]
		for i := i0; i < i1; i++ {
			if !p.vec.on {
				for q := 0; q < Q; q++ {
					p.wrapGradBlock(i, q, dr)
				}
				continue
			}
			// The blocks that did not wrap by the vector kernel, the
			// others in Go, in block order: each adds to its own ∂r.
			v := &p.vec
			var gs *float32
			if s > 0 {
				gs = &gS[i*Q*s]
			}
			missed := wrapRowCopy(&gr[i*K*d], &gT[i*Q*tt], gs, 4*tt, 4*s, 4*d, &v.rk[0], &p.wrap[3*i*K], v.maskT, v.maskS, Q)
			for missed != 0 {
				p.wrapGradBlock(i, bits.TrailingZeros64(missed), dr)
				missed &= missed - 1
			}
		}
	}
}

// wrapGradBlock is wrapGradBlocks for block q of child i, adding its ∂r to
// dr[q].
func (p *predictOp[T]) wrapGradBlock(i, q int, dr []float64) {
	g := &p.gemm
	s, tt := p.s, p.t
	d, Q, K, n := s+tt, len(p.wsph), len(p.beta), p.a.Value.Rows
	k, rk := q%K, ((q/K)*n+i)*K+q%K // perspective, output block
	gr := p.out.Grad.Data[rk*d : (rk+1)*d]
	x := g.xT.Data[(i*Q+q)*tt : (i*Q+q+1)*tt]
	gx := g.gT.Data[(i*Q+q)*tt : (i*Q+q+1)*tt]
	wf := p.wrap[rk*3 : rk*3+3]
	th, nx, h := wf[0], wf[1], wf[2]
	if th < math.Pi {
		copy(gx, gr[:tt])
	} else {
		r := p.r[k]
		gam := 0.0
		for c, v := range x {
			gam += float64(gr[c]) * float64(v)
		}
		dw := th - h*th // θ − ω
		dr[q] -= gam * dw / (th * r)
		f := gam * dw / (th * th * nx * r)
		for c, v := range x {
			gx[c] = T(h*float64(gr[c]) + f*float64(v))
		}
	}
	copy(g.gS.Data[(i*Q+q)*s:(i*Q+q+1)*s], gr[tt:])
}
