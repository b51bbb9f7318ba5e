package tensor

import "fmt"

// Tanh32 is tanh as a rational function x·P(x²)/Q(x²) evaluated in float64,
// saturating to ±1 beyond |x| = 9: relative error ≤ 4e-8 (below float32's
// resolution) at about half the cost of math.Tanh.
func Tanh32(x float64) float64 {
	if x > 9 {
		return 1
	}
	if x < -9 {
		return -1
	}
	x2 := x * x
	p := ((((((-9.0337703313182651e-14*x2+5.4918560994336823e-11)*x2-2.0672956488592177e-08)*x2+
		1.1265443242805658e-05)*x2+0.0031146322246567051)*x2+0.1309358545327545)*x2 + 0.99999999740558165)
	q := ((0.00025616602078102111*x2+0.024537747580041666)*x2+0.46426915103309296)*x2 + 1
	return x * p / q
}

// TanhAddDot sets tau[i] = tanh(x[i] + y[i]) and returns Σ w[i]·tau[i] over
// len(x) elements (y nil means zero). It is the inner loop of routing's
// feature-alignment term w_kᵀ tanh(W1 a_i + W2 z_j): on AVX2+FMA lengths that
// are multiples of 8 run in assembly, in float32 (|error| ≤ 1e-6 in tau);
// otherwise Tanh32 in float64.
func TanhAddDot(tau, x, y, w []float32) float32 {
	n := len(x)
	tau, w = tau[:n], w[:n]
	if y != nil {
		y = y[:n]
	}
	if haveAVX2FMA && n > 0 && n%8 == 0 {
		var yp *float32
		if y != nil {
			yp = &y[0]
		}
		return tanhAddDotAVX(&tau[0], &x[0], yp, &w[0], n)
	}
	s := 0.0
	for i, v := range x {
		a := float64(v)
		if y != nil {
			a += float64(y[i])
		}
		th := Tanh32(a)
		tau[i] = float32(th)
		s += float64(w[i]) * th
	}
	return float32(s)
}

// TanhAddDotBlocks is TanhAddDot over len(out) consecutive blocks of
// m = len(x)/len(out) elements: out[b] = TanhAddDot of block b (y nil means
// zero). On AVX2+FMA, m a multiple of 8 runs in one assembly call with the
// same results as per-block calls.
func TanhAddDotBlocks(out, tau, x, y, w []float32) {
	n, K := len(x), len(out)
	if K == 0 || n%K != 0 || len(tau) != n || len(w) != n || (y != nil && len(y) != n) {
		panic(fmt.Sprintf("tensor: TanhAddDotBlocks lengths: out %d, tau %d, x %d, y %d, w %d", K, len(tau), n, len(y), len(w)))
	}
	m := n / K
	if haveAVX2FMA && m > 0 && m%8 == 0 {
		var yp *float32
		if y != nil {
			yp = &y[0]
		}
		tanhAddDotBlocksAVX(&out[0], &tau[0], &x[0], yp, &w[0], K, m)
		return
	}
	for b := range out {
		var yb []float32
		if y != nil {
			yb = y[b*m : (b+1)*m]
		}
		out[b] = TanhAddDot(tau[b*m:(b+1)*m], x[b*m:(b+1)*m], yb, w[b*m:(b+1)*m])
	}
}

// TanhAddDotGrad is the backward pass of TanhAddDot over len(g) consecutive
// blocks of m = len(tau)/len(g) elements, block k having upstream gradient
// g[k]: it sets dx = g[k]·w·(1−τ²) (the gradient of both x and y, stored in
// dx and, when dy is non-nil, added to dy) and accumulates dw += g[k]·τ in
// float64 (the products are exact there, so the sum does not depend on the
// kernel). tau, w, dx, dw and a non-nil dy have the same length, a multiple
// of len(g). On AVX2+FMA, m a multiple of 8 runs in assembly (dx in
// float32); otherwise the loop is in float64.
func TanhAddDotGrad(dx, dy []float32, dw []float64, tau, w, g []float32) {
	n := len(tau)
	if len(g) == 0 || n%len(g) != 0 || len(w) != n || len(dx) != n || len(dw) != n || (dy != nil && len(dy) != n) {
		panic(fmt.Sprintf("tensor: TanhAddDotGrad lengths: tau %d, w %d, dx %d, dy %d, dw %d, g %d",
			n, len(w), len(dx), len(dy), len(dw), len(g)))
	}
	m := n / len(g)
	if n == 0 {
		return
	}
	if haveAVX2FMA && m%8 == 0 {
		var dyp *float32
		if dy != nil {
			dyp = &dy[0]
		}
		tanhAddDotGradAVX(&dx[0], dyp, &dw[0], &tau[0], &w[0], &g[0], len(g), m)
		return
	}
	for k, gk := range g {
		ge := float64(gk)
		for q := k * m; q < (k+1)*m; q++ {
			th := float64(tau[q])
			dx[q] = float32(ge * float64(w[q]) * (1 - th*th))
			dw[q] += ge * th
			if dy != nil {
				dy[q] += dx[q]
			}
		}
	}
}
