package capsule

import (
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/nn"
)

// initPrediction initialises the square prediction weight p (fan-in its
// rows) per init: I + U(±0.05) or U(±1/√fan_in).
func initPrediction[T autodiff.Float](p *autodiff.Var[T], init PredictionInit, rng *rand.Rand) {
	if init == InitTorch {
		nn.TorchLinear(p, p.Value.Rows, rng)
		return
	}
	nn.Uniform(p, -0.05, 0.05, rng)
	for i := 0; i < p.Value.Rows; i++ {
		p.Value.Data[i*p.Value.Cols+i] += 1
	}
}
