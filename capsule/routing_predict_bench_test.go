package capsule

import (
	"fmt"
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
// early in training, or none.
func BenchmarkPredict32(b *testing.B) {
	for _, c := range []struct {
		n, groups int
		wrap      bool
	}{{2708, 1, false}, {2708, 1, true}, {4096, 2, false}} {
		b.Run(fmt.Sprintf("n=%d/groups=%d/wrap=%v", c.n, c.groups, c.wrap), func(b *testing.B) {
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
