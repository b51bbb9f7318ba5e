package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// AddPenalty's gradients against central differences of the function it
// stands for, loss(out) + weight·Σ penalty, whose value the tape does not
// hold: loss = Σ out² with out = tanh(y), penalty = (a²) elementwise.
func TestAddPenaltyGradients(t *testing.T) {
	const weight, eps = 0.7, 1e-6
	rng := rand.New(rand.NewPCG(9, 9))
	y := ewtVar[float64](rng, "y", 3, 2, nil)
	a := ewtVar[float64](rng, "a", 2, 2, nil)
	var tp Tape[float64]
	build := func() (*Var[float64], *Var[float64]) {
		tp.Reset()
		out := AddPenalty(&tp, Tanh(&tp, y), Square(&tp, a), weight)
		return out, Sum(&tp, Square(&tp, out))
	}
	f := func() float64 {
		_, loss := build()
		s := loss.Value.Data[0]
		for _, v := range a.Value.Data {
			s += weight * v * v
		}
		return s
	}
	out, loss := build()
	for i, v := range y.Value.Data {
		if w := math.Tanh(v); out.Value.Data[i] != w {
			t.Fatalf("value %d = %v, want y's %v", i, out.Value.Data[i], w)
		}
	}
	y.ZeroGrad()
	a.ZeroGrad()
	if err := tp.Backward(loss); err != nil {
		t.Fatal(err)
	}
	for _, v := range []*Var[float64]{y, a} {
		analytic := append([]float64(nil), v.Grad.Data...)
		for i := range v.Value.Data {
			orig := v.Value.Data[i]
			v.Value.Data[i] = orig + eps
			fp := f()
			v.Value.Data[i] = orig - eps
			fm := f()
			v.Value.Data[i] = orig
			if num := (fp - fm) / (2 * eps); math.Abs(num-analytic[i]) > 1e-6*(1+math.Abs(num)) {
				t.Errorf("%s[%d]: gradient %v, finite difference %v", v.Name, i, analytic[i], num)
			}
		}
	}
}

// A penalty alone, on an output that needs no gradient, still trains its
// inputs; under NoGrad nothing is recorded and the value passes through.
func TestAddPenaltyOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := ewtVar[float32](rng, "a", 1, 3, nil)
	y := NewVar(a.Value.Clone(), false)
	var tp Tape[float32]
	out := AddPenalty(&tp, y, a, 2)
	if !out.RequiresGrad() {
		t.Fatal("the result of a penalty on a parameter needs no gradient")
	}
	a.ZeroGrad()
	if err := tp.BackwardSeeded(out, nil); err != nil {
		t.Fatal(err)
	}
	for i, g := range a.Grad.Data {
		if g != 2 {
			t.Errorf("∂a[%d] = %v, want the weight 2", i, g)
		}
	}
	tp.Reset()
	tp.NoGrad = true
	if out := AddPenalty(&tp, y, a, 2); out.RequiresGrad() || out.Value.Data[1] != y.Value.Data[1] {
		t.Error("NoGrad: recorded, or the value changed")
	}
}
