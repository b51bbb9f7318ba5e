package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTanh32(t *testing.T) {
	worst := 0.0
	for i := -300000; i <= 300000; i++ {
		x := float64(i) * 4e-5
		want, got := math.Tanh(x), Tanh32(x)
		if want != 0 {
			worst = math.Max(worst, math.Abs(got-want)/math.Abs(want))
		} else if got != 0 {
			t.Fatalf("Tanh32(0) = %v", got)
		}
	}
	if worst > 4e-8 {
		t.Fatalf("relative error %g > 4e-8", worst)
	}
	for _, x := range []float64{1e-30, -1e-12, 20, -1e6, math.Inf(1), math.Inf(-1)} {
		if got, want := Tanh32(x), math.Tanh(x); math.Abs(got-want) > 4e-8*math.Abs(want) {
			t.Errorf("Tanh32(%v) = %v, want %v", x, got, want)
		}
	}
	if !math.IsNaN(Tanh32(math.NaN())) {
		t.Error("Tanh32(NaN) is not NaN")
	}
}

func TestTanhAddDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 8, 16, 17, 64} {
		for trial := 0; trial < 50; trial++ {
			x, y, w, tau := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * 4)
				y[i] = float32(rng.NormFloat64() * 4)
				w[i] = float32(rng.NormFloat64())
			}
			x[0] = []float32{30, -30, 0, 9, -9}[trial%5]
			for _, yy := range [][]float32{y, nil} {
				s := TanhAddDot(tau, x, yy, w)
				want := 0.0
				for i := range x {
					a := float64(x[i])
					if yy != nil {
						a += float64(yy[i])
					}
					th := math.Tanh(a)
					if d := math.Abs(float64(tau[i]) - th); d > 1e-6 {
						t.Fatalf("n=%d y=%v: tau[%d] = %v, want %v", n, yy != nil, i, tau[i], th)
					}
					want += float64(w[i]) * th
				}
				if math.Abs(float64(s)-want) > 1e-5*(1+math.Abs(want)) {
					t.Fatalf("n=%d: sum %v, want %v", n, s, want)
				}
			}
		}
	}
}

func BenchmarkTanhAddDot(b *testing.B) {
	for _, n := range []int{16, 64} {
		x, y, w, tau := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i], w[i] = float32(i%7)-3, 0.5, 1
		}
		b.Run(map[int]string{16: "n16", 64: "n64"}[n], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				TanhAddDot(tau, x, y, w)
			}
		})
	}
}

// TestTanhAddDotBack checks the recomputing backward pass against the τ
// that TanhAddDotBlocks computes: dw exactly, dst to float32 rounding, over
// block widths on and off the 8-lane path, with and without y and dw.
func TestTanhAddDotBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, shape := range [][2]int{{1, 8}, {4, 16}, {3, 5}, {2, 24}, {4, 12}} {
		K, m := shape[0], shape[1]
		n := K * m
		x, y, w, up := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, K)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 2)
			y[i] = float32(rng.NormFloat64() * 2)
			w[i] = float32(rng.NormFloat64())
		}
		for k := range up {
			up[k] = float32(rng.NormFloat64())
		}
		up[0] = 0 // an upstream zero: nothing added
		for _, yy := range [][]float32{y, nil} {
			tau, out := make([]float32, n), make([]float32, K)
			TanhAddDotBlocks(out, tau, x, yy, w)
			for _, withDw := range []bool{false, true} {
				dst := make([]float32, n)
				var dw []float64
				if withDw {
					dw = make([]float64, n)
				}
				for i := range dst {
					dst[i] = float32(i)
					if dw != nil {
						dw[i] = float64(i)
					}
				}
				TanhAddDotBack(dst, dw, x, yy, w, up)
				if dw != nil { // dw alone
					dw2 := make([]float64, n)
					for i := range dw2 {
						dw2[i] = float64(i)
					}
					TanhAddDotBack(nil, dw2, x, yy, w, up)
					for q := range dw2 {
						if dw2[q] != dw[q] {
							t.Fatalf("K=%d m=%d: without dst dw[%d] = %v, want %v", K, m, q, dw2[q], dw[q])
						}
					}
				}
				for q := range tau {
					g, th := float64(up[q/m]), float64(tau[q])
					want := float64(q) + g*float64(w[q])*(1-th*th)
					if math.Abs(float64(dst[q])-want) > 1e-6*(1+math.Abs(want)) {
						t.Fatalf("K=%d m=%d: dst[%d] = %v, want %v", K, m, q, dst[q], want)
					}
					if dw != nil && dw[q] != float64(q)+g*th {
						t.Fatalf("K=%d m=%d: dw[%d] = %v, want exactly %v", K, m, q, dw[q], float64(q)+g*th)
					}
				}
			}
			// Without tau the sums are unchanged.
			out2 := make([]float32, K)
			TanhAddDotBlocks(out2, nil, x, yy, w)
			for b := range out {
				if out2[b] != out[b] {
					t.Fatalf("K=%d m=%d: without tau out[%d] = %v, want %v", K, m, b, out2[b], out[b])
				}
			}
		}
	}
}

