package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The NEON tanh kernels (tanh_neon_arm64.s) against math.Tanh in float64
// and against the Go kernels (tanhF32, tanhBlocksGo, tanhBackGo). They run
// where the neon set does: arm64, under qemu-user in CI (.ci/run).
//
// What the tests hold them to:
//   - τ within 1e-6 of math.Tanh(x+y) (x+y rounded to float32 first, as the
//     kernels add them), and within 2 units in the last place of tanhF32;
//   - out within float32 rounding of Σ w·tanh (closeTo over Σ|w|);
//   - δ within 4e-6·(|up·w| + 1e-3) of up·w·(1−tanh²), dw exactly
//     dw + float64(up)·float64(τ) with the forward pass's τ;
//   - the same bits, run to run, with and without the optional operands,
//     from a stored τ or a recomputed one, and for an element in a vector
//     lane or in a block's scalar tail (m mod 4 = 1..3);
//   - the clamp (±9, ±Inf give τ(±9)'s bits) and NaN kept, in its element
//     and block only.

// neonShapes are (K, m): every tail m mod 4, blocks shorter than one
// vector, and the routing's m = 16 and 18.
var neonShapes = [][2]int{{1, 1}, {3, 2}, {2, 3}, {1, 4}, {3, 5}, {2, 6}, {2, 7}, {1, 8}, {2, 9}, {1, 13}, {4, 16}, {3, 17}, {4, 18}}

func skipWithoutNEON(t testing.TB) {
	t.Helper()
	if !haveNEON {
		t.Skip("no NEON kernels in this build or set")
	}
}

// ulps is the distance of a and b in units in the last place of float32
// (0 for equal bits or both NaN; a large number for one NaN).
func ulps(a, b float32) int64 {
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an || bn:
		return math.MaxInt32
	}
	ord := func(v float32) int64 {
		u := int64(math.Float32bits(v))
		if u&(1<<31) != 0 {
			return -(u &^ (1 << 31))
		}
		return u
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return d
}

// neonInputs returns x, y, w for K blocks of m with values reaching the
// clamp, infinities and signed zeros besides normal ones.
func neonInputs(rng *rand.Rand, n int) (x, y, w []float32) {
	x, y, w = randVec(rng, n, 3), randVec(rng, n, 3), randVec(rng, n, 1)
	special := []float32{9, -9, 9.5, -9.5, 30, -30, float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-30, 4.5}
	for i := 0; i < n; i += 3 {
		x[i] = special[(i/3)%len(special)]
		y[i] = 0
	}
	return x, y, w
}

func TestTanhNEONForward(t *testing.T) {
	skipWithoutNEON(t)
	rng := rand.New(rand.NewPCG(31, 37))
	for _, shape := range neonShapes {
		K, m := shape[0], shape[1]
		n := K * m
		x, y, w := neonInputs(rng, n)
		for _, yy := range [][]float32{y, nil} {
			name := fmt.Sprintf("K=%d m=%d y=%v", K, m, yy != nil)
			out, tau := make([]float32, K), make([]float32, n)
			tanhLinkNEON(&out[0], &tau[0], &x[0], first(yy), &w[0], K, m)
			goOut, goTau := make([]float32, K), make([]float32, n)
			tanhBlocksGo(goOut, goTau, x, yy, w)
			for b := 0; b < K; b++ {
				want, mag := 0.0, 0.0
				for q := b * m; q < (b+1)*m; q++ {
					a := x[q]
					if yy != nil {
						a += yy[q]
					}
					th := math.Tanh(float64(a))
					if math.Abs(float64(tau[q])-th) > 1e-6 {
						t.Fatalf("%s: tau[%d] = %v, want %v (tanh %v)", name, q, tau[q], th, a)
					}
					if d := ulps(tau[q], goTau[q]); d > 2 {
						t.Fatalf("%s: tau[%d] = %v, %d ulps from the Go kernel's %v", name, q, tau[q], d, goTau[q])
					}
					want += float64(w[q]) * th
					mag += math.Abs(float64(w[q]))
				}
				if !closeTo(out[b], want, mag) || !closeTo(goOut[b], float64(out[b]), mag) {
					t.Fatalf("%s: out[%d] = %v (Go kernel %v), want %v", name, b, out[b], goOut[b], want)
				}
			}
			// Without tau, and run again: the same bits.
			out2 := make([]float32, K)
			tanhLinkNEON(&out2[0], nil, &x[0], first(yy), &w[0], K, m)
			out3, tau3 := make([]float32, K), make([]float32, n)
			tanhLinkNEON(&out3[0], &tau3[0], &x[0], first(yy), &w[0], K, m)
			if !sameBits(out2, out) || !sameBits(out3, out) || !sameBits(tau3, tau) {
				t.Fatalf("%s: out %v, without tau %v, again %v (tau again equal: %v)", name, out, out2, out3, sameBits(tau3, tau))
			}
		}
	}
}

