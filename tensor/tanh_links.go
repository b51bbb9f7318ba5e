package tensor

import "fmt"

// TanhAddDotLinks is TanhAddDotBlocks for the links of a graph at once:
// link t reads x = row child[t] of p1 and y = row parent[t] of p2 (p2 nil:
// y = 0), rows of len(w) elements in K = len(out)/len(child) blocks, and
// sets out[t·K : (t+1)·K] and, when tau is non-nil, tau[t·len(w) :
// (t+1)·len(w)] as TanhAddDotBlocks would for that link. It is the routing
// alignment's forward pass over a range of links, one call and one index
// check instead of one per link; the results are the per-link calls', bit
// for bit.
func TanhAddDotLinks(out, tau, p1, p2, w []float32, child, parent []int32) {
	n, row := len(child), len(w)
	if n == 0 {
		return
	}
	if row == 0 || len(out)%n != 0 || row%(len(out)/n) != 0 || len(p1)%row != 0 || (p2 != nil && len(p2)%row != 0) ||
		(p2 != nil && len(parent) != n) || (tau != nil && len(tau) != n*row) {
		panic(fmt.Sprintf("tensor: TanhAddDotLinks lengths: out %d, tau %d, p1 %d, p2 %d, w %d, child %d, parent %d",
			len(out), len(tau), len(p1), len(p2), row, n, len(parent)))
	}
	K := len(out) / n
	checkSources(child, len(p1)/row)
	if p2 != nil {
		checkSources(parent, len(p2)/row)
	}
	var par *int32 // the kernels read no parent without p2
	if p2 != nil {
		par = &parent[0]
	}
	if m := row / K; haveAVX2FMA && m%8 == 0 {
		tanhLinksAsm(&out[0], first(tau), &p1[0], first(p2), &w[0], &child[0], par, n, K, m)
		return
	}
	if haveNEON {
		tanhLinksNEON(&out[0], first(tau), &p1[0], first(p2), &w[0], &child[0], par, n, K, row/K)
		return
	}
	for t, i := range child {
		var y, tt []float32
		if p2 != nil {
			j := int(parent[t])
			y = p2[j*row : (j+1)*row]
		}
		if tau != nil {
			tt = tau[t*row : (t+1)*row]
		}
		TanhAddDotBlocks(out[t*K:(t+1)*K], tt, p1[int(i)*row:(int(i)+1)*row], y, w)
	}
}

// TanhDotBackLinks is TanhDotBack for the links of a graph at once, in
// link order: link t, with τ at tau[t·len(w) :] and upstream gradients
// up[t·K : (t+1)·K], adds its δ to row parent[t] of dst and row child[t] of
// dst2 (each unless nil) and up·τ to dw (unless nil), as one TanhDotBack
// call per link would, bit for bit.
func TanhDotBackLinks(dst, dst2 []float32, dw []float64, tau, w, up []float32, child, parent []int32) {
	n, row := len(child), len(w)
	if n == 0 {
		return
	}
	if row == 0 || len(up)%n != 0 || row%(len(up)/n) != 0 || len(tau) != n*row || len(parent) != n ||
		(dst != nil && len(dst)%row != 0) || (dst2 != nil && len(dst2)%row != 0) || (dw != nil && len(dw) != row) {
		panic(fmt.Sprintf("tensor: TanhDotBackLinks lengths: dst %d, dst2 %d, dw %d, tau %d, w %d, up %d, child %d, parent %d",
			len(dst), len(dst2), len(dw), len(tau), row, len(up), n, len(parent)))
	}
	K := len(up) / n
	if dst != nil {
		checkSources(parent, len(dst)/row)
	}
	if dst2 != nil {
		checkSources(child, len(dst2)/row)
	}
	if m := row / K; haveAVX2FMA && m%8 == 0 {
		if haveAVX512 && m == 16 {
			tanhDotBackLinksZ16(first(dst), first(dst2), first(dw), &tau[0], &w[0], &up[0], &child[0], &parent[0], n, K)
			return
		}
		tanhDotBackLinksAVX(first(dst), first(dst2), first(dw), &tau[0], &w[0], &up[0], &child[0], &parent[0], n, K, m)
		return
	}
	if haveNEON {
		tanhBackNEON(first(dst), first(dst2), first(dw), &tau[0], nil, nil, &w[0], &up[0], &child[0], &parent[0], n, K, row/K)
		return
	}
	for t := range child {
		var d, d2 []float32
		if dst != nil {
			j := int(parent[t])
			d = dst[j*row : (j+1)*row]
		}
		if dst2 != nil {
			i := int(child[t])
			d2 = dst2[i*row : (i+1)*row]
		}
		TanhDotBack(d, d2, dw, tau[t*row:(t+1)*row], w, up[t*K:(t+1)*K])
	}
}
