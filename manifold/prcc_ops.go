package manifold

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

const (
	// AlignEps is the ε of PRCC's alignment (DESIGN §5 PRCC): pseudo-norms
	// are floored at max(‖·‖_ps, AlignEps), so a zero or light-like tangent
	// vector gives a finite score.
	AlignEps = 1e-6
	// AlignClip bounds the alignment to [−AlignClip, AlignClip]. The metric
	// is indefinite, so Cauchy–Schwarz does not hold and |g(z,w)| can exceed
	// ‖z‖_ps·‖w‖_ps by any factor near the light cone.
	AlignClip = 10
)

// alignOp is the record of the PRCC alignment scores.
type alignOp[T Float] struct {
	z, w, out *autodiff.Var[T]
	neg       int  // time-like coordinates (sign −) at the start of a row
	perClass  bool // out[g][c] pairs z row g·C+c with w row c
	// Per class: g(w,w), the floored pseudo-norm of w and its slope
	// (alignNormSlope).
	qw, nw, sw []float64
	// Per output element, from the forward pass: the unclipped score and
	// 1/n_z (n_z the floored pseudo-norm of its z row) and the slope s_z.
	raw, inz, sz []float64
	// Per row block: C×d sums Σ k·z (∂w before J), C sums Σ g·a·s_w, a
	// d-wide scratch row and C scales k with their classes (cls).
	partial  []float64
	cls      []int32
	fwd, bwd func(lo, hi int)
}

// Align records the PRCC alignment (paper Eq. alignment, DESIGN §5 PRCC)
// between every row z_i of the n×d tangent matrix z and every row w_c of the
// C×d matrix w and returns n×C:
//
//	Align(z, w) = clip(g(z,w) / (max(‖z‖_ps,ε)·max(‖w‖_ps,ε)), −10, 10),
//
// g the tangent metric at the pole (time block first, sign −), ε = AlignEps,
// the clip AlignClip. Where the clip is active the score passes no gradient;
// a pseudo-norm floored at ε passes none either (as RowPseudoNorm on the
// light cone). Gradients flow into z and w; rows are computed in float64 and
// the gradient of w is reduced over fixed row blocks (deterministic).
func Align[T Float](t *autodiff.Tape[T], z, w *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	return recordAlign("Align", t, z, w, dims, false)
}

// AlignPerClass is Align for one capsule per class (graph classification,
// DESIGN §5): z is (G·C)×d, its row g·C+c the class-c capsule of graph g, and
// the G×C result holds Align(z_{g·C+c}, w_c) — each class capsule is scored
// only against its own class vector.
func AlignPerClass[T Float](t *autodiff.Tape[T], z, w *autodiff.Var[T], dims Dims) *autodiff.Var[T] {
	return recordAlign("AlignPerClass", t, z, w, dims, true)
}