func sameBits(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(u, v float32) bool { return math.Float32bits(u) == math.Float32bits(v) })
}

// TestTanhNEONMatchesGo holds the NEON kernels to the Go kernels on many
// random elements (blocks of 16, the routing's): τ within 2 units in the
// last place, sums and gradients within float32 rounding; -v logs how many
// differ at all (none, under qemu at the time of writing: the compiler
// fuses the Go kernels' multiply-adds as the assembly does).
func TestTanhNEONMatchesGo(t *testing.T) {
	skipWithoutNEON(t)
	rng := rand.New(rand.NewPCG(67, 71))
	const n, m = 1 << 16, 16
	x, y, w, up := randVec(rng, n, 4), randVec(rng, n, 4), randVec(rng, n, 1), randVec(rng, n/m, 1)
	out, tau, goOut, goTau := make([]float32, n/m), make([]float32, n), make([]float32, n/m), make([]float32, n)
	tanhLinkNEON(&out[0], &tau[0], &x[0], &y[0], &w[0], n/m, m)
	tanhBlocksGo(goOut, goTau, x, y, w)
	d, goD := make([]float32, n), make([]float32, n)
	dw, goDw := make([]float64, n), make([]float64, n)
	tanhBackLinkNEON(&d[0], nil, &dw[0], &x[0], &y[0], nil, &w[0], &up[0], n/m, m)
	tanhBackGo(goD, nil, goDw, x, y, nil, w, up)
	var tauDiff, outDiff, backDiff int
	for i := range tau {
		if u := ulps(tau[i], goTau[i]); u > 2 {
			t.Fatalf("tau[%d] = %v, %d ulps from the Go kernel's %v", i, tau[i], u, goTau[i])
		} else if u > 0 {
			tauDiff++
		}
		gw := math.Abs(float64(up[i/m] * w[i]))
		if math.Abs(float64(d[i])-float64(goD[i])) > 1e-6*gw+1e-9 || math.Abs(dw[i]-goDw[i]) > 3e-7*math.Abs(float64(up[i/m])) {
			t.Fatalf("element %d: δ %v, dw %v; Go kernel %v, %v", i, d[i], dw[i], goD[i], goDw[i])
		}
		if d[i] != goD[i] || dw[i] != goDw[i] {
			backDiff++
		}
	}
	for b := range out {
		mag := 0.0
		for _, v := range w[b*m : (b+1)*m] {
			mag += math.Abs(float64(v))
		}
		if !closeTo(out[b], float64(goOut[b]), mag) {
			t.Fatalf("out[%d] = %v, Go kernel %v", b, out[b], goOut[b])
		}
		if out[b] != goOut[b] {
			outDiff++
		}
	}
	t.Logf("differ from the Go kernels: %d of %d τ, %d of %d sums, %d of %d gradients", tauDiff, n, outDiff, n/m, backDiff, n)
}

