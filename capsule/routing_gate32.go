package capsule

import (
	"math"

	"github.com/prcaps/prcaps/autodiff"
)

// The gate in float32 training: gateOp computed in float32 throughout, a
// link's four perspectives side by side, for the default gate (K = 4, all
// three terms) and for the first iteration's, per child, whose κ̂ is 0 and
// which has no routing-consistency term (lc nil: the f·ρ term and its
// gradients are left out). The float64 kernels it replaces (the generic
// ones, which float64 networks keep) spend their time in float64
// divisions and exponentials that float32 results do not need. This is
// the generic gate's formula with each operation rounded to float32, in a
// fixed order that the AVX-512 kernels (routing_gate32_amd64.s, four links
// a vector) and the AVX2 kernels (routing_gate32_avx2_amd64.s, two) follow
// operation for operation, so the Go code below and the kernels give the
// same bits on every machine (TestGate32Kernels).
//
// Per link, with ρ = h·WC, f = α_r·ℓ and ℓ = float32(log(c + 1e-9)):
//
//	L_k = (α_c·((−½·d_k)·d_k) + α_a·A_k) + f·ρ_k,  d_k = κ̂ − β_k
//	σ_k = sigmoid32(L_k),  G = ((σ₀ + σ₁) + σ₂) + σ₃,  γ_k = σ_k / G
//
// where ρ_k = (((h₀·WC₀ₖ + h₁·WC₁ₖ) + h₂·WC₂ₖ) + h₃·WC₃ₖ), and every sum
// over the perspectives below adds them in the order 0, 1, 2, 3. The
// parameter gradients' per-link terms go into four float32 accumulators
// per block, one for the links of each residue mod 4 (the four lanes of a
// vector of links), which gate32Part adds up in float64.

// gate32Args is the operand block of the float32 gate kernels (offsets
// checked by TestGate32ArgsLayout): the links [0, n) of a range, each
// pointer at the range's first link; a nil gradient pointer is skipped,
// kap nil is κ̂ = 0 and lc nil a gate without routing consistency (h, c,
// gC and gH then unused).
// wc and wct hold WC's rows and columns, and beta β, each repeated for the
// four links of a vector.
type gate32Args struct {
	kap, h, a, c *float32
	lc           *float64 // log(c + 1e-9), rounded to float32 when read
	sig          *float32 // σ: written by the forward kernel, read by the backward one
	out          *float32 // γ: written by the forward kernel (nil: not written), read by the backward one
	g            *float32 // ∂γ
	gKap, gA, gC *float32
	gH           *float32
	n            int
	ac, aa, ar   float32
	_            float32
	beta         [16]float32
	wc, wct      [4][16]float32
	accB, accA   [16]float32    // ∂β_k and [∂α_c, ∂α_a, ∂α_r, 0] at lanes 4j+k
	accW         [4][16]float32 // ∂WC[k'][k] at accW[k'][4j+k]
}

// gate32Set fills the parameters of a from the gate's view (WC only with
// the routing-consistency term).
func gate32Set[T autodiff.Float](a *gate32Args, v *gateView[T]) {
	a.ac, a.aa, a.ar = float32(v.ac), float32(v.aa), float32(v.ar)
	for j := 0; j < 4; j++ {
		for k := 0; k < 4; k++ {
			a.beta[4*j+k] = float32(v.beta[k])
			if !v.hasR {
				continue
			}
			for k2 := 0; k2 < 4; k2++ {
				a.wc[k2][4*j+k] = float32(v.wc[k2*4+k])
				a.wct[k][4*j+k2] = float32(v.wc[k2*4+k])
			}
		}
	}
}

// sigmoid32's constants: a Cody–Waite split of ln 2 (n·ln2Hi is exact for
// |n| ≤ 126) and 1/k! for the degree-7 Taylor polynomial of e^r on |r| ≤
// ln2/2 (truncation error below 5e-9, under float32's resolution).
const (
	gate32Log2E = float32(1.44269504088896341)
	gate32Ln2Hi = float32(0.693145751953125)
	gate32Ln2Lo = float32(1.42860682030941723212e-6)
	gate32Min   = float32(-87) // e^{−87} is still a normal float32
	gate32Eps   = float32(1e-9)
	gate32Round = float32(1 << 23 * 1.5)
)

