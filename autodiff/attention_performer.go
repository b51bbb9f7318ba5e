package autodiff

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/tensor"
)

// PerformerEps is the constant FAVOR+'s positive feature map adds to every
// feature (performer-pytorch's softmax_kernel eps), which keeps the
// normalisers away from zero.
const PerformerEps = 1e-4

// performerOp is the record of FAVOR+ attention. Per head it keeps the
// random features of the queries and keys (n×f and m×f), the context
// C = K'ᵀV (f×dh), the key-feature sums z (f) and the normalisers, all
// O((n+m)·f) memory.
type performerOp[T Float] struct {
	q, k, v, proj, out *Var[T]
	heads, dh, n, m, w int
	f                  int
	s, r               float64 // dh^−¼ and f^−½
	qf, kf             []T     // heads×n×f and heads×m×f: Q' and K'
	ctx                []T     // heads×f×dh: C
	z                  []T     // heads×f
	den                []float64
	qArg               []int32 // heads×n: the column of each query row's maximum
	kArg               []int   // heads: the flat index of the keys' maximum
	// Per-head scratch: the head's scaled inputs and the products.
	qh, kh, vh, num, dnum, dqf, dkf, dc, dx, dv tensor.Dense[T]
	qfD, kfD, ctxD                              tensor.Dense[T] // views into qf, kf, ctx
	dz, rowSum                                  []float64
}

// PerformerAttention records the linear-cost attention of Performer
// (Choromanski et al. 2021, "Rethinking attention with Performers"), the
// FAVOR+ approximation of softmax attention with positive orthogonal
// random features, as performer-pytorch computes it (the Performer global
// attention of GraphGPS, Rampášek et al. 2022 §3.3). For each head h, with
// x_h the head's dh columns of q or k and the rows ω_l of proj (f×dh, the
// random features shared by the heads), s = dh^−¼ and r = f^−½:
//
//	φ_q(x)_l = r·(exp(s x·ω_l − s²‖x‖²/2 − max_l' s x·ω_l') + ε)    (per query row)
//	φ_k(x)_l = r·(exp(s x·ω_l − s²‖x‖²/2 − max over all keys and l') + ε)
//	out_h,i  = φ_q(q_i)·(K'ᵀ v_h) / φ_q(q_i)·(K'ᵀ 1),  K' = φ_k(k_h),
//
// so that φ_q(q)·φ_k(k) ≈ exp(q·k/√dh) up to the per-row factors, which
// cancel in the ratio (Choromanski et al., Lemma 1). The maxima
// (per query row; per head over all keys) only stabilise the
// exponentials, and cancel in the ratio but for ε = PerformerEps. Here
// they are part of the function and their gradients flow to the maximal
// entries, as with performer-pytorch's torch.max before later versions
// detached it.
//
// q is n×(heads·dh), k and v are m×(heads·dh); the cost is O((n+m)·f·dh)
// per head and nothing n×m is formed. It panics on mismatched shapes.
func PerformerAttention[T Float](t *Tape[T], q, k, v, proj *Var[T], heads int) *Var[T] {
	n, m, w := q.Value.Rows, k.Value.Rows, q.Value.Cols
	switch {
	case heads < 1 || w%heads != 0:
		panic(fmt.Sprintf("autodiff: PerformerAttention with %d heads over width %d", heads, w))
	case k.Value.Cols != w || v.Value.Cols != w || v.Value.Rows != m:
		panic(fmt.Sprintf("autodiff: PerformerAttention of queries %d×%d, keys %d×%d, values %d×%d",
			n, w, m, k.Value.Cols, v.Value.Rows, v.Value.Cols))
	case proj.Value.Cols != w/heads || proj.Value.Rows < 1:
		panic(fmt.Sprintf("autodiff: PerformerAttention projection %d×%d for heads of width %d", proj.Value.Rows, proj.Value.Cols, w/heads))
	case m == 0:
		panic("autodiff: PerformerAttention over no keys")
	}
	out := t.Node(n, w, q, k, v, proj)
	p := OpOf[performerOp[T]](out)
	p.q, p.k, p.v, p.proj, p.out = q, k, v, proj, out
	p.heads, p.dh, p.n, p.m, p.w, p.f = heads, w/heads, n, m, w, proj.Value.Rows
	p.s, p.r = math.Pow(float64(p.dh), -0.25), 1/math.Sqrt(float64(p.f))
	f, dh := p.f, p.dh
	p.qf, p.kf = growT(p.qf, heads*n*f), growT(p.kf, heads*m*f)
	p.ctx, p.z = growT(p.ctx, heads*f*dh), growT(p.z, heads*f)
	p.den = growF64(p.den, heads*n)
	if cap(p.qArg) < heads*n {
		p.qArg = make([]int32, heads*n)
	}
	p.qArg = p.qArg[:heads*n]
	if cap(p.kArg) < heads {
		p.kArg = make([]int, heads)
	}
	p.kArg = p.kArg[:heads]
	for h := 0; h < heads; h++ {
		p.forwardHead(h)
	}
	return out
}

