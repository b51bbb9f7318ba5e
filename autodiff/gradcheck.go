package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/prcaps/prcaps/tensor"
)

// GradCheck compares the gradients that Backward computes for the inputs
// with central finite differences. build records a computation on a fresh
// pass of the tape (it is called many times and must be deterministic: fixed
// dropout masks, no state) and returns its output, of any shape; the checked
// function is the scalar Σ w ⊙ output for a fixed random w, so every output
// element's gradient path is exercised. Inputs must require gradients.
//
// It returns the largest relative error over the inputs, each measured as
// ‖analytic − numeric‖ / max(‖analytic‖, ‖numeric‖, tiny) over that input's
// elements. Use float64 with eps ≈ 1e-6 for tight checks (≤ 1e-6) and float32
// with eps ≈ 1e-2 for loose ones (≤ 1e-3).
func GradCheck[T Float](build func(t *Tape[T]) (*Var[T], error), inputs []*Var[T], eps float64) (float64, error) {
	var t Tape[T]
	out, err := build(&t)
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	w := tensor.NewDense[T](out.Value.Rows, out.Value.Cols)
	for i := range w.Data {
		w.Data[i] = T(rng.Float64()*2 - 1)
	}
	for _, in := range inputs {
		if !in.requiresGrad {
			return 0, fmt.Errorf("autodiff: GradCheck input %q does not require a gradient", in.Name)
		}
		in.ZeroGrad()
	}
	if err := t.BackwardSeeded(out, w); err != nil {
		return 0, err
	}
	analytic := make([][]float64, len(inputs))
	for k, in := range inputs {
		analytic[k] = make([]float64, len(in.Grad.Data))
		for i, g := range in.Grad.Data {
			analytic[k][i] = float64(g)
		}
	}
	if err := checkReleaseGrads(&t, build, inputs, w, analytic); err != nil {
		return 0, err
	}
	eval := func() (float64, error) {
		t.Reset()
		o, err := build(&t)
		if err != nil {
			return 0, err
		}
		if !o.Value.SameShape(w) {
			return 0, fmt.Errorf("autodiff: GradCheck output changed shape between passes")
		}
		s := 0.0
		for i, v := range o.Value.Data {
			s += float64(w.Data[i]) * float64(v)
		}
		return s, nil
	}
	worst := 0.0
	for k, in := range inputs {
		var diff, na, nn float64
		for i := range in.Value.Data {
			orig := in.Value.Data[i]
			in.Value.Data[i] = orig + T(eps)
			fp, err := eval()
			if err != nil {
				return 0, err
			}
			in.Value.Data[i] = orig - T(eps)
			fm, err := eval()
			in.Value.Data[i] = orig
			if err != nil {
				return 0, err
			}
			// Divide by the step actually taken, which differs from 2·eps
			// after rounding to T.
			step := float64(orig+T(eps)) - float64(orig-T(eps))
			num := (fp - fm) / step
			a := analytic[k][i]
			diff += (a - num) * (a - num)
			na += a * a
			nn += num * num
		}
		den := math.Max(math.Sqrt(math.Max(na, nn)), 1e-12)
		rel := math.Sqrt(diff) / den
		if math.Sqrt(na) < 1e-12 && math.Sqrt(nn) < 1e-12 {
			rel = 0
		}
		if math.IsNaN(rel) {
			return math.Inf(1), fmt.Errorf("autodiff: GradCheck input %q has a NaN gradient", in.Name)
		}
		worst = math.Max(worst, rel)
	}
	return worst, nil
}

// checkReleaseGrads repeats the backward pass of GradCheck under
// ReleaseGrads, where gradients live in the tape's pool only while needed,
// and requires the inputs' gradients to be bit for bit those of the plain
// pass (want): an op that does not declare an input to Tape.Node, or that
// reads a gradient outside its backward step, fails here.
func checkReleaseGrads[T Float](t *Tape[T], build func(t *Tape[T]) (*Var[T], error), inputs []*Var[T], w *tensor.Dense[T], want [][]float64) error {
	t.Reset()
	out, err := build(t)
	if err != nil {
		return err
	}
	for _, in := range inputs {
		in.ZeroGrad()
	}
	t.ReleaseGrads = true
	defer func() { t.ReleaseGrads = false }()
	if err := t.BackwardSeeded(out, w); err != nil {
		return err
	}
	for k, in := range inputs {
		for i, g := range in.Grad.Data {
			if a, b := float64(g), want[k][i]; a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				return fmt.Errorf("autodiff: GradCheck input %q: gradient [%d] is %v under ReleaseGrads, %v without", in.Name, i, a, b)
			}
		}
	}
	return nil
}