// An element's τ, δ and dw do not depend on whether it falls in a vector
// lane or in a block's scalar tail: one block of 4L elements (all lanes)
// against 4L blocks of one (all tails) with the same upstream gradient.
func TestTanhNEONLanesTail(t *testing.T) {
	skipWithoutNEON(t)
	rng := rand.New(rand.NewPCG(41, 43))
	const n = 64
	x, y, w := neonInputs(rng, n)
	x[5] = float32(math.NaN())
	g := float32(-0.75)
	upVec, upTail := []float32{g}, make([]float32, n)
	for i := range upTail {
		upTail[i] = g
	}
	var outV [1]float32
	outT := make([]float32, n)
	tauV, tauT := make([]float32, n), make([]float32, n)
	tanhLinkNEON(&outV[0], &tauV[0], &x[0], &y[0], &w[0], 1, n)
	tanhLinkNEON(&outT[0], &tauT[0], &x[0], &y[0], &w[0], n, 1)
	if !sameBits(tauV, tauT) {
		for i := range tauV {
			if math.Float32bits(tauV[i]) != math.Float32bits(tauT[i]) {
				t.Fatalf("tau[%d]: %v in a lane, %v in a tail", i, tauV[i], tauT[i])
			}
		}
	}
	for _, stored := range []bool{false, true} {
		dV, dT := randVec(rng, n, 1), make([]float32, n)
		copy(dT, dV)
		dwV, dwT := make([]float64, n), make([]float64, n)
		for i := range dwV {
			dwV[i], dwT[i] = float64(i)/3, float64(i)/3
		}
		if stored {
			tanhBackLinkNEON(&dV[0], nil, &dwV[0], nil, nil, &tauV[0], &w[0], &upVec[0], 1, n)
			tanhBackLinkNEON(&dT[0], nil, &dwT[0], nil, nil, &tauT[0], &w[0], &upTail[0], n, 1)
		} else {
			tanhBackLinkNEON(&dV[0], nil, &dwV[0], &x[0], &y[0], nil, &w[0], &upVec[0], 1, n)
			tanhBackLinkNEON(&dT[0], nil, &dwT[0], &x[0], &y[0], nil, &w[0], &upTail[0], n, 1)
		}
		for i := range dV {
			if math.Float32bits(dV[i]) != math.Float32bits(dT[i]) || math.Float64bits(dwV[i]) != math.Float64bits(dwT[i]) {
				t.Fatalf("stored=%v: element %d: δ %v, dw %v in a lane; %v, %v in a tail", stored, i, dV[i], dwV[i], dT[i], dwT[i])
			}
		}
	}
}

// The clamp to [−9, 9]: beyond it τ has τ(±9)'s bits; NaN stays NaN, in
// its block's sum and its element's gradients only.
func TestTanhNEONClampNaN(t *testing.T) {
	skipWithoutNEON(t)
	for _, m := range []int{4, 5, 7, 8, 11} { // the odd element in a lane and in a tail
		x := make([]float32, 2*m)
		w := make([]float32, 2*m)
		for i := range x {
			x[i], w[i] = float32(i%3)-1, 0.5
		}
		// τ(9) as the kernel computes it (tanhF32(9) would be folded at
		// compile time, perhaps without the fused multiply-adds).
		at9 := func(v float32) (float32, float32) {
			x[0], x[m] = v, -v
			tau, out := make([]float32, 2*m), make([]float32, 2)
			tanhLinkNEON(&out[0], &tau[0], &x[0], nil, &w[0], 2, m)
			return tau[0], tau[m]
		}
		hi, lo := at9(9)
		if math.Abs(float64(hi)-math.Tanh(9)) > 1e-7 || lo != -hi {
			t.Fatalf("tanh(±9) = %v, %v; want ±%v", hi, lo, math.Tanh(9))
		}
		for _, v := range []float32{9.000001, 9.5, 1e30, float32(math.Inf(1))} {
			if h, l := at9(v); math.Float32bits(h) != math.Float32bits(hi) || math.Float32bits(l) != math.Float32bits(lo) {
				t.Fatalf("m=%d: tanh(±%v) = %v, %v; want tanh(±9) = %v, %v", m, v, h, l, hi, lo)
			}
		}
		for i := range x { // the clamped values at a tail position too
			x[i] = float32(i%3) - 1
		}
		x[m-1] = 40
		tau, out := make([]float32, 2*m), make([]float32, 2)
		tanhLinkNEON(&out[0], &tau[0], &x[0], nil, &w[0], 2, m)
		if math.Float32bits(tau[m-1]) != math.Float32bits(hi) {
			t.Fatalf("m=%d: tanh(40) at %d = %v, want %v", m, m-1, tau[m-1], hi)
		}
		// NaN at the last element of block 0 (a lane for m mod 4 = 0, the
		// tail otherwise).
		x[m-1] = float32(math.NaN())
		tanhLinkNEON(&out[0], &tau[0], &x[0], nil, &w[0], 2, m)
		for i, v := range tau {
			if (i == m-1) != math.IsNaN(float64(v)) {
				t.Fatalf("m=%d, NaN at %d: tau[%d] = %v", m, m-1, i, v)
			}
		}
		if !math.IsNaN(float64(out[0])) || math.IsNaN(float64(out[1])) {
			t.Fatalf("m=%d: out = %v, want NaN in block 0 only", m, out)
		}
		up := []float32{1, 1}
		dst, dst2, dw := make([]float32, 2*m), make([]float32, 2*m), make([]float64, 2*m)
		tanhBackLinkNEON(&dst[0], &dst2[0], &dw[0], &x[0], nil, nil, &w[0], &up[0], 2, m)
		for i := range dst {
			nan := i == m-1
			if nan != math.IsNaN(float64(dst[i])) || nan != math.IsNaN(float64(dst2[i])) || nan != math.IsNaN(dw[i]) {
				t.Fatalf("m=%d, NaN at %d: element %d: δ %v, %v, dw %v", m, m-1, i, dst[i], dst2[i], dw[i])
			}
		}
	}
}