// TanhAddDotBlocks gives exactly the per-block TanhAddDot results.
func TestTanhAddDotBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for _, shape := range [][2]int{{1, 8}, {4, 16}, {3, 5}, {2, 24}, {5, 12}} {
		K, m := shape[0], shape[1]
		n := K * m
		x, y, w := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 4)
			y[i] = float32(rng.NormFloat64() * 4)
			w[i] = float32(rng.NormFloat64())
		}
		for _, yy := range [][]float32{y, nil} {
			out, tau := make([]float32, K), make([]float32, n)
			TanhAddDotBlocks(out, tau, x, yy, w)
			for b := 0; b < K; b++ {
				var yb []float32
				if yy != nil {
					yb = yy[b*m : (b+1)*m]
				}
				wantTau := make([]float32, m)
				want := TanhAddDot(wantTau, x[b*m:(b+1)*m], yb, w[b*m:(b+1)*m])
				if out[b] != want {
					t.Fatalf("K=%d m=%d y=%v: out[%d] = %v, want %v", K, m, yy != nil, b, out[b], want)
				}
				for q, v := range wantTau {
					if tau[b*m+q] != v {
						t.Fatalf("K=%d m=%d: tau[%d] = %v, want %v", K, m, b*m+q, tau[b*m+q], v)
					}
				}
			}
		}
	}
}

// TanhAddDotBack2 gives both destinations the bits that two TanhAddDotBack
// calls give them (the routing relies on it to fuse its two passes).
func TestTanhAddDotBack2(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	for _, shape := range [][2]int{{4, 16}, {3, 5}, {2, 24}} {
		K, m := shape[0], shape[1]
		n := K * m
		x, y, w, up := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, K)
		a, b, a2, b2 := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		dw, dw2 := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i], w[i] = float32(rng.NormFloat64()*2), float32(rng.NormFloat64()*2), float32(rng.NormFloat64())
			a[i], b[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
			a2[i], b2[i], dw[i], dw2[i] = a[i], b[i], float64(i), float64(i)
		}
		for k := range up {
			up[k] = float32(rng.NormFloat64())
		}
		for _, yy := range [][]float32{y, nil} {
			TanhAddDotBack2(a, b, dw, x, yy, w, up)
			TanhAddDotBack(a2, dw2, x, yy, w, up)
			TanhAddDotBack(b2, nil, x, yy, w, up)
			for q := range a {
				if a[q] != a2[q] || b[q] != b2[q] || dw[q] != dw2[q] {
					t.Fatalf("K=%d m=%d y=%v: element %d: (%v, %v, %v), two calls give (%v, %v, %v)",
						K, m, yy != nil, q, a[q], b[q], dw[q], a2[q], b2[q], dw2[q])
				}
			}
		}
	}
}