var gate32Poly = [8]float32{1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1, 1}

// sigmoid32 is σ(x) = 1/(1+e^{−x}) in float32, in the stable form: t =
// e^{−|x|}, σ = 1/(1+t) for x ≥ 0 and t·(1/(1+t)) for x < 0 (by the sign
// bit). |x| counts as 87 at most: e^{−87} is still a normal float32, so a
// gate's σ are never flushed to zero (which would leave γ = 0/0) where
// every logit is below −87; the gates are then equal.
func sigmoid32(x float32) float32 {
	b := math.Float32bits(x)
	v := math.Float32frombits(b | 1<<31) // −|x|
	if v < gate32Min {
		v = gate32Min
	}
	// n = v·log₂e rounded to the nearest integer, ties to even, as
	// VRNDSCALEPS rounds it: adding and subtracting 1.5·2^23 rounds a
	// float32 of magnitude below 2^22 so (|v·log₂e| ≤ 126; a NaN stays
	// NaN; −0 becomes +0, which changes nothing below).
	n := (v*gate32Log2E + gate32Round) - gate32Round
	r := v - n*gate32Ln2Hi
	r -= n * gate32Ln2Lo
	p := gate32Poly[0]
	for _, c := range gate32Poly[1:] {
		p = p*r + c
	}
	t := p * math.Float32frombits(uint32(int32(n)+127)<<23)
	q := 1 / (1 + t)
	if b>>31 != 0 {
		return t * q
	}
	return q
}

// gate32Rho is ρ = h·WC for the link at h.
func gate32Rho(a *gate32Args, h []float32) (r [4]float32) {
	for k := range r {
		r[k] = h[0] * a.wc[0][k]
	}
	for k2 := 1; k2 < 4; k2++ {
		for k := range r {
			r[k] += h[k2] * a.wc[k2][k]
		}
	}
	return r
}

// gate32Forward sets σ (to sig) and γ (to out, unless nil) of the links
// [from, a.n) in Go, the kernels' arithmetic.
func gate32Forward(a *gate32Args, from int, kap, h, aa, sig, out []float32, lc []float64) {
	for e := from; e < a.n; e++ {
		var r [4]float32
		var f, ke float32
		if lc != nil {
			r = gate32Rho(a, h[4*e:4*e+4])
			f = a.ar * float32(lc[e])
		}
		if kap != nil {
			ke = kap[e]
		}
		s := sig[4*e : 4*e+4]
		for k := range s {
			d := ke - a.beta[k]
			L := a.ac * ((-0.5 * d) * d)
			L += a.aa * aa[4*e+k]
			if lc != nil {
				L += f * r[k]
			}
			s[k] = sigmoid32(L)
		}
		if out != nil {
			G := ((s[0] + s[1]) + s[2]) + s[3]
			for k, v := range s {
				out[4*e+k] = v / G
			}
		}
	}
}

// sum4 is ((x₀ + x₁) + x₂) + x₃.
func sum4(x *[4]float32) float32 { return ((x[0] + x[1]) + x[2]) + x[3] }