func TestTanhNEONBack(t *testing.T) {
	skipWithoutNEON(t)
	rng := rand.New(rand.NewPCG(47, 53))
	for _, shape := range neonShapes {
		K, m := shape[0], shape[1]
		n := K * m
		x, y, w := neonInputs(rng, n)
		up := randVec(rng, K, 1)
		up[0] = 0 // an upstream zero adds signed zeros only
		for _, yy := range [][]float32{y, nil} {
			name := fmt.Sprintf("K=%d m=%d y=%v", K, m, yy != nil)
			tau, out := make([]float32, n), make([]float32, K)
			tanhLinkNEON(&out[0], &tau[0], &x[0], first(yy), &w[0], K, m)
			start, start2 := randVec(rng, n, 1), randVec(rng, n, 1)
			startDw := make([]float64, n)
			for i := range startDw {
				startDw[i] = float64(i) / 7
			}
			// The full call, recomputing τ, then with τ stored and with
			// each optional operand left out: the same bits.
			dst, dst2, dw := slices.Clone(start), slices.Clone(start), slices.Clone(startDw)
			tanhBackLinkNEON(&dst[0], &dst2[0], &dw[0], &x[0], first(yy), nil, &w[0], &up[0], K, m)
			goD := make([]float32, n)
			tanhBackGo(goD, nil, nil, x, yy, nil, w, up)
			for q := range dst {
				a := x[q]
				if yy != nil {
					a += yy[q]
				}
				g, th := float64(up[q/m]), math.Tanh(float64(a))
				gw := math.Abs(g * float64(w[q]))
				want := g * float64(w[q]) * (1 - th*th)
				d := fullDelta(x, yy, nil, w, up, m, q, false)
				if math.Abs(float64(d)-want) > 4e-6*(gw+1e-3) {
					t.Fatalf("%s: δ[%d] = %v, want %v", name, q, d, want)
				}
				if math.Abs(float64(d)-float64(goD[q])) > 1e-6*gw+1e-9 {
					t.Fatalf("%s: δ[%d] = %v, Go kernel %v", name, q, d, goD[q])
				}
				if math.Float32bits(dst[q]) != math.Float32bits(start[q]+d) {
					t.Fatalf("%s: dst[%d] = %v, want %v + δ %v", name, q, dst[q], start[q], d)
				}
				if math.Float32bits(dst2[q]) != math.Float32bits(dst[q]) {
					t.Fatalf("%s: dst2[%d] = %v, dst %v", name, q, dst2[q], dst[q])
				}
				if wantDw := startDw[q] + g*float64(tau[q]); dw[q] != wantDw {
					t.Fatalf("%s: dw[%d] = %v, want exactly %v", name, q, dw[q], wantDw)
				}
			}
			for _, c := range []struct {
				stored        bool
				d1, d2, withW bool
			}{
				{true, true, true, true}, {false, true, false, false}, {false, false, true, false},
				{false, false, false, true}, {true, false, true, false}, {true, true, false, true},
			} {
				a, b, cw := slices.Clone(start2), slices.Clone(start2), slices.Clone(startDw)
				var pa, pb *float32
				var pw *float64
				if c.d1 {
					pa = &a[0]
				}
				if c.d2 {
					pb = &b[0]
				}
				if c.withW {
					pw = &cw[0]
				}
				if c.stored {
					tanhBackLinkNEON(pa, pb, pw, nil, nil, &tau[0], &w[0], &up[0], K, m)
				} else {
					tanhBackLinkNEON(pa, pb, pw, &x[0], first(yy), nil, &w[0], &up[0], K, m)
				}
				for q := range a {
					// The same δ added to another start.
					want := start2[q] + fullDelta(x, yy, tau, w, up, m, q, c.stored)
					if c.d1 && math.Float32bits(a[q]) != math.Float32bits(want) || !c.d1 && a[q] != start2[q] {
						t.Fatalf("%s %+v: dst[%d] = %v, want %v", name, c, q, a[q], want)
					}
					if c.d2 && math.Float32bits(b[q]) != math.Float32bits(want) || !c.d2 && b[q] != start2[q] {
						t.Fatalf("%s %+v: dst2[%d] = %v, want %v", name, c, q, b[q], want)
					}
					if c.withW && cw[q] != dw[q] || !c.withW && cw[q] != startDw[q] {
						t.Fatalf("%s %+v: dw[%d] = %v, want %v", name, c, q, cw[q], dw[q])
					}
				}
			}
		}
	}
}

