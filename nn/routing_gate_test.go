package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// BenchmarkLinkGate is the default gate (K = 4, all three terms) on 27k
// rows, about the node-level links of a DD batch: forward, and forward with
// backward.
func BenchmarkLinkGate(b *testing.B) {
	rng := rand.New(rand.NewPCG(21, 21))
	n, K := 27000, 4
	kappa := randVar[float32](rng, "kappa", n, 1, 0.5)
	betaRow := randVar[float32](rng, "betaRow", 1, K, 1)
	a := randVar[float32](rng, "a", n, K, 1)
	h := randVar[float32](rng, "h", n, K, 1)
	wc := randVar[float32](rng, "wc", K, K, 0.5)
	c := randVar[float32](rng, "c", n, 1, 0)
	for i := range c.Value.Data {
		c.Value.Data[i] = float32(0.1 + 0.8*rng.Float64())
	}
	in := gateInputs[float32]{kappa: kappa, betaRow: betaRow, alphaC: randVar[float32](rng, "ac", 1, 1, 1),
		a: a, alphaA: randVar[float32](rng, "aa", 1, 1, 1), c: c, h: h, wc: wc, alphaR: randVar[float32](rng, "ar", 1, 1, 1)}
	var tp autodiff.Tape[float32]
	seed := tensor.NewDense[float32](n, K)
	for i := range seed.Data {
		seed.Data[i] = float32(rng.NormFloat64())
	}
	b.Run("fwd", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tp.Reset()
			linkGate(&tp, in, n, K)
		}
	})
	b.Run("fwdbwd", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tp.Reset()
			out := linkGate(&tp, in, n, K)
			if err := tp.BackwardSeeded(out, seed); err != nil {
				b.Fatal(err)
			}
		}
	})
}
