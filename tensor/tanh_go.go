package tensor

// The portable kernels of the routing's alignment term, what the Go kernel
// set (purego builds, arm64) runs in place of the AVX2 ones: Tanh32's
// rational approximation in float32 after clamping to [−9, 9], the
// assembly kernels' formula (TANH_Y0 in tanh_amd64.s), evaluated on four
// elements at a time with four independent partial sums, so that the
// dependent chains of several elements overlap in the pipeline. There is no
// fused multiply-add on amd64 (the compiler fuses x·y+z on arm64), so the
// bits may differ from the assembly's in the last place; the tests hold
// both to math.Tanh.

// Tanh32's coefficients in float32: the numerator's, highest power first,
// and the denominator's (its constant term is 1).
const (
	tanhP0 float32 = -9.0337703313182651e-14
	tanhP1 float32 = 5.4918560994336823e-11
	tanhP2 float32 = -2.0672956488592177e-08
	tanhP3 float32 = 1.1265443242805658e-05
	tanhP4 float32 = 0.0031146322246567051
	tanhP5 float32 = 0.1309358545327545
	tanhP6 float32 = 0.99999999740558165
	tanhQ0 float32 = 0.00025616602078102111
	tanhQ1 float32 = 0.024537747580041666
	tanhQ2 float32 = 0.46426915103309296
)

// tanhF32 is τ = tanh(x) as the float32 kernels compute it (NaN stays NaN).
func tanhF32(x float32) float32 {
	if x > 9 {
		x = 9
	}
	if x < -9 {
		x = -9
	}
	x2 := x * x
	p := (((((tanhP0*x2+tanhP1)*x2+tanhP2)*x2+tanhP3)*x2+tanhP4)*x2+tanhP5)*x2 + tanhP6
	q := ((tanhQ0*x2+tanhQ1)*x2+tanhQ2)*x2 + 1
	return x * p / q
}

// tanhBlocksGo is TanhAddDotBlocks' portable kernel: for each block b of
// m = len(x)/len(out) elements, τ = tanh(x+y) (y nil: zero) into tau
// (unless nil) and out[b] = Σ w·τ over the block. Callers check the
// lengths.
func tanhBlocksGo(out, tau, x, y, w []float32) {
	n := len(x)
	m := n / len(out)
	w = w[:n]
	if y != nil {
		y = y[:n]
	}
	if tau != nil {
		tau = tau[:n]
	}
	for b := range out {
		lo, hi := b*m, (b+1)*m
		xb, wb := x[lo:hi], w[lo:hi]
		var yb, tb []float32
		if y != nil {
			yb = y[lo:hi]
		}
		if tau != nil {
			tb = tau[lo:hi]
		}
		out[b] = tanhDotGo(tb, xb, yb, wb)
	}
}

// tanhDotGo is one block of tanhBlocksGo: τ = tanh(x+y) into tau (unless
// nil) and Σ w·τ, with len(w), len(y) (unless nil) and len(tau) (unless
// nil) equal to len(x).
func tanhDotGo(tau, x, y, w []float32) float32 {
	var s0, s1, s2, s3 float32
	n := len(x)
	w = w[:n]
	if y != nil {
		y = y[:n]
	}
	if tau != nil {
		tau = tau[:n]
	}
	i := 0
	for ; i+4 <= n; i += 4 {
		xs, ws := x[i:i+4:i+4], w[i:i+4:i+4]
		a0, a1, a2, a3 := xs[0], xs[1], xs[2], xs[3]
		if y != nil {
			ys := y[i : i+4 : i+4]
			a0, a1, a2, a3 = a0+ys[0], a1+ys[1], a2+ys[2], a3+ys[3]
		}
		t0, t1, t2, t3 := tanhF32(a0), tanhF32(a1), tanhF32(a2), tanhF32(a3)
		if tau != nil {
			ts := tau[i : i+4 : i+4]
			ts[0], ts[1], ts[2], ts[3] = t0, t1, t2, t3
		}
		s0 += ws[0] * t0
		s1 += ws[1] * t1
		s2 += ws[2] * t2
		s3 += ws[3] * t3
	}
	for ; i < n; i++ {
		a := x[i]
		if y != nil {
			a += y[i]
		}
		t := tanhF32(a)
		if tau != nil {
			tau[i] = t
		}
		s0 += w[i] * t
	}
	return (s0 + s1) + (s2 + s3)
}

// tanhBackGo is tanhBack's portable kernel: for each block b of m =
// len(w)/len(up) elements, with τ read from tau or recomputed from x and y
// (tanhF32, so the forward pass's bits), it adds δ = (τ²−1)·w·(−up[b]) to
// dst and dst2 (each unless nil) and up[b]·τ to dw in float64 (unless
// nil). Callers check the lengths.
func tanhBackGo(dst, dst2 []float32, dw []float64, x, y, tau, w, up []float32) {
	n := len(w)
	m := n / len(up)
	for b, g := range up {
		lo, hi := b*m, (b+1)*m
		wb := w[lo:hi]
		ng, ge := -g, float64(g)
		var xb, yb, tb, d1, d2 []float32
		var dwb []float64
		if tau != nil {
			tb = tau[lo:hi]
		} else {
			xb = x[lo:hi]
			if y != nil {
				yb = y[lo:hi]
			}
		}
		if dst != nil {
			d1 = dst[lo:hi]
		}
		if dst2 != nil {
			d2 = dst2[lo:hi]
		}
		if dw != nil {
			dwb = dw[lo:hi]
		}
		// Reslicing to len(wb) lets the compiler drop the loop's bounds
		// checks; none of these slices is shorter.
		if tb != nil {
			tb = tb[:len(wb)]
		}
		if xb != nil {
			xb = xb[:len(wb)]
		}
		if yb != nil {
			yb = yb[:len(wb)]
		}
		if d1 != nil {
			d1 = d1[:len(wb)]
		}
		if d2 != nil {
			d2 = d2[:len(wb)]
		}
		if dwb != nil {
			dwb = dwb[:len(wb)]
		}
		for q, wq := range wb {
			var th float32
			if tb != nil {
				th = tb[q]
			} else {
				a := xb[q]
				if yb != nil {
					a += yb[q]
				}
				th = tanhF32(a)
			}
			d := (th*th - 1) * wq * ng
			if d1 != nil {
				d1[q] += d
			}
			if d2 != nil {
				d2[q] += d
			}
			if dwb != nil {
				dwb[q] += ge * float64(th)
			}
		}
	}
}
