package tensor

import (
	"fmt"
	"math"
)

// Sigmoid64 sets dst[i] = σ(x[i]) = 1/(1+e^{−x[i]}) in the stable form
// (e^{−|x|} only, so no overflow): σ = 1/(1+t) for x ≥ 0 and t/(1+t) for
// x < 0, t = e^{−|x|}. dst may be x. On AVX2+FMA four values at a time run
// in assembly (relative error ≤ 1e-14 against math.Exp, e^{−|x|} floored
// at e^{−708}); the rest use math.Exp.
func Sigmoid64(dst, x []float64) {
	if len(dst) != len(x) {
		panic(fmt.Sprintf("tensor: Sigmoid64 lengths %d and %d", len(dst), len(x)))
	}
	n := 0
	if haveAVX2FMA {
		n = len(x) &^ 3
		if n > 0 {
			sigmoid64AVX(&dst[0], &x[0], n)
		}
	}
	for i := n; i < len(x); i++ {
		dst[i] = sigmoidGo(x[i])
	}
}

func sigmoidGo(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	z := math.Exp(x)
	return z / (1 + z)
}