// headCols copies columns [h·dh, (h+1)·dh) of src (rows×w) into dst,
// scaled by sc.
func headCols[T Float](dst *tensor.Dense[T], src *tensor.Dense[T], h, dh int, sc T) {
	dst.Reshape(src.Rows, dh)
	for i := 0; i < src.Rows; i++ {
		row := src.Data[i*src.Cols+h*dh : i*src.Cols+(h+1)*dh]
		for d, x := range row {
			dst.Data[i*dh+d] = x * sc
		}
	}
}

// features sets x (rows×f, holding s·x_h·projᵀ) to φ(x_h) in place, from
// the scaled head inputs xs (rows×dh). With perRow the maximum is each
// row's (queries), else the whole matrix's (keys); the argmax (column per
// row, or flat index) goes to args or *arg.
func (p *performerOp[T]) features(x, xs *tensor.Dense[T], perRow bool, args []int32, arg *int) {
	f := p.f
	gmax, gArg := math.Inf(-1), 0
	if !perRow {
		for i, v := range x.Data {
			if float64(v) > gmax {
				gmax, gArg = float64(v), i
			}
		}
		*arg = gArg
	}
	for i := 0; i < x.Rows; i++ {
		row := x.Data[i*f : (i+1)*f]
		var sq float64
		for _, v := range xs.Data[i*p.dh : (i+1)*p.dh] {
			sq += float64(v) * float64(v)
		}
		mx := gmax
		if perRow {
			mx = math.Inf(-1)
			for l, v := range row {
				if float64(v) > mx {
					mx, args[i] = float64(v), int32(l)
				}
			}
		}
		shift := sq/2 + mx
		for l, v := range row {
			row[l] = T(p.r * (math.Exp(float64(v)-shift) + PerformerEps))
		}
	}
}

