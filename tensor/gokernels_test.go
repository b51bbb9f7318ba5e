package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/gonum"
)

// The Go kernel set's unrolled kernels (axpyTermsGo, gemmRowsGo,
// gatherDotGo, tanhBlocksGo, tanhBackGo) against slow, obvious references
// in float64, at widths that exercise every block size and tail, in every
// build: the kernels are plain Go, so the amd64 tests check the code arm64
// runs.

func randVec(rng *rand.Rand, n int, s float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * s)
	}
	return v
}

// closeTo reports whether got is within float32 rounding of a sum whose
// terms have absolute values adding up to mag.
func closeTo(got float32, want, mag float64) bool {
	return math.Abs(float64(got)-want) <= 1e-6*(mag+1)
}

// TestAxpyTermsGo checks axpyTermsGo, which on arm64's neon set runs
// axpyRowsNEON for all but the last c mod 4 columns.
func TestAxpyTermsGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const rows = 9
	for c := 1; c <= 41; c++ {
		h := randVec(rng, rows*c, 1)
		for _, n := range []int{1, 3, 12} {
			src := make([]int32, n)
			for e := range src {
				src[e] = int32(rng.IntN(rows))
			}
			w := randVec(rng, n, 1)
			w[n/2] = 0 // a dropped entry
			for _, wv := range [][]float32{w, nil} {
				for _, acc := range []bool{false, true} {
					row := randVec(rng, c, 1)
					start := append([]float32(nil), row...)
					axpyTermsGo(row, h, wv, c, src, acc)
					for j := range row {
						want, mag := 0.0, 0.0
						if acc {
							want, mag = float64(start[j]), math.Abs(float64(start[j]))
						}
						for e, s := range src {
							wt := 1.0
							if wv != nil {
								wt = float64(wv[e])
							}
							p := wt * float64(h[int(s)*c+j])
							want, mag = want+p, mag+math.Abs(p)
						}
						if !closeTo(row[j], want, mag) {
							t.Fatalf("c=%d n=%d w=%v acc=%v: column %d = %v, want %v", c, n, wv != nil, acc, j, row[j], want)
						}
					}
					// Without fused multiply-adds (amd64) the bits are
					// those of one gonum axpy per term.
					if runtime.GOARCH == "amd64" {
						ref := append([]float32(nil), start...)
						axpyTermsBlas(ref, h, wv, c, src, acc, gonum.Implementation{}.Saxpy)
						for j := range ref {
							if math.Float32bits(ref[j]) != math.Float32bits(row[j]) {
								t.Fatalf("c=%d n=%d w=%v acc=%v: column %d = %v, axpy per term %v", c, n, wv != nil, acc, j, row[j], ref[j])
							}
						}
					}
				}
			}
		}
	}
}

// TestGemmRowsGo holds gemmRowsGo, and on arm64 the NEON row kernel, to
// the float64 product.
// A zero weight (an entry DropoutCSR dropped) adds nothing, not 0·x: a
// dropped row of infinities leaves the sum finite, at every width.
func TestAxpyTermsGoSkipsZeroWeights(t *testing.T) {
	for c := 1; c <= 21; c++ {
		h := make([]float32, 2*c)
		for j := 0; j < c; j++ {
			h[j], h[c+j] = float32(j+1), float32(math.Inf(1))
		}
		row := make([]float32, c)
		axpyTermsGo(row, h, []float32{2, 0, 0.5}, c, []int32{0, 1, 0}, false)
		for j, v := range row {
			if want := 2.5 * float32(j+1); v != want {
				t.Fatalf("c=%d: column %d = %v, want %v", c, j, v, want)
			}
		}
	}
}

func TestGemmRowsGo(t *testing.T) {
	testGemmRows(t, "gemmRowsGo", gemmRowsGo)
}

func TestGemmRowsNEON(t *testing.T) {
	if !haveNEON {
		t.Skip("no NEON kernels in this build or set")
	}
	testGemmRows(t, "gemmRowsNEON", gemmRowsNEONRange)
}

