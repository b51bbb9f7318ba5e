package autodiff

import (
	"math/rand/v2"
	"testing"
)

// One training pass (forward and backward, dropout 0.5) of 4-head
// attention at Cora's size.
func BenchmarkAttentionCora(b *testing.B) {
	q, k, v := attnInputs[float32](5, 2708, 2708, 64)
	var tp Tape[float32]
	tp.ReleaseGrads = true
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < b.N; i++ {
		tp.Reset()
		y := Attention(&tp, q, k, v, 4, 0.5, rng, true)
		if err := tp.Backward(Sum(&tp, y)); err != nil {
			b.Fatal(err)
		}
	}
}