// fullDelta is element q's δ as the NEON kernel forms it, from a scalar
// call of the kernel itself on a one-element block from zero: both paths
// of the per-element arithmetic are checked to agree by
// TestTanhNEONLanesTail.
func fullDelta(x, y, tau, w, up []float32, m, q int, stored bool) float32 {
	var d [1]float32
	g := up[q/m]
	if stored {
		tanhBackLinkNEON(&d[0], nil, nil, nil, nil, &tau[q], &w[q], &g, 1, 1)
	} else {
		var yq *float32
		if y != nil {
			yq = &y[q]
		}
		tanhBackLinkNEON(&d[0], nil, nil, &x[q], yq, nil, &w[q], &g, 1, 1)
	}
	return d[0]
}

// TestTanhNEONLinks runs the link-range kernels on several links with
// random rows against one single-link call per link, including repeated
// destination rows (accumulated in link order).
func TestTanhNEONLinks(t *testing.T) {
	skipWithoutNEON(t)
	rng := rand.New(rand.NewPCG(59, 61))
	for _, shape := range [][2]int{{4, 16}, {2, 7}, {3, 2}, {1, 9}} {
		K, m := shape[0], shape[1]
		row, C, P, n := K*m, 5, 4, 17
		p1, p2, w, up := randVec(rng, C*row, 2), randVec(rng, P*row, 2), randVec(rng, row, 1), randVec(rng, n*K, 1)
		child, parent := make([]int32, n), make([]int32, n)
		for i := range child {
			child[i], parent[i] = int32(rng.IntN(C)), int32(rng.IntN(P))
		}
		for _, y := range [][]float32{p2, nil} {
			var par *int32
			if y != nil {
				par = &parent[0]
			}
			out, tau := make([]float32, n*K), make([]float32, n*row)
			tanhLinksNEON(&out[0], &tau[0], &p1[0], first(y), &w[0], &child[0], par, n, K, m)
			dst, dst2, dw := randVec(rng, P*row, 1), randVec(rng, C*row, 1), make([]float64, row)
			wd, wd2, wdw := slices.Clone(dst), slices.Clone(dst2), slices.Clone(dw)
			rd, rd2, rdw := slices.Clone(dst), slices.Clone(dst2), slices.Clone(dw)
			tanhBackNEON(&dst[0], &dst2[0], &dw[0], &tau[0], nil, nil, &w[0], &up[0], &child[0], &parent[0], n, K, m)
			tanhBackNEON(&rd[0], &rd2[0], &rdw[0], nil, &p1[0], first(y), &w[0], &up[0], &child[0], &parent[0], n, K, m)
			for l := 0; l < n; l++ {
				ci, pi := int(child[l]), int(parent[l])
				var yr *float32
				if y != nil {
					yr = &y[pi*row]
				}
				o, tt := make([]float32, K), make([]float32, row)
				tanhLinkNEON(&o[0], &tt[0], &p1[ci*row], yr, &w[0], K, m)
				if !sameBits(o, out[l*K:(l+1)*K]) || !sameBits(tt, tau[l*row:(l+1)*row]) {
					t.Fatalf("K=%d m=%d y=%v link %d: out %v, per link %v", K, m, y != nil, l, out[l*K:(l+1)*K], o)
				}
				tanhBackLinkNEON(&wd[pi*row], &wd2[ci*row], &wdw[0], nil, nil, &tt[0], &w[0], &up[l*K], K, m)
			}
			for _, c := range []struct {
				name    string
				got     []float32
				gotW    []float64
				wantSum []float32
				wantW   []float64
			}{{"stored", dst, dw, wd, wdw}, {"recomputed", rd, rdw, wd, wdw}} {
				if !sameBits(c.got, c.wantSum) || !slices.Equal(c.gotW, c.wantW) {
					t.Fatalf("K=%d m=%d y=%v %s: the links' gradients differ from one call per link", K, m, y != nil, c.name)
				}
			}
			if !sameBits(dst2, wd2) || !sameBits(rd2, wd2) {
				t.Fatalf("K=%d m=%d y=%v: dst2 differs from one call per link", K, m, y != nil)
			}
		}
	}
}

