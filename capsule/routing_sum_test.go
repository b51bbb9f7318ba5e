package capsule

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
)

// linkSumGated and linkAgree give autodiff.Mul with linkSum, and Mul with
// RowSum and Add, bit for bit in float32, values and gradients, at K = 4
// (scalar gradient steps) and K = 8 (Mul's fused vector kernel for ∂γ).
func TestGatedSumAndAgreeMatchTheirComposition(t *testing.T) {
	l := coraLikeLinks()
	ix, err := newLinkIndex(l)
	if err != nil {
		t.Fatal(err)
	}
	E, C, d := l.NumLinks(), l.Children, 18
	for _, K := range []int{4, 8} {
		rng := rand.New(rand.NewPCG(uint64(K), 5))
		gam, c, b := randVar[float32](rng, "gamma", E, K, 1), randVar[float32](rng, "c", E, 1, 1), randVar[float32](rng, "b", E, 1, 1)
		x, h := randVar[float32](rng, "x", C, K*d, 1), randVar[float32](rng, "h", E, K, 1)
		inputs := []*autodiff.Var[float32]{gam, c, b, x, h}
		run := func(fused bool) (vals, grads [][]float32) {
			for _, v := range inputs {
				v.ZeroGrad()
			}
			var tp autodiff.Tape[float32]
			var S, nb *autodiff.Var[float32]
			if fused {
				S, nb = linkSumGated(&tp, ix, gam, c, x, d), linkAgree(&tp, b, gam, h)
			} else {
				S = linkSum(&tp, ix, autodiff.Mul(&tp, gam, c), x, d)
				nb = autodiff.Add(&tp, b, autodiff.RowSum(&tp, autodiff.Mul(&tp, gam, h)))
			}
			// A loss that weighs every output differently.
			loss := autodiff.Add(&tp, autodiff.Sum(&tp, autodiff.Mul(&tp, S, S)), autodiff.Sum(&tp, autodiff.Mul(&tp, nb, nb)))
			if err := tp.Backward(loss); err != nil {
				t.Fatal(err)
			}
			vals = [][]float32{slices.Clone(S.Value.Data), slices.Clone(nb.Value.Data)}
			for _, v := range inputs {
				grads = append(grads, slices.Clone(v.Grad.Data))
			}
			return vals, grads
		}
		fv, fg := run(true)
		cv, cg := run(false)
		for i := range fv {
			if !slices.Equal(fv[i], cv[i]) {
				t.Errorf("K = %d: output %d differs from the composition", K, i)
			}
		}
		for i, v := range inputs {
			if !slices.Equal(fg[i], cg[i]) {
				t.Errorf("K = %d: gradient of %s differs from the composition", K, v.Name)
			}
		}
	}
}
