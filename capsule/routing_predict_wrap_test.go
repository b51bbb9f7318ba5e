package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// BenchmarkPredict32 is one forward and backward pass of the float32
// predictions (s = t = 9, K = 4) of n children under G weight groups: a
// Cora-sized node layer (G = 1) and a graph layer's per-class predictions
// for two classes (G = 2). wrap is the share of the children whose time
// blocks exceed πr_k under some perspective (norms spread up to 8), as
// early in training, or none. goWrap runs the wrap in Go only, without
// its vector kernels.
func BenchmarkPredict32(b *testing.B) {
	defer func(v bool) { wrapVecOff = v }(wrapVecOff)
	for _, c := range []struct {
		n, groups    int
		wrap, goWrap bool
	}{{2708, 1, false, false}, {2708, 1, false, true}, {2708, 1, true, false}, {2708, 1, true, true}, {4096, 2, false, false}} {
		wrapVecOff = c.goWrap
		b.Run(fmt.Sprintf("n=%d/groups=%d/wrap=%v/go=%v", c.n, c.groups, c.wrap, c.goWrap), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, 7))
			s, tt, K := 9, 9, 4
			a := randVar[float32](rng, "a", c.n, s+tt, 1)
			for i := 0; i < c.n; i++ {
				f := 0.15
				if c.wrap {
					f = (0.1 + 8*rng.Float64()) / 3
				}
				for j := range s + tt {
					a.Value.Data[i*(s+tt)+j] *= float32(f)
				}
			}
			var wsph, weuc, bias, beta []*autodiff.Var[float32]
			for range c.groups * K {
				wsph = append(wsph, randVar[float32](rng, "ws", tt, tt, 0.4))
				weuc = append(weuc, randVar[float32](rng, "we", s, s, 0.4))
				bias = append(bias, randVar[float32](rng, "b", 1, s+tt, 0.1))
			}
			for k := range K {
				bv := randVar[float32](rng, "beta", 1, 1, 0)
				bv.Value.Data[0] = float32(-0.5 * float64(int(1)<<k))
				beta = append(beta, bv)
			}
			var tp autodiff.Tape[float32]
			var seed tensor.Dense[float32]
			step := func() {
				tp.Reset()
				out := predict(&tp, a, wsph, weuc, bias, beta, s, tt)
				if seed.Rows == 0 {
					seed = *tensor.NewDense[float32](out.Value.Rows, out.Value.Cols)
					for i := range seed.Data {
						seed.Data[i] = float32(rng.NormFloat64())
					}
				}
				if err := tp.BackwardSeeded(out, &seed); err != nil {
					b.Fatal(err)
				}
			}
			step()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				step()
			}
		})
	}
}

// The wrap's vector kernels, AVX2 and (where the machine has it)
// AVX-512, give the Go code's bits: outputs and every
// gradient of predict in float32, with and without them, for shapes with
// and without a space part, one and several weight groups (up to 12
// blocks a child), children whose norms straddle the wrap limit of each
// perspective (some exactly at it), and a NaN child.
func TestPredictWrapVec(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2: the wrap runs in Go only")
	}
	defer func(v bool) { wrapAVX2Only = v }(wrapAVX2Only)
	for _, avx2 := range []bool{true, false} {
		if !avx2 && !haveAVX512 {
			continue
		}
		wrapAVX2Only = avx2
		t.Run(fmt.Sprintf("avx2=%v", avx2), checkPredictWrapVec)
	}
}

func checkPredictWrapVec(t *testing.T) {
	for _, c := range []struct{ s, tt, K, G, n int }{
		{9, 9, 4, 1, 300}, {9, 9, 4, 2, 300}, {3, 4, 2, 3, 200}, {16, 16, 4, 2, 100}, {0, 5, 1, 1, 100}, {9, 9, 4, 3, 50},
	} {
		t.Run(fmt.Sprintf("s=%d/t=%d/K=%d/G=%d", c.s, c.tt, c.K, c.G), func(t *testing.T) {
			for _, nan := range []bool{false, true} {
				got, nOut := predictWrapRun(c.s, c.tt, c.K, c.G, c.n, nan, false)
				want, _ := predictWrapRun(c.s, c.tt, c.K, c.G, c.n, nan, true)
				if len(got) != len(want) {
					t.Fatalf("%d values, want %d", len(got), len(want))
				}
				if nan { // the NaN reaches every weight's gradient: compare the outputs
					got, want = got[:nOut], want[:nOut]
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(nan && got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("NaN child %v: value %d of %d: %v with the kernels, %v in Go", nan, i, len(want), got[i], want[i])
					}
				}
			}
		})
	}
}

