package capsule

// The gate for K = 4 with all three terms, the default routing, in float64
// networks: the loops of forwardRows and backwardBlocks unrolled over k,
// with κ̂, the logits and the parameter-gradient accumulators in local
// variables instead of slices. The operations and their order are those of
// the generic kernels, so the two give the same bits
// (TestLinkGate4MatchesGeneric). Float32 networks run the float32 path
// (routing_gate32.go) instead.

// gate4 reports whether p is the default gate: K = 4 with all three terms.
func (p *gateOp[T]) gate4() bool {
	v := &p.v
	return p.k == 4 && !p.in.generic && v.hasC && v.kap != nil && v.hasA && v.hasR
}

// rpre4 is rowTerms' (h·WC)_k for one row.
func rpre4(h0, h1, h2, h3 float64, wc *[16]float64) (r0, r1, r2, r3 float64) {
	r0 += h0 * wc[0]
	r1 += h0 * wc[1]
	r2 += h0 * wc[2]
	r3 += h0 * wc[3]
	r0 += h1 * wc[4]
	r1 += h1 * wc[5]
	r2 += h1 * wc[6]
	r3 += h1 * wc[7]
	r0 += h2 * wc[8]
	r1 += h2 * wc[9]
	r2 += h2 * wc[10]
	r3 += h2 * wc[11]
	r0 += h3 * wc[12]
	r1 += h3 * wc[13]
	r2 += h3 * wc[14]
	r3 += h3 * wc[15]
	return
}

// logits4 writes row e's logits L_k into s (forwardRows' first loop).
func (p *gateOp[T]) logits4(e int, s *[4]float64, wc *[16]float64) {
	v := &p.v
	kap, lc := float64(v.kap[e]), p.lc[e]
	h := (*[4]T)(v.h[e*4:])
	a := (*[4]T)(v.a[e*4:])
	r0, r1, r2, r3 := rpre4(float64(h[0]), float64(h[1]), float64(h[2]), float64(h[3]), wc)
	d0, d1, d2, d3 := kap-v.beta[0], kap-v.beta[1], kap-v.beta[2], kap-v.beta[3]
	s[0] = v.ac * (-0.5 * d0 * d0)
	s[1] = v.ac * (-0.5 * d1 * d1)
	s[2] = v.ac * (-0.5 * d2 * d2)
	s[3] = v.ac * (-0.5 * d3 * d3)
	s[0] += v.aa * float64(a[0])
	s[1] += v.aa * float64(a[1])
	s[2] += v.aa * float64(a[2])
	s[3] += v.aa * float64(a[3])
	f := v.ar * lc
	s[0] += f * r0
	s[1] += f * r1
	s[2] += f * r2
	s[3] += f * r3
}

func (p *gateOp[T]) forwardRows4(lo, hi int) {
	wc := (*[16]float64)(p.v.wc)
	p.logCoupling(lo, hi)
	for e := lo; e < hi; e++ {
		p.logits4(e, (*[4]float64)(p.sig[e*4:]), wc)
	}
	p.sigmoidNormalise(lo, hi)
}

func (p *gateOp[T]) backwardBlocks4(lo, hi int) {
	v := &p.v
	const np = 4 + 3 + 16
	wc := (*[16]float64)(v.wc)
	b0, b1, b2, b3 := v.beta[0], v.beta[1], v.beta[2], v.beta[3]
	gOut, gam := p.out.Grad.Data, p.out.Value.Data
	for b := lo; b < hi; b++ {
		var dB [4]float64  // ∂β
		var dA [3]float64  // ∂α_c, ∂α_a, ∂α_r
		var dW [16]float64 // ∂WC
		for e := b * gateBlock; e < min((b+1)*gateBlock, p.n); e++ {
			kap, lc := float64(v.kap[e]), p.lc[e]
			h := (*[4]T)(v.h[e*4:])
			h0, h1, h2, h3 := float64(h[0]), float64(h[1]), float64(h[2]), float64(h[3])
			r0, r1, r2, r3 := rpre4(h0, h1, h2, h3, wc)
			s := (*[4]float64)(p.sig[e*4:])
			g := (*[4]T)(gOut[e*4:])
			ga := (*[4]T)(gam[e*4:])
			sum, D := 0.0, 0.0
			sum += s[0]
			D += float64(g[0]) * float64(ga[0])
			sum += s[1]
			D += float64(g[1]) * float64(ga[1])
			sum += s[2]
			D += float64(g[2]) * float64(ga[2])
			sum += s[3]
			D += float64(g[3]) * float64(ga[3])
			l0 := (float64(g[0]) - D) / sum * s[0] * (1 - s[0])
			l1 := (float64(g[1]) - D) / sum * s[1] * (1 - s[1])
			l2 := (float64(g[2]) - D) / sum * s[2] * (1 - s[2])
			l3 := (float64(g[3]) - D) / sum * s[3] * (1 - s[3])

			// Curvature compatibility.
			x0, x1, x2, x3 := kap-b0, kap-b1, kap-b2, kap-b3
			dk, dac := 0.0, 0.0
			dk -= l0 * x0
			dB[0] += v.ac * l0 * x0
			dac += l0 * x0 * x0
			dk -= l1 * x1
			dB[1] += v.ac * l1 * x1
			dac += l1 * x1 * x1
			dk -= l2 * x2
			dB[2] += v.ac * l2 * x2
			dac += l2 * x2 * x2
			dk -= l3 * x3
			dB[3] += v.ac * l3 * x3
			dac += l3 * x3 * x3
			dA[0] -= 0.5 * dac
			if v.gKap != nil {
				v.gKap[e] += T(v.ac * dk)
			}

			// Feature alignment.
			a := (*[4]T)(v.a[e*4:])
			daa := 0.0
			daa += l0 * float64(a[0])
			daa += l1 * float64(a[1])
			daa += l2 * float64(a[2])
			daa += l3 * float64(a[3])
			dA[1] += daa
			if v.gA != nil {
				gA := (*[4]T)(v.gA[e*4:])
				gA[0] += T(v.aa * l0)
				gA[1] += T(v.aa * l1)
				gA[2] += T(v.aa * l2)
				gA[3] += T(v.aa * l3)
			}

			// Routing consistency.
			dlc := 0.0
			dlc += l0 * r0
			dlc += l1 * r1
			dlc += l2 * r2
			dlc += l3 * r3
			dA[2] += lc * dlc
			if v.gC != nil {
				v.gC[e] += T(v.ar * dlc / (float64(v.c[e]) + 1e-9))
			}
			f := v.ar * lc
			var sh [4]float64
			for k2, hv := range [4]float64{h0, h1, h2, h3} {
				fh := f * hv
				w := (*[4]float64)(wc[k2*4:])
				dw := (*[4]float64)(dW[k2*4:])
				s := 0.0
				s += l0 * w[0]
				dw[0] += fh * l0
				s += l1 * w[1]
				dw[1] += fh * l1
				s += l2 * w[2]
				dw[2] += fh * l2
				s += l3 * w[3]
				dw[3] += fh * l3
				sh[k2] = s
			}
			if v.gH != nil {
				gH := (*[4]T)(v.gH[e*4:])
				gH[0] += T(f * sh[0])
				gH[1] += T(f * sh[1])
				gH[2] += T(f * sh[2])
				gH[3] += T(f * sh[3])
			}
		}
		part := (*[np]float64)(p.part[b*np:])
		copy(part[:4], dB[:])
		copy(part[4:7], dA[:])
		copy(part[7:], dW[:])
	}
}
