package nn

import (
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
)

// Glorot fills p (fanIn×fanOut) from U(−a, a), a = √(6/(fanIn+fanOut)), the
// initialisation of PyG's GCNConv and of Kipf & Welling's GCN.
func Glorot[T autodiff.Float](p *autodiff.Var[T], rng *rand.Rand) {
	a := math.Sqrt(6 / float64(p.Value.Rows+p.Value.Cols))
	Uniform(p, -a, a, rng)
}

// TorchLinear fills p from U(−1/√fanIn, 1/√fanIn), PyTorch's default for
// nn.Linear weights (kaiming_uniform with a = √5) and biases.
func TorchLinear[T autodiff.Float](p *autodiff.Var[T], fanIn int, rng *rand.Rand) {
	a := 1 / math.Sqrt(float64(max(fanIn, 1)))
	Uniform(p, -a, a, rng)
}

// Uniform fills p from U(lo, hi).
func Uniform[T autodiff.Float](p *autodiff.Var[T], lo, hi float64, rng *rand.Rand) {
	for i := range p.Value.Data {
		p.Value.Data[i] = T(lo + (hi-lo)*rng.Float64())
	}
}

// Fill sets every element of p to v.
func Fill[T autodiff.Float](p *autodiff.Var[T], v float64) {
	for i := range p.Value.Data {
		p.Value.Data[i] = T(v)
	}
}