// predictWrapRun runs predict in float32 forward and backward, with the
// wrap's vector kernels or in Go only, and returns the output followed by
// every gradient, and the output's length. With nan, child 2 is a NaN.
func predictWrapRun(s, tt, K, G, n int, nan, goOnly bool) ([]float32, int) {
	defer func(v bool) { wrapVecOff = v }(wrapVecOff)
	wrapVecOff = goOnly
	rng := rand.New(rand.NewPCG(uint64(s*100+tt), uint64(G)))
	d := s + tt
	a := randVar[float32](rng, "a", n, d, 1)
	for i := 0; i < n; i++ {
		f := float32((0.05 + 8*rng.Float64()) / 3)
		for j := range d {
			a.Value.Data[i*d+j] *= f
		}
	}
	var wsph, weuc, bias, beta []*autodiff.Var[float32]
	for range G * K {
		wsph = append(wsph, randVar[float32](rng, "ws", tt, tt, 0.4))
		weuc = append(weuc, randVar[float32](rng, "we", s, s, 0.4))
		bias = append(bias, randVar[float32](rng, "b", 1, d, 0.1))
	}
	for k := range K {
		bv := randVar[float32](rng, "beta", 1, 1, 0)
		bv.Value.Data[0] = float32(-0.5 * float64(int(1)<<k))
		beta = append(beta, bv)
	}
	// Child 1's time part is scaled so that its first product's norm sits
	// at the wrap limit of perspective 0, where the screen must defer to
	// the Go code.
	if n > 2 {
		x := make([]float64, tt)
		for m := 0; m < tt; m++ {
			for c := 0; c < tt; c++ {
				x[c] += float64(a.Value.Data[d+m]) * float64(wsph[0].Value.Data[m*tt+c])
			}
		}
		nx := 0.0
		for _, v := range x {
			nx += v * v
		}
		f := math.Pi * math.Sqrt(0.5) / math.Sqrt(nx)
		for m := 0; m < tt; m++ {
			a.Value.Data[d+m] = float32(float64(a.Value.Data[d+m]) * f)
		}
	}
	if nan {
		a.Value.Data[2*d] = float32(math.NaN())
	}
	params := append(append(append(append([]*autodiff.Var[float32]{a}, wsph...), weuc...), bias...), beta...)
	// A first pass on the same tape with larger children, most of whose
	// blocks wrap, leaves its kept values in the op's buffers, which the
	// second pass must overwrite.
	var tp autodiff.Tape[float32]
	orig := append([]float32(nil), a.Value.Data...)
	for i := range a.Value.Data {
		a.Value.Data[i] *= 3
	}
	warm := predict(&tp, a, wsph, weuc, bias, beta, s, tt)
	if err := tp.BackwardSeeded(warm, tensor.NewDense[float32](warm.Value.Rows, warm.Value.Cols)); err != nil {
		panic(err)
	}
	copy(a.Value.Data, orig)
	for _, v := range params {
		v.ZeroGrad()
	}
	tp.Reset()
	out := predict(&tp, a, wsph, weuc, bias, beta, s, tt)
	seed := tensor.NewDense[float32](out.Value.Rows, out.Value.Cols)
	for i := range seed.Data {
		seed.Data[i] = float32(math.Cos(float64(i)))
	}
	if err := tp.BackwardSeeded(out, seed); err != nil {
		panic(err)
	}
	res := append([]float32(nil), out.Value.Data...)
	for _, v := range params {
		res = append(res, v.Grad.Data...)
	}
	return res, len(out.Value.Data)
}