// gate32Backward is the backward kernel for the links [from, a.n) in Go:
// it adds the links' gradients to gKap, gA, gC and gH (each unless nil)
// and their parameter-gradient terms to a's accumulators, link e's to
// those of lane group e mod 4.
func gate32Backward(a *gate32Args, from int, v gate32Slices) {
	for e := from; e < a.n; e++ {
		j := 4 * (e & 3)
		s, g, gam := v.sig[4*e:4*e+4], v.g[4*e:4*e+4], v.out[4*e:4*e+4]
		A := v.a[4*e : 4*e+4]
		var ke float32
		if v.kap != nil {
			ke = v.kap[e]
		}
		G := ((s[0] + s[1]) + s[2]) + s[3]
		var t [4]float32
		for k := range t {
			t[k] = g[k] * gam[k]
		}
		D := sum4(&t)
		var dl, x, nk, ck, ak [4]float32
		for k := range dl {
			dl[k] = (((g[k] - D) / G) * s[k]) * (1 - s[k])
			x[k] = ke - a.beta[k]
			p := dl[k] * x[k]
			nk[k], ck[k] = -p, p*x[k]
			ak[k] = dl[k] * A[k]
			a.accB[j+k] += (a.ac * dl[k]) * x[k]
		}
		dk, dac, daa := sum4(&nk), sum4(&ck), sum4(&ak)
		a.accA[j] += -0.5 * dac
		a.accA[j+1] += daa
		if v.gKap != nil {
			v.gKap[e] += a.ac * dk
		}
		if v.gA != nil {
			for k, d := range dl {
				v.gA[4*e+k] += a.aa * d
			}
		}
		if v.lc == nil {
			continue
		}
		h := v.h[4*e : 4*e+4]
		r := gate32Rho(a, h)
		var rk [4]float32
		for k := range rk {
			rk[k] = dl[k] * r[k]
		}
		dlc := sum4(&rk)
		lc := float32(v.lc[e])
		a.accA[j+2] += lc * dlc
		if v.gC != nil {
			v.gC[e] += (a.ar * dlc) / (v.c[e] + gate32Eps)
		}
		f := a.ar * lc
		var sh [4]float32
		for k2 := range sh {
			fh := f * h[k2]
			for k, d := range dl {
				a.accW[k2][j+k] += fh * d
			}
			sh[k2] = dl[0] * a.wct[0][k2]
		}
		for k := 1; k < 4; k++ {
			for k2 := range sh {
				sh[k2] += dl[k] * a.wct[k][k2]
			}
		}
		if v.gH != nil {
			for k2, x := range sh {
				v.gH[4*e+k2] += f * x
			}
		}
	}
}

// gate32Slices are the backward kernel's per-link operands as slices over
// the range (nil: absent), for the Go kernel.
type gate32Slices struct {
	kap, h, a, c, sig, out, g []float32
	lc                        []float64
	gKap, gA, gC, gH          []float32
}

// gate32Part adds the four lane groups' accumulators of a up in float64,
// in lane-group order, into part (∂β, ∂α_c, ∂α_a, ∂α_r, ∂WC row-major).
func gate32Part(a *gate32Args, part []float64) {
	sum := func(acc *[16]float32, k int) float64 {
		s := 0.0
		for j := 0; j < 4; j++ {
			s += float64(acc[4*j+k])
		}
		return s
	}
	for k := 0; k < 4; k++ {
		part[k] = sum(&a.accB, k)
	}
	for q := 0; q < 3; q++ {
		part[4+q] = sum(&a.accA, q)
	}
	for k2 := 0; k2 < 4; k2++ {
		for k := 0; k < 4; k++ {
			part[7+4*k2+k] = sum(&a.accW[k2], k)
		}
	}
}

// f32s returns x[lo:hi] as the []float32 it is (T is float32 on the
// float32 path), or nil for an absent x.
func f32s[T autodiff.Float](x []T, lo, hi int) []float32 {
	if x == nil {
		return nil
	}
	return any(x).([]float32)[lo:hi]
}

// at32 is &x[0], or nil for an absent x.
func at32(x []float32) *float32 {
	if x == nil {
		return nil
	}
	return &x[0]
}

// at64 is &x[0], or nil for an absent x.
func at64(x []float64) *float64 {
	if x == nil {
		return nil
	}
	return &x[0]
}

// gate32Shape reports whether p runs the float32 path: a float32 gate with
// K = 4 and the curvature and alignment terms, either the default gate
// (κ̂ and the routing-consistency term too) or the first iteration's (κ̂ = 0
// and no routing consistency).
func (p *gateOp[T]) gate32Shape() bool {
	v := &p.v
	return isFloat32[T]() && p.k == 4 && !p.in.generic && v.hasC && v.hasA && (v.kap != nil) == v.hasR
}

