package nn

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// gateBlock is the row block of the deterministic reduction of the gate's
// parameter gradients (β_k, the α's and W^C).
const gateBlock = 512

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
}

type gateOp[T autodiff.Float] struct {
	in       gateInputs[T]
	out      *autodiff.Var[T]
	n, k     int
	sig      []float64 // n×K: σ(logit)
	lc       []float64 // n: log(c+1e-9), from the forward pass (with R)
	part     []float64 // per block: ∂β (K), ∂α_c, ∂α_a, ∂α_r, ∂WC (K²)
	fwd, bwd func(lo, hi int)
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
	req := false
	chk := func(name string, v *autodiff.Var[T], r, c int) {
		if v == nil {
			return
		}
		if v.Value.Rows != r || v.Value.Cols != c {
			panic(fmt.Sprintf("nn: linkGate: %s is %d×%d, want %d×%d", name, v.Value.Rows, v.Value.Cols, r, c))
		}
		req = req || v.RequiresGrad()
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
	out := t.Node(n, K, req)
	p := autodiff.OpOf[gateOp[T]](out)
	if p.fwd == nil {
		p.fwd, p.bwd = p.forwardRows, p.backwardBlocks
	}
	p.in, p.out, p.n, p.k = in, out, n, K
	p.sig = grow(p.sig, n*K)
	if in.alphaR != nil {
		p.lc = grow(p.lc, n)
	}
	tensor.ParallelFor(n, 16*K+2*K*K, p.fwd)
	return out
}

func scalar[T autodiff.Float](v *autodiff.Var[T]) float64 { return float64(v.Value.Data[0]) }

// rowTerms returns, for row e, κ̂ (0 without C), log(c+1e-9) (0 without R;
// computed in the forward pass, read back in the backward one) and writes
// R's pre-factor (h·WC)_k into rpre (when R is present).
func (p *gateOp[T]) rowTerms(e int, rpre []float64, forward bool) (kap, lc float64) {
	in, K := &p.in, p.k
	if in.alphaC != nil && in.kappa != nil {
		kap = float64(in.kappa.Value.Data[e])
	}
	if in.alphaR != nil {
		if forward {
			p.lc[e] = math.Log(float64(in.c.Value.Data[e]) + 1e-9)
		}
		lc = p.lc[e]
		h := in.h.Value.Data[e*K : (e+1)*K]
		wc := in.wc.Value.Data
		for k := range rpre {
			s := 0.0
			for k2, hv := range h {
				s += float64(hv) * float64(wc[k2*K+k])
			}
			rpre[k] = s
		}
	}
	return kap, lc
}

// maxGateK bounds K for the fixed-size scratch of the gate kernels.
const maxGateK = 64

func (p *gateOp[T]) forwardRows(lo, hi int) {
	in, K := &p.in, p.k
	var rbuf [maxGateK]float64
	rpre := rbuf[:K]
	var ac, aa, ar float64
	if in.alphaC != nil {
		ac = scalar(in.alphaC)
	}
	if in.alphaA != nil {
		aa = scalar(in.alphaA)
	}
	if in.alphaR != nil {
		ar = scalar(in.alphaR)
	}
	// The logits L_k into sig, then σ in place (vector kernel), then the
	// normalisation over k.
	for e := lo; e < hi; e++ {
		kap, lc := p.rowTerms(e, rpre, true)
		sig := p.sig[e*K : (e+1)*K]
		for k := range sig {
			L := 0.0
			if in.alphaC != nil {
				d := kap - float64(in.betaRow.Value.Data[k])
				L += ac * (-0.5 * d * d)
			}
			if in.alphaA != nil {
				L += aa * float64(in.a.Value.Data[e*K+k])
			}
			if in.alphaR != nil {
				L += ar * lc * rpre[k]
			}
			sig[k] = L
		}
	}
	tensor.Sigmoid64(p.sig[lo*K:hi*K], p.sig[lo*K:hi*K])
	for e := lo; e < hi; e++ {
		sig := p.sig[e*K : (e+1)*K]
		sum := 0.0
		for _, s := range sig {
			sum += s
		}
		o := p.out.Value.Data[e*K : (e+1)*K]
		for k, s := range sig {
			o[k] = T(s / sum)
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
	in, K := &p.in, p.k
	np := K + 3 + K*K
	var rbuf, dbuf [maxGateK]float64
	rpre, dl := rbuf[:K], dbuf[:K]
	var ac, aa, ar float64
	if in.alphaC != nil {
		ac = scalar(in.alphaC)
	}
	if in.alphaA != nil {
		aa = scalar(in.alphaA)
	}
	if in.alphaR != nil {
		ar = scalar(in.alphaR)
	}
	for b := lo; b < hi; b++ {
		part := p.part[b*np : (b+1)*np]
		clear(part)
		dBeta, dAlpha, dWC := part[:K], part[K:K+3], part[K+3:]
		for e := b * gateBlock; e < min((b+1)*gateBlock, p.n); e++ {
			kap, lc := p.rowTerms(e, rpre, false)
			sig := p.sig[e*K : (e+1)*K]
			g := p.out.Grad.Data[e*K : (e+1)*K]
			gam := p.out.Value.Data[e*K : (e+1)*K]
			sum, D := 0.0, 0.0
			for k, s := range sig {
				sum += s
				D += float64(g[k]) * float64(gam[k])
			}
			for k, s := range sig {
				dl[k] = (float64(g[k]) - D) / sum * s * (1 - s)
			}
			if in.alphaC != nil {
				dk := 0.0
				for k, d := range dl {
					diff := kap - float64(in.betaRow.Value.Data[k])
					dk -= d * diff
					dBeta[k] += ac * d * diff
					dAlpha[0] += d * (-0.5 * diff * diff)
				}
				if in.kappa != nil && in.kappa.RequiresGrad() {
					in.kappa.Grad.Data[e] += T(ac * dk)
				}
			}
			if in.alphaA != nil {
				ga := in.a.RequiresGrad()
				for k, d := range dl {
					dAlpha[1] += d * float64(in.a.Value.Data[e*K+k])
					if ga {
						in.a.Grad.Data[e*K+k] += T(aa * d)
					}
				}
			}
			if in.alphaR != nil {
				dlc := 0.0
				for k, d := range dl {
					dAlpha[2] += d * lc * rpre[k]
					dlc += d * rpre[k]
				}
				if in.c.RequiresGrad() {
					in.c.Grad.Data[e] += T(ar * dlc / (float64(in.c.Value.Data[e]) + 1e-9))
				}
				h := in.h.Value.Data[e*K : (e+1)*K]
				wc := in.wc.Value.Data
				gh := in.h.RequiresGrad()
				for k2, hv := range h {
					s := 0.0
					for k, d := range dl {
						s += d * float64(wc[k2*K+k])
						dWC[k2*K+k] += ar * lc * float64(hv) * d
					}
					if gh {
						in.h.Grad.Data[e*K+k2] += T(ar * lc * s)
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
	tensor.ParallelFor(nb, gateBlock*(24*K+4*K*K), p.bwd)
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