// TanhDotBack, reading the τ that TanhAddDotBlocks stored, gives the bits
// of TanhAddDotBack2, which recomputes it, on and off the 8-lane path.
func TestTanhDotBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 13))
	for _, shape := range [][2]int{{4, 16}, {1, 8}, {3, 5}, {2, 24}} {
		K, m := shape[0], shape[1]
		n := K * m
		x, y, w, up := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, K)
		for i := range x {
			x[i], y[i], w[i] = float32(rng.NormFloat64()*3), float32(rng.NormFloat64()*3), float32(rng.NormFloat64())
		}
		for k := range up {
			up[k] = float32(rng.NormFloat64())
		}
		for _, yy := range [][]float32{y, nil} {
			tau, out := make([]float32, n), make([]float32, K)
			TanhAddDotBlocks(out, tau, x, yy, w)
			a, b, dw := make([]float32, n), make([]float32, n), make([]float64, n)
			a2, b2, dw2 := make([]float32, n), make([]float32, n), make([]float64, n)
			for i := range a {
				a[i], b[i], dw[i] = float32(i)/7, -float32(i)/5, float64(i)/3
				a2[i], b2[i], dw2[i] = a[i], b[i], dw[i]
			}
			TanhAddDotBack2(a, b, dw, x, yy, w, up)
			TanhDotBack(a2, b2, dw2, tau, w, up)
			for q := range a {
				if a[q] != a2[q] || b[q] != b2[q] || dw[q] != dw2[q] {
					t.Fatalf("K=%d m=%d y=%v: element %d: stored τ gives (%v, %v, %v), recomputed (%v, %v, %v)",
						K, m, yy != nil, q, a2[q], b2[q], dw2[q], a[q], b[q], dw[q])
				}
			}
		}
	}
}

// BenchmarkTanhAddDotBlocks and BenchmarkTanhAddDotBack are one link of
// the routing's alignment term (K = 4 perspectives, d_align = 16) and a
// wider one.
func BenchmarkTanhAddDotBlocks(b *testing.B) {
	for _, m := range []int{16, 64} {
		x, y, w, tau, out := tanhBenchData(4, m)
		b.Run(fmt.Sprint("K=4/m=", m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				TanhAddDotBlocks(out, tau, x, y, w)
			}
		})
	}
}

func BenchmarkTanhAddDotBack(b *testing.B) {
	for _, m := range []int{16, 64} {
		x, y, w, dst, up := tanhBenchData(4, m)
		dw := make([]float64, len(x))
		b.Run(fmt.Sprint("K=4/m=", m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				TanhAddDotBack(dst, dw, x, y, w, up)
			}
		})
		tau := make([]float32, len(x))
		TanhAddDotBlocks(make([]float32, 4), tau, x, y, w)
		b.Run(fmt.Sprint("stored/K=4/m=", m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				TanhDotBack(dst, nil, dw, tau, w, up)
			}
		})
	}
}

func tanhBenchData(K, m int) (x, y, w, buf, out []float32) {
	n := K * m
	x, y, w, buf, out = make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, K)
	for i := range x {
		x[i], y[i], w[i] = float32(i%7)-3, 0.5, 1
	}
	for k := range out {
		out[k] = 0.25
	}
	return x, y, w, buf, out
}

