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
// are multiples of 8 run in assembly, on arm64's NEON set every length, other
// lengths and the Go kernel set in tanhDotGo: all Tanh32's formula in float32
// (|error| ≤ 1e-6 in tau).
func TanhAddDot(tau, x, y, w []float32) float32 {
	n := len(x)
	tau, w = tau[:n], w[:n]
	if y != nil {
		y = y[:n]
	}
	if haveAVX2FMA && n > 0 && n%8 == 0 {
		var out float32
		tanhLinkAVX(&out, &tau[0], &x[0], first(y), &w[0], 1, n)
		return out
	}
	if haveNEON && n > 0 {
		var out float32
		tanhLinkNEON(&out, &tau[0], &x[0], first(y), &w[0], 1, n)
		return out
	}
	return tanhDotGo(tau, x, y, w)
}

// TanhAddDotBlocks is TanhAddDot over len(out) consecutive blocks of
// m = len(x)/len(out) elements: out[b] = TanhAddDot of block b (y nil means
// zero; tau nil: τ is not kept). On AVX2+FMA, m a multiple of 8 runs in one assembly call with the
// same results as per-block calls; on NEON every m does.
func TanhAddDotBlocks(out, tau, x, y, w []float32) {
	n, K := len(x), len(out)
	if K == 0 || n%K != 0 || (tau != nil && len(tau) != n) || len(w) != n || (y != nil && len(y) != n) {
		panic(fmt.Sprintf("tensor: TanhAddDotBlocks lengths: out %d, tau %d, x %d, y %d, w %d", K, len(tau), n, len(y), len(w)))
	}
	m := n / K
	if haveAVX2FMA && m > 0 && m%8 == 0 {
		tanhLinkAVX(&out[0], first(tau), &x[0], first(y), &w[0], K, m)
		return
	}
	if haveNEON && m > 0 {
		tanhLinkNEON(&out[0], first(tau), &x[0], first(y), &w[0], K, m)
		return
	}
	tanhBlocksGo(out, tau, x, y, w)
}

// TanhAddDotBack is the backward pass of TanhAddDotBlocks that recomputes
// τ = tanh(x+y) instead of reading it back: for len(up) consecutive blocks
// of m = len(x)/len(up) elements, block b having upstream gradient up[b],
// it adds δ = up[b]·w·(1−τ²) (the gradient of both x and y) to dst, when
// non-nil, and, when dw is non-nil, up[b]·τ to dw in float64 (exact products, so the sum
// does not depend on the kernel). y may be nil (zero). Recomputing costs
// less than storing τ when the per-link matrices do not fit in cache;
// TanhDotBack reads a stored τ instead. On AVX2+FMA, m a multiple of 8
// runs in assembly with TanhAddDotBlocks' arithmetic, as every m does on
// NEON.
func TanhAddDotBack(dst []float32, dw []float64, x, y, w, up []float32) {
	TanhAddDotBack2(dst, nil, dw, x, y, w, up)
}

// TanhAddDotBack2 is TanhAddDotBack that adds the same δ to a second
// destination dst2 as well (when non-nil): the routing's alignment adds it
// to both its child's and its parent's gradient, and one call recomputes τ
// once for both, with the bits two calls would give.
func TanhAddDotBack2(dst, dst2 []float32, dw []float64, x, y, w, up []float32) {
	tanhBack(dst, dst2, dw, x, y, nil, w, up)
}

// TanhDotBack is TanhAddDotBack2 with τ read from tau, as TanhAddDotBlocks
// stored it, instead of recomputed: the same bits at a fraction of the
// cost, for callers whose τ is still in cache.
func TanhDotBack(dst, dst2 []float32, dw []float64, tau, w, up []float32) {
	if tau == nil {
		panic("tensor: TanhDotBack without tau")
	}
	tanhBack(dst, dst2, dw, nil, nil, tau, w, up)
}

// tanhBack is the backward pass of TanhAddDotBlocks with τ from tau, or
// recomputed from x and y when tau is nil.
func tanhBack(dst, dst2 []float32, dw []float64, x, y, tau, w, up []float32) {
	src := x
	if tau != nil {
		src = tau
	}
	n, K := len(src), len(up)
	if K == 0 || n%K != 0 || len(w) != n || (dst != nil && len(dst) != n) || (dst2 != nil && len(dst2) != n) ||
		(dw != nil && len(dw) != n) || (y != nil && len(y) != n) {
		panic(fmt.Sprintf("tensor: TanhAddDotBack lengths: dst %d, dst2 %d, dw %d, x or tau %d, y %d, w %d, up %d",
			len(dst), len(dst2), len(dw), n, len(y), len(w), K))
	}
	m := n / K
	if n == 0 {
		return
	}
	if haveAVX2FMA && m%8 == 0 {
		if tau != nil { // one link of the link-range kernel
			var at0 [1]int32
			tanhDotBackLinksAVX(first(dst), first(dst2), first(dw), &tau[0], &w[0], &up[0], &at0[0], &at0[0], 1, K, m)
		} else {
			tanhAddDotBackAVX(first(dst), first(dst2), first(dw), &x[0], first(y), &w[0], &up[0], K, m)
		}
		return
	}
	if haveNEON {
		tanhBackLinkNEON(first(dst), first(dst2), first(dw), first(x), first(y), first(tau), &w[0], &up[0], K, m)
		return
	}
	tanhBackGo(dst, dst2, dw, x, y, tau, w, up)
}

// tanhLinkAVX runs the link-range forward kernel on one link whose rows
// are x and y (y may be nil), in k blocks of m elements.
func tanhLinkAVX(out, tau, x, y, w *float32, k, m int) {
	var at0 [1]int32
	tanhLinksAsm(out, tau, x, y, w, &at0[0], &at0[0], 1, k, m)
}

// tanhLinksAsm runs the forward kernel: tanhAddDotLinksZ16 for blocks of
// 16 on AVX-512, tanhAddDotLinksAVX otherwise (the same bits).
func tanhLinksAsm(out, tau, p1, p2, w *float32, child, parent *int32, n, k, m int) {
	if haveAVX512 && m == 16 {
		tanhAddDotLinksZ16(out, tau, p1, p2, w, child, parent, n, k)
		return
	}
	tanhAddDotLinksAVX(out, tau, p1, p2, w, child, parent, n, k, m)
}

// first returns &s[0], or nil for an empty (or nil) s: the optional
// operands of the assembly kernels.
func first[E any](s []E) *E {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}