// Zero lengths through the API on every set: nothing read, nothing
// written but zero sums.
func TestTanhZeroLength(t *testing.T) {
	if s := TanhAddDot(nil, nil, nil, nil); s != 0 {
		t.Fatalf("TanhAddDot of nothing = %v", s)
	}
	out := []float32{7, 7}
	TanhAddDotBlocks(out, nil, nil, nil, nil)
	if out[0] != 0 || out[1] != 0 {
		t.Fatalf("TanhAddDotBlocks of empty blocks: out = %v", out)
	}
	TanhAddDotBack(nil, nil, nil, nil, nil, []float32{1, 2})
	TanhDotBack(nil, nil, nil, []float32{}, nil, []float32{1})
	TanhAddDotLinks(nil, nil, nil, nil, []float32{1}, nil, nil)
	TanhDotBackLinks(nil, nil, nil, nil, []float32{1}, nil, nil, nil)
}

// BenchmarkTanhNEON runs the NEON kernels on one link of the routing's
// alignment (K = 4 perspectives of m = 16, and m = 18 with its tail of
// two), beside the Go kernels on the same data. On these x86 machines it
// runs under qemu-user only, which says nothing about arm64's speed.
func BenchmarkTanhNEON(b *testing.B) {
	skipWithoutNEON(b)
	for _, m := range []int{16, 18} {
		x, y, w, tau, out := tanhBenchData(4, m)
		dst, dw, up := make([]float32, len(x)), make([]float64, len(x)), []float32{0.5, -1, 0.25, 2}
		b.Run(fmt.Sprint("forward/K=4/m=", m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tanhLinkNEON(&out[0], &tau[0], &x[0], &y[0], &w[0], 4, m)
			}
		})
		b.Run(fmt.Sprint("forwardGo/K=4/m=", m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tanhBlocksGo(out, tau, x, y, w)
			}
		})
		b.Run(fmt.Sprint("back/K=4/m=", m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tanhBackLinkNEON(&dst[0], nil, &dw[0], &x[0], &y[0], nil, &w[0], &up[0], 4, m)
			}
		})
		b.Run(fmt.Sprint("backGo/K=4/m=", m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tanhBackGo(dst, nil, dw, x, y, nil, w, up)
			}
		})
		b.Run(fmt.Sprint("backStored/K=4/m=", m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tanhBackLinkNEON(&dst[0], nil, &dw[0], nil, nil, &tau[0], &w[0], &up[0], 4, m)
			}
		})
	}
}