func testGemmRows(t *testing.T, name string, gemmRows func(d, a, b []float32, n, kk, lo, hi int, acc bool)) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, shape := range [][3]int{{1, 1, 1}, {2, 4, 3}, {5, 7, 9}, {6, 18, 64}, {3, 9, 1}, {4, 33, 17}, {3, 16, 5}, {2, 20, 2}, {5, 64, 7}, {1, 3, 4}} {
		m, n, kk := shape[0], shape[1], shape[2]
		a, b := randVec(rng, m*kk, 1), randVec(rng, kk*n, 1)
		for _, acc := range []bool{false, true} {
			for _, r := range [][2]int{{0, m}, {m / 2, m}, {0, m - m/2}} {
				d := randVec(rng, m*n, 1)
				start := append([]float32(nil), d...)
				gemmRows(d, a, b, n, kk, r[0], r[1], acc)
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						got := d[i*n+j]
						if i < r[0] || i >= r[1] {
							if got != start[i*n+j] {
								t.Fatalf("%s %v acc=%v rows %v: row %d outside the range changed", name, shape, acc, r, i)
							}
							continue
						}
						want, mag := 0.0, 0.0
						if acc {
							want, mag = float64(start[i*n+j]), math.Abs(float64(start[i*n+j]))
						}
						for p := 0; p < kk; p++ {
							v := float64(a[i*kk+p]) * float64(b[p*n+j])
							want, mag = want+v, mag+math.Abs(v)
						}
						if !closeTo(got, want, mag) {
							t.Fatalf("%s %v acc=%v rows %v: d[%d,%d] = %v, want %v", name, shape, acc, r, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

func TestGatherDotGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	const rows = 6
	for c := 1; c <= gatherDotGoMaxCols; c++ {
		h, q := randVec(rng, rows*c, 1), randVec(rng, c, 1)
		idx := []int32{0, 5, 2, 2, 3}
		for _, acc := range []bool{false, true} {
			dst := randVec(rng, len(idx), 1)
			start := append([]float32(nil), dst...)
			var qw [gatherDotGoMaxCols]float64
			gatherDotGo(dst, q, h, c, idx, acc, qw[:])
			for e, r := range idx {
				want, mag := 0.0, 0.0
				for j := 0; j < c; j++ {
					v := float64(q[j]) * float64(h[int(r)*c+j])
					want, mag = want+v, mag+math.Abs(v)
				}
				if acc {
					// The dot product rounds to float32 before it is added.
					want = float64(start[e]) + float64(float32(want))
					mag += math.Abs(float64(start[e]))
				}
				if !closeTo(dst[e], want, mag) {
					t.Fatalf("c=%d acc=%v: dst[%d] = %v, want %v", c, acc, e, dst[e], want)
				}
			}
		}
	}
}

// TestGatherDotNEON requires gatherDotNEON's bits to be gatherDotLoop's:
// every width up to gatherDotGoMaxCols (every tail of the 4-blocks), with
// and without accumulating, values of very different magnitudes and terms
// that cancel (so that the order of the additions shows), infinities, and
// no rows.
func TestGatherDotNEON(t *testing.T) {
	if !haveNEON {
		t.Skip("no NEON kernels in this build or set")
	}
	rng := rand.New(rand.NewPCG(29, 31))
	const rows = 7
	for c := 1; c <= gatherDotGoMaxCols; c++ {
		h, q := randVec(rng, rows*c, 1), randVec(rng, c, 1)
		for i := range h {
			h[i] *= float32(math.Exp2(float64(rng.IntN(40) - 20)))
		}
		h[(rows-1)*c] = float32(math.Inf(1))
		if c >= 3 {
			// Row 1 holds ±2^40 in columns 0 and 2 (chains s0 and s2)
			// under equal weights: they cancel in (s0+s1)+(s2+s3), and
			// what is left shows where each small term was rounded into
			// a chain, which float32's rounding of a sum would hide.
			q[2] = q[0]
			h[c], h[c+2] = 0x1p40, -0x1p40
		}
		qw := make([]float64, c)
		for j, v := range q {
			qw[j] = float64(v)
		}
		for _, idx := range [][]int32{{0, 5, 2, 2, 3, 1, 4}, {rows - 1, 0}, {3}} {
			for _, acc := range []bool{false, true} {
				start := randVec(rng, len(idx), 1)
				got, want := append([]float32(nil), start...), append([]float32(nil), start...)
				gatherDotNEON(&got[0], &qw[0], &h[0], c, &idx[0], len(idx), acc)
				gatherDotLoop(want, qw, h, c, idx, acc)
				for e := range got {
					if math.Float32bits(got[e]) != math.Float32bits(want[e]) {
						t.Fatalf("c=%d idx=%v acc=%v: dst[%d] = %v, the Go loop's %v", c, idx, acc, e, got[e], want[e])
					}
				}
			}
		}
	}
	// No rows: nothing is read or written.
	var qw [1]float64
	gatherDotGo(nil, []float32{1}, []float32{1}, 1, nil, false, qw[:])
}

// TestTanhGo holds the Go set's float32 alignment kernels to math.Tanh
// directly, whatever set TanhAddDot dispatches to on this machine.
func TestTanhGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 23))
	for _, shape := range [][2]int{{1, 1}, {4, 16}, {3, 5}, {2, 18}} {
		K, m := shape[0], shape[1]
		n := K * m
		x, y, w, up := randVec(rng, n, 3), randVec(rng, n, 3), randVec(rng, n, 1), randVec(rng, K, 1)
		x[0] = 30
		for _, yy := range [][]float32{y, nil} {
			out, tau := make([]float32, K), make([]float32, n)
			tanhBlocksGo(out, tau, x, yy, w)
			out2 := make([]float32, K)
			tanhBlocksGo(out2, nil, x, yy, w)
			th := make([]float64, n)
			for b := 0; b < K; b++ {
				want, mag := 0.0, 0.0
				for q := b * m; q < (b+1)*m; q++ {
					a := float64(x[q])
					if yy != nil {
						a += float64(yy[q])
					}
					th[q] = math.Tanh(a)
					if d := math.Abs(float64(tau[q]) - th[q]); d > 1e-6 {
						t.Fatalf("%v: tau[%d] = %v, want %v", shape, q, tau[q], th[q])
					}
					want += float64(w[q]) * th[q]
					mag += math.Abs(float64(w[q]))
				}
				if !closeTo(out[b], want, mag) || out2[b] != out[b] {
					t.Fatalf("%v: out[%d] = %v (without tau %v), want %v", shape, b, out[b], out2[b], want)
				}
			}
			// The backward pass, recomputing τ and reading it, against
			// (1−tanh²)·w·up and up·tanh.
			for _, stored := range []bool{false, true} {
				dst, dst2, dw := make([]float32, n), make([]float32, n), make([]float64, n)
				if stored {
					tanhBackGo(dst, dst2, dw, nil, nil, tau, w, up)
				} else {
					tanhBackGo(dst, dst2, dw, x, yy, nil, w, up)
				}
				for q := range dst {
					g := float64(up[q/m])
					want := g * float64(w[q]) * (1 - th[q]*th[q])
					if math.Abs(float64(dst[q])-want) > 4e-6*(math.Abs(g*float64(w[q]))+1e-3) || dst2[q] != dst[q] {
						t.Fatalf("%v stored=%v: δ[%d] = %v (dst2 %v), want %v", shape, stored, q, dst[q], dst2[q], want)
					}
					if math.Abs(dw[q]-g*th[q]) > 1e-6*math.Abs(g) {
						t.Fatalf("%v stored=%v: dw[%d] = %v, want %v", shape, stored, q, dw[q], g*th[q])
					}
				}
			}
		}
	}
}

func BenchmarkGoKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows = 2708
	for _, c := range []int{7, 18, 64} {
		h := randVec(rng, rows*c, 1)
		src := make([]int32, 12)
		for i := range src {
			src[i] = int32(rng.IntN(rows))
		}
		w, row := randVec(rng, len(src), 1), make([]float32, c)
		b.Run(fmt.Sprint("axpyTermsGo/c=", c), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				axpyTermsGo(row, h, w, c, src, false)
			}
		})
		b.Run(fmt.Sprint("axpyTermsBlas/c=", c), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				axpyTermsBlas(row, h, w, c, src, false, gonum.Implementation{}.Saxpy)
			}
		})
	}
	a, bm, d := randVec(rng, 256*64, 1), randVec(rng, 64*16, 1), make([]float32, 256*16)
	b.Run("gemmRowsGo/256x64x16", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			gemmRowsGo(d, a, bm, 16, 64, 0, 256, false)
		}
	})
}