func (p *performerOp[T]) forwardHead(h int) {
	n, m, f, dh, w := p.n, p.m, p.f, p.dh, p.w
	headCols(&p.qh, &p.q.Value, h, dh, T(p.s))
	headCols(&p.kh, &p.k.Value, h, dh, T(p.s))
	headCols(&p.vh, &p.v.Value, h, dh, 1)
	p.qfD = tensor.Dense[T]{Rows: n, Cols: f, Data: p.qf[h*n*f : (h+1)*n*f]}
	p.kfD = tensor.Dense[T]{Rows: m, Cols: f, Data: p.kf[h*m*f : (h+1)*m*f]}
	p.ctxD = tensor.Dense[T]{Rows: f, Cols: dh, Data: p.ctx[h*f*dh : (h+1)*f*dh]}
	tensor.Gemm(&p.qfD, &p.qh, &p.proj.Value, false, true, 1, 0) // s·q_h·projᵀ
	tensor.Gemm(&p.kfD, &p.kh, &p.proj.Value, false, true, 1, 0)
	p.features(&p.qfD, &p.qh, true, p.qArg[h*n:(h+1)*n], nil)
	p.features(&p.kfD, &p.kh, false, nil, &p.kArg[h])
	tensor.Gemm(&p.ctxD, &p.kfD, &p.vh, true, false, 1, 0) // C = K'ᵀ v_h
	z := p.z[h*f : (h+1)*f]
	p.rowSum = growF64(p.rowSum, f)
	acc := p.rowSum
	clear(acc)
	for j := 0; j < m; j++ {
		for l, x := range p.kfD.Data[j*f : (j+1)*f] {
			acc[l] += float64(x)
		}
	}
	for l, a := range acc {
		z[l] = T(a)
	}
	p.num.Reshape(n, dh)
	tensor.Gemm(&p.num, &p.qfD, &p.ctxD, false, false, 1, 0) // Q'C
	den := p.den[h*n : (h+1)*n]
	for i := 0; i < n; i++ {
		var d float64
		for l, x := range p.qfD.Data[i*f : (i+1)*f] {
			d += float64(x) * float64(z[l])
		}
		den[i] = d
		row := p.out.Value.Data[i*w+h*dh : i*w+(h+1)*dh]
		for c, x := range p.num.Data[i*dh : (i+1)*dh] {
			row[c] = T(float64(x) / d)
		}
	}
}

// Backward implements Op. Per head, with O = num/den:
//
//	∂num = ∂O/den, ∂den_i = −∂O_i·O_i/den_i,
//	∂Q' = ∂num Cᵀ + ∂den zᵀ,  ∂C = Q'ᵀ ∂num,  ∂z = Q'ᵀ ∂den,
//	∂K' = v ∂Cᵀ + 1 ∂zᵀ,      ∂v = K' ∂C,
//
// then through the feature maps: with G = ∂φ ⊙ (φ − rε) (the gradient of
// the exponent), ∂W = G less the sum of G over the maximum's set at the
// argmax, ∂x_s = ∂W proj − (Σ_l G_l) x_s, ∂proj += ∂Wᵀ x_s, and ∂x = s·∂x_s.
func (p *performerOp[T]) Backward(*Var[T]) {
	for h := 0; h < p.heads; h++ {
		p.backwardHead(h)
	}
}