// forward32 runs the forward kernel on the links [lo, hi): σ to sig and
// log(c+1e-9) from lc (both indexed from lo; lc nil without the
// routing-consistency term), γ to the output unless noOut (a backward
// pass recomputing σ).
func (p *gateOp[T]) forward32(lo, hi int, sig []float32, lc []float64, noOut bool) {
	v := &p.v
	a := p.args
	kap, h, aa := f32s(v.kap, lo, hi), f32s(v.h, lo*4, hi*4), f32s(v.a, lo*4, hi*4)
	var out []float32
	if !noOut {
		out = f32s(p.out.Value.Data, lo*4, hi*4)
	}
	if lc != nil {
		lc = lc[:hi-lo]
	}
	a.kap, a.h, a.a, a.lc, a.sig, a.out, a.n = at32(kap), at32(h), &aa[0], at64(lc), &sig[0], at32(out), hi-lo
	done := 0
	if gate32Vec() {
		gate32FwdVec(&a)
		done = a.n &^ 3
	}
	gate32Forward(&a, done, kap, h, aa, sig[:4*a.n], out, lc)
}

// forwardRows32 is the float32 path's forward pass over links [lo, hi):
// σ and log(c+1e-9) kept for Backward, or formed per block on the stack
// when blocked.
func (p *gateOp[T]) forwardRows32(lo, hi int) {
	hasR := p.v.hasR
	if p.blocked {
		var sig [gateBlock * 4]float32
		var lcBuf [gateBlock]float64
		for b := lo; b < hi; b += gateBlock {
			bh := min(b+gateBlock, hi)
			var lc []float64
			if hasR {
				lc = lcBuf[:bh-b]
				p.logCouplingInto(lc, b)
			}
			p.forward32(b, bh, sig[:], lc, false)
		}
		return
	}
	var lc []float64
	if hasR {
		p.logCoupling(lo, hi)
		lc = p.lc[lo:hi]
	}
	p.forward32(lo, hi, p.sig32[lo*4:], lc, false)
}

// backwardBlocks32 is the float32 path's backward pass over the blocks
// [lo, hi) of gateBlock links, each block's parameter-gradient terms
// added up into its part.
func (p *gateOp[T]) backwardBlocks32(lo, hi int) {
	const np = 4 + 3 + 16
	v := &p.v
	var sigBuf [gateBlock * 4]float32 // σ of a block, when blocked
	var lcBuf [gateBlock]float64      // and log(c+1e-9)
	for b := lo; b < hi; b++ {
		e0, e1 := b*gateBlock, min((b+1)*gateBlock, p.n)
		n := e1 - e0
		var sig []float32
		var lc []float64
		switch {
		case p.blocked: // the forward pass's σ, recomputed
			sig = sigBuf[:4*n]
			if v.hasR {
				lc = lcBuf[:n]
				p.logCouplingInto(lc, e0)
			}
			p.forward32(e0, e1, sig, lc, true)
		default:
			sig = p.sig32[4*e0 : 4*e1]
			if v.hasR {
				lc = p.lc[e0:e1]
			}
		}
		s := gate32Slices{
			kap: f32s(v.kap, e0, e1), h: f32s(v.h, 4*e0, 4*e1), a: f32s(v.a, 4*e0, 4*e1), c: f32s(v.c, e0, e1),
			sig: sig, out: f32s(p.out.Value.Data, 4*e0, 4*e1), g: f32s(p.out.Grad.Data, 4*e0, 4*e1), lc: lc,
			gKap: f32s(v.gKap, e0, e1), gA: f32s(v.gA, 4*e0, 4*e1), gC: f32s(v.gC, e0, e1), gH: f32s(v.gH, 4*e0, 4*e1),
		}
		a := p.args
		a.kap, a.h, a.a, a.c, a.lc, a.sig, a.out, a.g = at32(s.kap), at32(s.h), &s.a[0], at32(s.c), at64(lc), &sig[0], &s.out[0], &s.g[0]
		a.gKap, a.gA, a.gC, a.gH, a.n = at32(s.gKap), at32(s.gA), at32(s.gC), at32(s.gH), n
		done := 0
		if gate32Vec() {
			gate32BackVec(&a)
			done = n &^ 3
		}
		gate32Backward(&a, done, s)
		gate32Part(&a, p.part[b*np:(b+1)*np])
	}
}
