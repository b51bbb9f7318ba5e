package capsule

import (
	"fmt"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// gateBlock is the row block of the deterministic reduction of the gate's
// parameter gradients (β_k, the α's and W^C).
const gateBlock = 512

// gateKeepMax bounds the σ values (n·K) that a training pass of the
// float32 path keeps for Backward: above it (graphs of over 2^18 links) σ
// is formed per block of rows and recomputed in Backward, the same
// operations on the same values, so the same bits. The recomputation costs
// the logits and sigmoids once more; keeping σ and log(c+1e-9) costs 24
// bytes per link and gate. Evaluation passes never keep them. A variable
// only so that tests can take the recomputing path on small inputs.
var gateKeepMax = 1 << 20

// isFloat32 reports whether T is float32 (the assembly kernels' type).
func isFloat32[T autodiff.Float]() bool {
	var z T
	_, ok := any(z).(float32)
	return ok
}

// gateInputs are the terms of Eq. (gating_weights_new) for n rows (links,
// or children in the first iteration). A term whose α is nil is absent.
type gateInputs[T autodiff.Float] struct {
	// Curvature compatibility: C_k = −½(κ̂ − β_k)², κ̂ from kappa (n×1) or 0
	// when kappa is nil; betaRow is 1×K.
	kappa, betaRow, alphaC *autodiff.Var[T]
	// Feature alignment: a (n×K).
	a, alphaA *autodiff.Var[T]
	// Routing consistency: R_k = log(c + 1e-9)·(h·WC)_k with c n×1, h n×K,
	// WC K×K (W^C transposed).
	c, h, wc, alphaR *autodiff.Var[T]
	// generic keeps the gate off its unrolled K = 4 kernels (for the tests
	// that compare the two).
	generic bool
}

type gateOp[T autodiff.Float] struct {
	in   gateInputs[T]
	v    gateView[T]
	out  *autodiff.Var[T]
	n, k int
	sig  []float64 // n×K: σ(logit), on the float64 paths
	lc   []float64 // n: log(c+1e-9), from the forward pass (with R; a blocked pass computes it per block)
	// f32: the float32 path (routing_gate32.go, gate32Shape), which
	// keeps σ in sig32 and its operands in args.
	f32   bool
	sig32 []float32
	args  gate32Args
	// blocked: the float32 path forms σ per block of gateBlock rows on
	// the stack and keeps none, recomputing it in Backward (gateKeepMax).
	blocked  bool
	part     []float64 // per block: ∂β (K), ∂α_c, ∂α_a, ∂α_r, ∂WC (K²)
	fwd, bwd func(lo, hi int)
	fwd4     func(lo, hi int) // forwardRows4
	bwd4     func(lo, hi int) // backwardBlocks4
	fwd32    func(lo, hi int) // forwardRows32
	bwd32    func(lo, hi int) // backwardBlocks32
}

// gateView holds the gate's inputs as flat slices, read once per pass so
// that the row loops do not chase the Var pointers: a nil slice is an
// absent term (or, for the gradients, an input that needs none).
type gateView[T autodiff.Float] struct {
	kap, a, c, h     []T
	beta, wc         []float64 // K and K×K, widened once
	ac, aa, ar       float64
	gKap, gA, gC, gH []T
	hasC, hasA, hasR bool
}

func (v *gateView[T]) load(in *gateInputs[T], K int) {
	*v = gateView[T]{beta: v.beta[:0], wc: v.wc[:0]}
	data := func(x *autodiff.Var[T]) []T {
		if x == nil {
			return nil
		}
		return x.Value.Data
	}
	grad := func(x *autodiff.Var[T]) []T {
		if x == nil || !x.RequiresGrad() {
			return nil
		}
		return x.Grad.Data
	}
	if in.alphaC != nil {
		v.hasC, v.ac = true, scalar(in.alphaC)
		v.kap, v.gKap = data(in.kappa), grad(in.kappa)
		for _, b := range in.betaRow.Value.Data[:K] {
			v.beta = append(v.beta, float64(b))
		}
	}
	if in.alphaA != nil {
		v.hasA, v.aa = true, scalar(in.alphaA)
		v.a, v.gA = in.a.Value.Data, grad(in.a)
	}
	if in.alphaR != nil {
		v.hasR, v.ar = true, scalar(in.alphaR)
		v.c, v.gC = in.c.Value.Data, grad(in.c)
		v.h, v.gH = in.h.Value.Data, grad(in.h)
		for _, w := range in.wc.Value.Data[:K*K] {
			v.wc = append(v.wc, float64(w))
		}
	}
}

// linkGate records the normalised curvature-aware gates
//
//	γ_k = σ(L_k) / Σ_k' σ(L_k'),  L_k = α_c·C_k + α_a·A_k + α_r·R_k
//
// of Eq. (gating_weights_new) with C, A, R of Eqs. (curvature_compatibility),
// (feature_alignment) and (routing_consistency), fused into one op over the
// rows (E×K result): the composition of elementwise ops it replaces (see
// gatesComposed) makes a dozen passes over E×K matrices.
func linkGate[T autodiff.Float](t *autodiff.Tape[T], in gateInputs[T], n, K int) *autodiff.Var[T] {
	var inBuf [9]*autodiff.Var[T]
	inputs := inBuf[:0]
	chk := func(name string, v *autodiff.Var[T], r, c int) {
		if v == nil {
			return
		}
		if v.Value.Rows != r || v.Value.Cols != c {
			panic(fmt.Sprintf("capsule: linkGate: %s is %d×%d, want %d×%d", name, v.Value.Rows, v.Value.Cols, r, c))
		}
		inputs = append(inputs, v)
	}
	if in.alphaC != nil {
		chk("kappa", in.kappa, n, 1)
		chk("betaRow", in.betaRow, 1, K)
		chk("alphaC", in.alphaC, 1, 1)
	}
	if in.alphaA != nil {
		chk("a", in.a, n, K)
		chk("alphaA", in.alphaA, 1, 1)
	}
	if in.alphaR != nil {
		chk("c", in.c, n, 1)
		chk("h", in.h, n, K)
		chk("wc", in.wc, K, K)
		chk("alphaR", in.alphaR, 1, 1)
	}
	out := t.Node(n, K, inputs...)
	p := autodiff.OpOf[gateOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRows, p.backwardBlocks
		p.fwd4, p.bwd4 = p.forwardRows4, p.backwardBlocks4
		p.fwd32, p.bwd32 = p.forwardRows32, p.backwardBlocks32
	}
	p.in, p.out, p.n, p.k = in, out, n, K
	p.v.load(&p.in, K)
	p.f32 = p.gate32Shape()
	p.blocked = p.f32 && (!out.RequiresGrad() || n*K > gateKeepMax)
	switch {
	case p.f32 && !p.blocked: // a blocked pass leaves p.sig32 to the training passes that keep it
		p.sig32 = grow(p.sig32, n*K)
	case !p.f32:
		p.sig = grow(p.sig, n*K)
	}
	if in.alphaR != nil && !p.blocked { // a blocked pass computes log(c+1e-9) per block, in both directions
		p.lc = grow(p.lc, n)
	}
	fwd := p.fwd
	switch {
	case p.f32:
		gate32Set(&p.args, &p.v)
		fwd = p.fwd32
	case p.gate4():
		fwd = p.fwd4
	}
	tensor.ParallelFor(n, 16*K+2*K*K, fwd)
	return out
}

func scalar[T autodiff.Float](v *autodiff.Var[T]) float64 { return float64(v.Value.Data[0]) }

// rowTerms returns, for row e, κ̂ (0 without C) and log(c+1e-9) (0 without
// R; forwardRows fills p.lc before its row loop) and writes R's pre-factor
// (h·WC)_k into rpre (when R is present).
func (p *gateOp[T]) rowTerms(e int, rpre []float64) (kap, lc float64) {
	v, K := &p.v, p.k
	if v.kap != nil {
		kap = float64(v.kap[e])
	}
	if !v.hasR {
		return kap, 0
	}
	h := v.h[e*K : (e+1)*K]
	clear(rpre)
	for k2, hv := range h {
		hf := float64(hv)
		w := v.wc[k2*K : (k2+1)*K]
		for k := range rpre {
			rpre[k] += hf * w[k]
		}
	}
	return kap, p.lc[e]
}

// maxGateK bounds K for the fixed-size scratch of the gate kernels.
const maxGateK = 64

func (p *gateOp[T]) forwardRows(lo, hi int) {
	v, K := &p.v, p.k
	var rbuf [maxGateK]float64
	rpre := rbuf[:K]
	// log(c+1e-9) in a pass of its own (a vector kernel), the
	// logits L_k into sig, then σ in place (vector kernel), then the
	// normalisation over k.
	if v.hasR {
		p.logCoupling(lo, hi)
	}
	for e := lo; e < hi; e++ {
		kap, lc := p.rowTerms(e, rpre)
		sig := p.sig[e*K : (e+1)*K]
		clear(sig)
		if v.hasC {
			for k, b := range v.beta[:len(sig)] {
				d := kap - b
				sig[k] = v.ac * (-0.5 * d * d)
			}
		}
		if v.hasA {
			for k, a := range v.a[e*K : (e+1)*K][:len(sig)] {
				sig[k] += v.aa * float64(a)
			}
		}
		if v.hasR {
			f := v.ar * lc
			for k, r := range rpre[:len(sig)] {
				sig[k] += f * r
			}
		}
	}
	p.sigmoidNormalise(lo, hi)
}

// sigmoidNormalise replaces rows [lo, hi) of sig, the logits, by σ (vector
// kernel) and writes γ = σ/Σσ to the output.
func (p *gateOp[T]) sigmoidNormalise(lo, hi int) {
	K := p.k
	tensor.Sigmoid64(p.sig[lo*K:hi*K], p.sig[lo*K:hi*K])
	out := p.out.Value.Data
	for e := lo; e < hi; e++ {
		sig := p.sig[e*K : (e+1)*K]
		sum := 0.0
		for _, s := range sig {
			sum += s
		}
		o := out[e*K : (e+1)*K][:len(sig)]
		for k, s := range sig {
			o[k] = T(s / sum) // a division, so that γ = 1 exactly when K = 1
		}
	}
}

// backwardBlocks handles row blocks [lo, hi). With G = Σσ, dγ the upstream
// gradient and D = Σ_k dγ_k γ_k:
//
//	∂L_k = (dγ_k − D)/G · σ_k(1−σ_k)
//	∂κ̂ += −α_c Σ_k ∂L_k (κ̂−β_k),  ∂β_k += α_c ∂L_k (κ̂−β_k),  ∂α_c += Σ_k ∂L_k C_k
//	∂A_k += α_a ∂L_k,              ∂α_a += Σ_k ∂L_k A_k
//	∂α_r += Σ_k ∂L_k ℓ ρ_k,  ∂c += α_r Σ_k ∂L_k ρ_k/(c+1e-9),
//	∂h_k' += α_r ℓ Σ_k ∂L_k WC[k',k],  ∂WC[k',k] += α_r ℓ h_k' ∂L_k
//
// where ℓ = log(c+1e-9) and ρ = h·WC.
func (p *gateOp[T]) backwardBlocks(lo, hi int) {
	v, K := &p.v, p.k
	np := K + 3 + K*K
	var rbuf, dbuf [maxGateK]float64
	rpre, dl := rbuf[:K], dbuf[:K]
	gOut, gam := p.out.Grad.Data, p.out.Value.Data
	for b := lo; b < hi; b++ {
		part := p.part[b*np : (b+1)*np]
		clear(part)
		dBeta, dAlpha, dWC := part[:K], part[K:K+3], part[K+3:]
		for e := b * gateBlock; e < min((b+1)*gateBlock, p.n); e++ {
			kap, lc := p.rowTerms(e, rpre)
			sig := p.sig[e*K : (e+1)*K]
			g := gOut[e*K : (e+1)*K][:len(sig)]
			ga := gam[e*K : (e+1)*K][:len(sig)]
			sum, D := 0.0, 0.0
			for k, s := range sig {
				sum += s
				D += float64(g[k]) * float64(ga[k])
			}
			for k, s := range sig {
				dl[k] = (float64(g[k]) - D) / sum * s * (1 - s)
			}
			if v.hasC {
				dk, dac := 0.0, 0.0
				for k, d := range dl {
					diff := kap - v.beta[k]
					dk -= d * diff
					dBeta[k] += v.ac * d * diff
					dac += d * diff * diff
				}
				dAlpha[0] -= 0.5 * dac
				if v.gKap != nil {
					v.gKap[e] += T(v.ac * dk)
				}
			}
			if v.hasA {
				a := v.a[e*K : (e+1)*K][:len(dl)]
				daa := 0.0
				for k, d := range dl {
					daa += d * float64(a[k])
				}
				dAlpha[1] += daa
				if v.gA != nil {
					gA := v.gA[e*K : (e+1)*K][:len(dl)]
					for k, d := range dl {
						gA[k] += T(v.aa * d)
					}
				}
			}
			if v.hasR {
				dlc := 0.0
				for k, d := range dl {
					dlc += d * rpre[k]
				}
				dAlpha[2] += lc * dlc
				if v.gC != nil {
					v.gC[e] += T(v.ar * dlc / (float64(v.c[e]) + 1e-9))
				}
				f := v.ar * lc
				h := v.h[e*K : (e+1)*K]
				for k2, hv := range h {
					w := v.wc[k2*K : (k2+1)*K][:len(dl)]
					dw := dWC[k2*K : (k2+1)*K][:len(dl)]
					fh := f * float64(hv)
					s := 0.0
					for k, d := range dl {
						s += d * w[k]
						dw[k] += fh * d
					}
					if v.gH != nil {
						v.gH[e*K+k2] += T(f * s)
					}
				}
			}
		}
	}
}

// Backward implements autodiff.Op.
func (p *gateOp[T]) Backward(out *autodiff.Var[T]) {
	in, K := &p.in, p.k
	np := K + 3 + K*K
	nb := (p.n + gateBlock - 1) / gateBlock
	p.part = grow(p.part, nb*np)
	p.v.load(in, K) // again: K + K² values, and Backward reads the gradient buffers as they are now
	bwd := p.bwd
	switch {
	case p.f32:
		gate32Set(&p.args, &p.v)
		bwd = p.bwd32
	case p.gate4():
		bwd = p.bwd4
	}
	tensor.ParallelFor(nb, gateBlock*(24*K+4*K*K), bwd)
	sum := func(off int) float64 {
		s := 0.0
		for b := 0; b < nb; b++ {
			s += p.part[b*np+off]
		}
		return s
	}
	if in.alphaC != nil {
		if in.betaRow.RequiresGrad() {
			for k := 0; k < K; k++ {
				in.betaRow.Grad.Data[k] += T(sum(k))
			}
		}
		if in.alphaC.RequiresGrad() {
			in.alphaC.Grad.Data[0] += T(sum(K))
		}
	}
	if in.alphaA != nil && in.alphaA.RequiresGrad() {
		in.alphaA.Grad.Data[0] += T(sum(K + 1))
	}
	if in.alphaR != nil {
		if in.alphaR.RequiresGrad() {
			in.alphaR.Grad.Data[0] += T(sum(K + 2))
		}
		if in.wc.RequiresGrad() {
			for q := 0; q < K*K; q++ {
				in.wc.Grad.Data[q] += T(sum(K + 3 + q))
			}
		}
	}
}

// logCoupling sets lc[e] = log(c_e + 1e-9) for links lo…hi−1, the gates'
// routing-state input, with math.Log's bits (tensor.Log64).
func (p *gateOp[T]) logCoupling(lo, hi int) {
	p.logCouplingInto(p.lc[lo:hi], lo)
}

// logCouplingInto sets dst[i] = log(c_{lo+i} + 1e-9), elementwise as
// logCoupling: a blocked pass's per-block values are the same bits.
func (p *gateOp[T]) logCouplingInto(dst []float64, lo int) {
	for e, c := range p.v.c[lo : lo+len(dst)] {
		dst[e] = float64(c) + 1e-9
	}
	tensor.Log64(dst, dst)
}