func (p *performerOp[T]) backwardHead(h int) {
	n, m, f, dh, w := p.n, p.m, p.f, p.dh, p.w
	headCols(&p.qh, &p.q.Value, h, dh, T(p.s))
	headCols(&p.kh, &p.k.Value, h, dh, T(p.s))
	headCols(&p.vh, &p.v.Value, h, dh, 1)
	p.qfD = tensor.Dense[T]{Rows: n, Cols: f, Data: p.qf[h*n*f : (h+1)*n*f]}
	p.kfD = tensor.Dense[T]{Rows: m, Cols: f, Data: p.kf[h*m*f : (h+1)*m*f]}
	p.ctxD = tensor.Dense[T]{Rows: f, Cols: dh, Data: p.ctx[h*f*dh : (h+1)*f*dh]}
	z, den := p.z[h*f:(h+1)*f], p.den[h*n:(h+1)*n]
	// ∂num and ∂den.
	p.dnum.Reshape(n, dh)
	p.rowSum = growF64(p.rowSum, max(n, f))
	dden := p.rowSum[:n]
	for i := 0; i < n; i++ {
		g := p.out.Grad.Data[i*w+h*dh : i*w+(h+1)*dh]
		o := p.out.Value.Data[i*w+h*dh : i*w+(h+1)*dh]
		var s float64
		for c, x := range g {
			p.dnum.Data[i*dh+c] = T(float64(x) / den[i])
			s += float64(x) * float64(o[c])
		}
		dden[i] = -s / den[i]
	}
	// ∂Q' = ∂num Cᵀ + ∂den zᵀ.
	p.dqf.Reshape(n, f)
	tensor.Gemm(&p.dqf, &p.dnum, &p.ctxD, false, true, 1, 0)
	for i := 0; i < n; i++ {
		row := p.dqf.Data[i*f : (i+1)*f]
		for l := range row {
			row[l] += T(dden[i] * float64(z[l]))
		}
	}
	// ∂C = Q'ᵀ ∂num, ∂z = Q'ᵀ ∂den.
	p.dc.Reshape(f, dh)
	tensor.Gemm(&p.dc, &p.qfD, &p.dnum, true, false, 1, 0)
	p.dz = growF64(p.dz, f)
	clear(p.dz)
	for i := 0; i < n; i++ {
		for l, x := range p.qfD.Data[i*f : (i+1)*f] {
			p.dz[l] += float64(x) * dden[i]
		}
	}
	// ∂v = K' ∂C.
	if p.v.requiresGrad {
		p.dv.Reshape(m, dh)
		tensor.Gemm(&p.dv, &p.kfD, &p.dc, false, false, 1, 0)
		for j := 0; j < m; j++ {
			dst := p.v.Grad.Data[j*w+h*dh : j*w+(h+1)*dh]
			for c, x := range p.dv.Data[j*dh : (j+1)*dh] {
				dst[c] += x
			}
		}
	}
	// ∂K' = v ∂Cᵀ + 1 ∂zᵀ.
	if p.k.requiresGrad || p.proj.requiresGrad {
		p.dkf.Reshape(m, f)
		tensor.Gemm(&p.dkf, &p.vh, &p.dc, false, true, 1, 0)
		for j := 0; j < m; j++ {
			row := p.dkf.Data[j*f : (j+1)*f]
			for l := range row {
				row[l] += T(p.dz[l])
			}
		}
		p.featureGrad(&p.dkf, &p.kfD, &p.kh, p.k, h, false, nil, p.kArg[h])
	}
	if p.q.requiresGrad || p.proj.requiresGrad {
		p.featureGrad(&p.dqf, &p.qfD, &p.qh, p.q, h, true, p.qArg[h*n:(h+1)*n], 0)
	}
}

// featureGrad turns ∂φ (g, rows×f, overwritten) into the gradients of the
// head's input x (through its scaled copy xs) and of proj.
func (p *performerOp[T]) featureGrad(g, phi, xs *tensor.Dense[T], x *Var[T], h int, perRow bool, args []int32, arg int) {
	f, dh, w := p.f, p.dh, p.w
	re := p.r * PerformerEps
	rows := g.Rows
	p.rowSum = growF64(p.rowSum, rows)
	rs := p.rowSum[:rows]
	var total float64
	for i := 0; i < rows; i++ {
		row := g.Data[i*f : (i+1)*f]
		var s float64
		for l, v := range phi.Data[i*f : (i+1)*f] {
			gl := float64(row[l]) * (float64(v) - re)
			row[l] = T(gl)
			s += gl
		}
		rs[i] = s
		total += s
	}
	// The maximum subtracted in the exponent.
	if perRow {
		for i, a := range args {
			g.Data[i*f+int(a)] -= T(rs[i])
		}
	} else {
		g.Data[arg] -= T(total)
	}
	if p.proj.requiresGrad {
		tensor.Gemm(&p.proj.Grad, g, xs, true, false, 1, 1) // ∂Wᵀ x_s
	}
	if !x.requiresGrad {
		return
	}
	p.dx.Reshape(rows, dh)
	tensor.Gemm(&p.dx, g, &p.proj.Value, false, false, 1, 0) // ∂W proj
	for i := 0; i < rows; i++ {
		dst := x.Grad.Data[i*w+h*dh : i*w+(h+1)*dh]
		src := xs.Data[i*dh : (i+1)*dh]
		for d, v := range p.dx.Data[i*dh : (i+1)*dh] {
			dst[d] += T(p.s * (float64(v) - rs[i]*float64(src[d])))
		}
	}
}