func recordAlign[T Float](op string, t *autodiff.Tape[T], z, w *autodiff.Var[T], dims Dims, perClass bool) *autodiff.Var[T] {
	dims.Validate()
	d := dims.Tangent()
	checkCols(op, "z", z, d)
	checkCols(op, "w", w, d)
	C := w.Value.Rows
	rows := z.Value.Rows
	if perClass {
		if C == 0 || rows%C != 0 {
			panic(fmt.Sprintf("manifold: %s: z has %d rows, not a multiple of the %d classes", op, rows, C))
		}
		rows /= C
	}
	out := t.Node(rows, C, z, w)
	p := autodiff.OpOf[alignOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRows, p.backwardBlocks
	}
	p.z, p.w, p.out, p.neg, p.perClass = z, w, out, dims.T, perClass
	if cap(p.qw) < C {
		p.qw, p.nw, p.sw = make([]float64, C), make([]float64, C), make([]float64, C)
	}
	p.qw, p.nw, p.sw = p.qw[:C], p.nw[:C], p.sw[:C]
	if n := rows * C; cap(p.raw) < n {
		p.raw, p.inz, p.sz = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	p.raw, p.inz, p.sz = p.raw[:rows*C], p.inz[:rows*C], p.sz[:rows*C]
	for c := 0; c < C; c++ {
		wc := w.Value.Data[c*d : (c+1)*d]
		p.qw[c] = p.metric(wc, wc)
		p.nw[c] = math.Max(math.Sqrt(math.Abs(p.qw[c])), AlignEps)
		p.sw[c] = alignNormSlope(p.qw[c], p.nw[c])
	}
	tensor.ParallelFor(rows, 4*C*d, p.fwd)
	return out
}

func (p *alignOp[T]) metric(a, b []T) float64 {
	return -dotT(a[:p.neg], b[:p.neg]) + dotT(a[p.neg:], b[p.neg:])
}

// zRow returns the row of z scored in output element (i, c).
func (p *alignOp[T]) zRow(i, c int) []T {
	d, C := p.z.Value.Cols, p.w.Value.Rows
	r := i
	if p.perClass {
		r = i*C + c
	}
	return p.z.Value.Data[r*d : (r+1)*d]
}

func (p *alignOp[T]) forwardRows(lo, hi int) {
	C, d := p.w.Value.Rows, p.z.Value.Cols
	W := p.w.Value.Data
	for i := lo; i < hi; i++ {
		if p.perClass {
			for c := 0; c < C; c++ {
				qz, gw := metricPair(p.zRow(i, c), W[c*d:(c+1)*d], p.neg)
				p.score(i*C+c, c, gw, newAlignNorm(qz))
			}
			continue
		}
		z := p.zRow(i, 0)
		n := newAlignNorm(p.metric(z, z))
		c := 0
		for ; c+4 <= C; c += 4 {
			for k, gw := range metric4(z, W[c*d:(c+4)*d], p.neg) {
				p.score(i*C+c+k, c+k, gw, n)
			}
		}
		for ; c < C; c++ {
			p.score(i*C+c, c, p.metric(z, W[c*d:(c+1)*d]), n)
		}
	}
}

// alignNorm is what the alignment keeps of a z row's pseudo-norm: the
// floored n = max(√|q|, ε), q = g(z,z), its inverse and the slope s of
// alignNormSlope.
type alignNorm struct{ n, inv, s float64 }

func newAlignNorm(q float64) alignNorm {
	r := math.Sqrt(math.Abs(q))
	n := r
	if n < AlignEps { // math.Max(r, AlignEps) without its call: NaN stays NaN
		n = AlignEps
	}
	var s float64 // alignNormSlope(q, n), the root taken once
	if r > AlignEps {
		s = 1 / (n * n)
		if q < 0 {
			s = -s
		}
	}
	return alignNorm{n: n, inv: 1 / n, s: s}
}

// score sets output element e, of class c, from gw = g(z,w_c)
// and z's norm: the unclipped score, 1/n_z and the slope s_z for the
// backward pass, and the score clipped to ±AlignClip (math.Max and
// math.Min would give the same bits, NaN included, at the cost of a call
// each).
func (p *alignOp[T]) score(e, c int, gw float64, z alignNorm) {
	raw := gw / (z.n * p.nw[c])
	p.raw[e], p.inz[e], p.sz[e] = raw, z.inv, z.s
	y := raw
	if y > AlignClip {
		y = AlignClip
	} else if y < -AlignClip {
		y = -AlignClip
	}
	p.out.Value.Data[e] = T(y)
}

// metricPair returns g(z,z) and g(z,w), each summed as metric sums it, in
// one pass: the two sums are independent chains of additions, so they
// overlap in the pipeline where two calls would each wait on their own.
func metricPair[T Float](z, w []T, neg int) (zz, zw float64) {
	w = w[:len(z)]
	var a, b, c, e float64
	for q := 0; q < neg; q++ {
		x := float64(z[q])
		a += x * x
		b += x * float64(w[q])
	}
	for q := neg; q < len(z); q++ {
		x := float64(z[q])
		c += x * x
		e += x * float64(w[q])
	}
	return -a + c, -b + e
}

// metric4 returns g(z, w_k) for the four consecutive rows w_k of w (4×len(z)),
// each summed as metric sums it, with the four chains interleaved.
func metric4[T Float](z, w []T, neg int) [4]float64 {
	d := len(z)
	w0, w1, w2, w3 := w[:d], w[d:2*d], w[2*d:3*d], w[3*d:4*d]
	var t0, t1, t2, t3, s0, s1, s2, s3 float64
	for q := 0; q < neg; q++ {
		x := float64(z[q])
		t0 += x * float64(w0[q])
		t1 += x * float64(w1[q])
		t2 += x * float64(w2[q])
		t3 += x * float64(w3[q])
	}
	for q := neg; q < d; q++ {
		x := float64(z[q])
		s0 += x * float64(w0[q])
		s1 += x * float64(w1[q])
		s2 += x * float64(w2[q])
		s3 += x * float64(w3[q])
	}
	return [4]float64{-t0 + s0, -t1 + s1, -t2 + s2, -t3 + s3}
}

// alignNormSlope returns the s with ∂n/∂v = n·s·J·v for the floored
// pseudo-norm n = max(√|q|, ε), q = g(v,v): s = sign(q)/n² above the floor
// (where ∂n/∂v = sign(q)·J·v/n), 0 at it. The score a = g(z,w)/(n_z n_w)
// then has ∂a/∂z = J·w/(n_z n_w) − a·s_z·J·z.
func alignNormSlope(q, n float64) float64 {
	if !(math.Sqrt(math.Abs(q)) > AlignEps) {
		return 0
	}
	if q < 0 {
		return -1 / (n * n)
	}
	return 1 / (n * n)
}

// addSignedRow adds J·(a − s·z) into dst, J = diag(−1 ×neg, +1 …).
func addSignedRow[T Float](dst []T, a []float64, s float64, z []T, neg int) {
	for j := range dst[:neg] {
		dst[j] -= T(a[j] - s*float64(z[j]))
	}
	for j := neg; j < len(dst); j++ {
		dst[j] += T(a[j] - s*float64(z[j]))
	}
}

// backwardBlocks handles output rows in blocks [blo, bhi) of blockRows: with
// a = g(z,w)/(n_z·n_w) unclipped, k = G/(n_z n_w),
//
//	∂z += J·(k·w − G·a·s_z·z),   ∂w += J·(k·z − G·a·s_w·w),
//
// s = alignNormSlope. J is applied once per row (z) or once per class at
// the end (w), so the inner loops are plain axpys. ∂z rows are written in
// place (each belongs to one output row); ∂w goes to the block's partials.
func (p *alignOp[T]) backwardBlocks(blo, bhi int) {
	n, C, d := p.out.Value.Rows, p.w.Value.Rows, p.z.Value.Cols
	zg, wg := p.z.RequiresGrad(), p.w.RequiresGrad()
	stride := alignStride(C, d)
	W := p.w.Value.Data
	for b := blo; b < bhi; b++ {
		part := p.partial[b*stride : (b+1)*stride]
		clear(part)
		pw, ps, acc := part[:C*d], part[C*d:C*d+C], part[C*d+C:C*d+C+d]
		if zg && wg && !p.perClass {
			p.backwardRowsBoth(b*blockRows, min((b+1)*blockRows, n), pw, ps, acc, part[C*d+C+d:], p.cls[b*C:(b+1)*C])
			continue
		}
		for i := b * blockRows; i < min((b+1)*blockRows, n); i++ {
			S := 0.0
			for c := 0; c < C; c++ {
				e := i*C + c
				g, raw := float64(p.out.Grad.Data[e]), p.raw[e]
				if g == 0 || math.Abs(raw) > AlignClip {
					continue
				}
				z, wc := p.zRow(i, c), W[c*d:(c+1)*d]
				k := g * p.inz[e] / p.nw[c]
				if zg {
					if p.perClass {
						clear(acc)
					}
					acc := acc[:len(wc)] // bounds hint
					for j, v := range wc {
						acc[j] += k * float64(v)
					}
					S += g * raw * p.sz[e]
					if p.perClass {
						r := i*C + c
						addSignedRow(p.z.Grad.Data[r*d:(r+1)*d], acc, S, z, p.neg)
						S = 0
					}
				}
				if wg {
					pwc := pw[c*d : (c+1)*d]
					pwc = pwc[:len(z)] // bounds hint
					for j, v := range z {
						pwc[j] += k * float64(v)
					}
					ps[c] += g * raw * p.sw[c]
				}
			}
			if zg && !p.perClass {
				addSignedRow(p.z.Grad.Data[i*d:(i+1)*d], acc, S, p.zRow(i, 0), p.neg)
				clear(acc)
			}
		}
	}
}

// backwardRowsBoth is backwardBlocks' loop over the rows [lo, hi) of a
// block when both z and w take gradients (one z row per node): the row's
// class terms k·w_c into acc and k·z into pw_c go to
// tensor.AddScaledRowsWiden in one call, in class order, so every sum takes
// its terms in the order of the loop it replaces and the bits are the same.
func (p *alignOp[T]) backwardRowsBoth(lo, hi int, pw, ps, acc, ks []float64, cls []int32) {
	C := p.w.Value.Rows
	W := p.w.Value.Data
	d := p.z.Value.Cols
	for i := lo; i < hi; i++ {
		S, m := 0.0, 0
		for c := 0; c < C; c++ {
			e := i*C + c
			g, raw := float64(p.out.Grad.Data[e]), p.raw[e]
			if g == 0 || math.Abs(raw) > AlignClip {
				continue
			}
			cls[m], ks[m] = int32(c), g*p.inz[e]/p.nw[c]
			m++
			S += g * raw * p.sz[e]
			ps[c] += g * raw * p.sw[c]
		}
		z := p.z.Value.Data[i*d : (i+1)*d]
		tensor.AddScaledRowsWiden(acc, pw, W, z, cls[:m], ks[:m])
		addSignedRow(p.z.Grad.Data[i*d:(i+1)*d], acc, S, z, p.neg)
		clear(acc)
	}
}

// alignStride is the length of a row block's partial sums (backwardBlocks):
// C×d, C, d and C.
func alignStride(C, d int) int { return C*d + C + d + C }

// Backward implements autodiff.Op.
func (p *alignOp[T]) Backward(out *autodiff.Var[T]) {
	n, C, d := out.Value.Rows, p.w.Value.Rows, p.z.Value.Cols
	nb := (n + blockRows - 1) / blockRows
	stride := alignStride(C, d)
	if cap(p.partial) < nb*stride {
		p.partial = make([]float64, nb*stride)
	}
	p.partial = p.partial[:nb*stride]
	if cap(p.cls) < nb*C {
		p.cls = make([]int32, nb*C)
	}
	p.cls = p.cls[:nb*C]
	tensor.ParallelFor(nb, 4*C*d*blockRows, p.bwd)
	if !p.w.RequiresGrad() {
		return
	}
	for c := 0; c < C; c++ {
		S := 0.0
		for b := 0; b < nb; b++ {
			S += p.partial[b*stride+C*d+c]
		}
		wc := p.w.Value.Data[c*d : (c+1)*d]
		gw := p.w.Grad.Data[c*d : (c+1)*d]
		for j := range gw {
			a := 0.0
			for b := 0; b < nb; b++ {
				a += p.partial[b*stride+c*d+j]
			}
			v := a - S*float64(wc[j])
			if j < p.neg {
				v = -v
			}
			gw[j] += T(v)
		}
	}
}