// TanhAddDotLinks and TanhDotBackLinks give the bits of one
// TanhAddDotBlocks and TanhDotBack call per link, in link order, on and
// off the 8-lane path, with and without p2, tau, dst, dst2 and dw.
func TestTanhLinks(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 19))
	for _, shape := range [][2]int{{4, 16}, {2, 8}, {3, 5}} {
		K, m := shape[0], shape[1]
		row, C, P, n := K*m, 7, 5, 23
		vec := func(n int, s float64) []float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(rng.NormFloat64() * s)
			}
			return v
		}
		p1, p2, w, up := vec(C*row, 2), vec(P*row, 2), vec(row, 1), vec(n*K, 1)
		child, parent := make([]int32, n), make([]int32, n)
		for t := range child {
			child[t], parent[t] = int32(rng.IntN(C)), int32(rng.IntN(P))
		}
		for _, y := range [][]float32{p2, nil} {
			out, tau := make([]float32, n*K), make([]float32, n*row)
			TanhAddDotLinks(out, tau, p1, y, w, child, parent)
			out2 := make([]float32, n*K)
			TanhAddDotLinks(out2, nil, p1, y, w, child, parent)
			for tl := range child {
				var yr []float32
				if y != nil {
					yr = y[int(parent[tl])*row : int(parent[tl]+1)*row]
				}
				wantOut, wantTau := make([]float32, K), make([]float32, row)
				TanhAddDotBlocks(wantOut, wantTau, p1[int(child[tl])*row:int(child[tl]+1)*row], yr, w)
				for b := range wantOut {
					if out[tl*K+b] != wantOut[b] || out2[tl*K+b] != wantOut[b] {
						t.Fatalf("K=%d m=%d link %d block %d: %v (%v without tau), per link %v", K, m, tl, b, out[tl*K+b], out2[tl*K+b], wantOut[b])
					}
				}
				for q, v := range wantTau {
					if tau[tl*row+q] != v {
						t.Fatalf("K=%d m=%d link %d: tau[%d] = %v, per link %v", K, m, tl, q, tau[tl*row+q], v)
					}
				}
			}
			for _, full := range []bool{true, false} {
				dst, dst2, dw := vec(P*row, 1), vec(C*row, 1), make([]float64, row)
				wd, wd2, wdw := slices.Clone(dst), slices.Clone(dst2), slices.Clone(dw)
				if !full {
					dst2, wd2, dw, wdw = nil, nil, nil, nil
				}
				TanhDotBackLinks(dst, dst2, dw, tau, w, up, child, parent)
				for tl := range child {
					var d2 []float32
					if wd2 != nil {
						d2 = wd2[int(child[tl])*row : int(child[tl]+1)*row]
					}
					TanhDotBack(wd[int(parent[tl])*row:int(parent[tl]+1)*row], d2, wdw, tau[tl*row:(tl+1)*row], w, up[tl*K:(tl+1)*K])
				}
				for q := range wd {
					if dst[q] != wd[q] {
						t.Fatalf("K=%d m=%d full=%v: dst[%d] = %v, per link %v", K, m, full, q, dst[q], wd[q])
					}
				}
				for q := range wd2 {
					if dst2[q] != wd2[q] {
						t.Fatalf("K=%d m=%d: dst2[%d] = %v, per link %v", K, m, q, dst2[q], wd2[q])
					}
				}
				for q := range wdw {
					if dw[q] != wdw[q] {
						t.Fatalf("K=%d m=%d: dw[%d] = %v, per link %v", K, m, q, dw[q], wdw[q])
					}
				}
			}
		}
	}
}

// TestTanhLinksZ16 checks that the AVX-512 forward kernel for blocks of 16
// gives the AVX2 kernel's outputs and τ bit for bit, with and without p2
// and τ, on inputs that reach the clamp at ±9 and signed zeros, for block
// counts that use its four-block path, its one-block path and both.
func TestTanhLinksZ16(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	for _, K := range []int{4, 5, 2, 9} {
		checkTanhLinksZ16(t, K)
	}
}

func checkTanhLinksZ16(t *testing.T, K int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, uint64(K)))
	const m, C, P, n = 16, 9, 6, 31
	row := K * m
	vec := func(n int, s float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * s)
		}
		return v
	}
	p1, p2, w := vec(C*row, 4), vec(P*row, 4), vec(row, 1)
	p1[3], p1[5], p2[5], w[7] = 0, float32(math.Copysign(0, -1)), 0, 0
	p1[9] = 40
	child, parent := make([]int32, n), make([]int32, n)
	for i := range child {
		child[i], parent[i] = int32(rng.IntN(C)), int32(rng.IntN(P))
	}
	for _, y := range [][]float32{p2, nil} {
		var par *int32
		if y != nil {
			par = &parent[0]
		}
		got, want := make([]float32, n*K), make([]float32, n*K)
		gotTau, wantTau := make([]float32, n*row), make([]float32, n*row)
		tanhAddDotLinksZ16(&got[0], &gotTau[0], &p1[0], first(y), &w[0], &child[0], par, n, K)
		tanhAddDotLinksAVX(&want[0], &wantTau[0], &p1[0], first(y), &w[0], &child[0], par, n, K, m)
		noTau := make([]float32, n*K)
		tanhAddDotLinksZ16(&noTau[0], nil, &p1[0], first(y), &w[0], &child[0], par, n, K)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(noTau[i]) != math.Float32bits(want[i]) {
				t.Fatalf("K=%d p2 %v: out[%d] = %v (%v without τ), AVX2 %v", K, y != nil, i, got[i], noTau[i], want[i])
			}
		}
		for i := range wantTau {
			if math.Float32bits(gotTau[i]) != math.Float32bits(wantTau[i]) {
				t.Fatalf("K=%d p2 %v: τ[%d] = %v, AVX2 %v", K, y != nil, i, gotTau[i], wantTau[i])
			}
		}
	}
}
