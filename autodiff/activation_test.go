package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func ewtActivationCases[T Float]() []ewtCase[T] {
	un := func(f func(*Tape[T], *Var[T]) *Var[T]) func(*Tape[T], []*Var[T]) *Var[T] {
		return func(tp *Tape[T], in []*Var[T]) *Var[T] { return f(tp, in[0]) }
	}
	kink0 := ewtAwayFrom(0.05, 0)
	return []ewtCase[T]{
		{name: "ReLU", shapes: [][2]int{{4, 5}}, gen: kink0, build: un(ReLU[T])},
		{name: "LeakyReLU", shapes: [][2]int{{4, 5}}, gen: kink0,
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return LeakyReLU(tp, in[0], 0.2) }},
		{name: "ELU", shapes: [][2]int{{4, 5}}, gen: kink0,
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return ELU(tp, in[0], 1.5) }},
		// ELU with alpha 1 is C¹ at 0: the check may straddle the kink.
		{name: "ELU/alpha1AtZero", shapes: [][2]int{{1, 1}}, gen: ewtUniform(0, 0), no32: true,
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return ELU(tp, in[0], 1) }},
		{name: "Tanh", shapes: [][2]int{{4, 5}}, gen: ewtUniform(-2, 2), build: un(Tanh[T])},
		{name: "Sigmoid", shapes: [][2]int{{4, 5}}, gen: ewtUniform(-4, 4), build: un(Sigmoid[T])},
		{name: "Exp", shapes: [][2]int{{4, 5}}, build: un(Exp[T])},
		{name: "Log", shapes: [][2]int{{4, 5}}, gen: ewtUniform(0.5, 2), build: un(Log[T])},
		{name: "Softplus", shapes: [][2]int{{4, 5}}, gen: ewtUniform(-5, 5), build: un(Softplus[T])},
		{name: "Square", shapes: [][2]int{{4, 5}}, build: un(Square[T])},
		{name: "Sqrt", shapes: [][2]int{{4, 5}}, gen: ewtUniform(0.5, 2),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return Sqrt(tp, in[0], 1e-8) }},
		{name: "Clamp", shapes: [][2]int{{4, 5}}, gen: ewtAwayFrom(0.05, -0.5, 0.5),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return Clamp(tp, in[0], -0.5, 0.5) }},
		{name: "chain", shapes: [][2]int{{3, 4}}, gen: ewtAwayFrom(0.05, 0),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
				return Log(tp, Softplus(tp, Sigmoid(tp, Square(tp, ELU(tp, Tanh(tp, in[0]), 1)))))
			}},
	}
}

func TestActivationGradients(t *testing.T) {
	ewtRunBoth(t, ewtActivationCases[float64], ewtActivationCases[float32])
}

// TestActivationForward compares every activation with a direct float64
// formula, including inputs where naive formulas overflow.
func TestActivationForward(t *testing.T) {
	xs := []float64{-800, -40, -1, -0.5, 0, 1e-300, 0.3, 1, 2.5, 40, 800}
	cases := []struct {
		name string
		f    func(*Tape[float64], *Var[float64]) *Var[float64]
		ref  func(x float64) float64
	}{
		{"ReLU", ReLU[float64], func(x float64) float64 { return math.Max(x, 0) }},
		{"LeakyReLU", func(tp *Tape[float64], x *Var[float64]) *Var[float64] { return LeakyReLU(tp, x, 0.01) },
			func(x float64) float64 {
				if x > 0 {
					return x
				}
				return 0.01 * x
			}},
		{"ELU", func(tp *Tape[float64], x *Var[float64]) *Var[float64] { return ELU(tp, x, 2) },
			func(x float64) float64 {
				if x > 0 {
					return x
				}
				return 2 * (math.Exp(x) - 1)
			}},
		{"Tanh", Tanh[float64], math.Tanh},
		{"Sigmoid", Sigmoid[float64], func(x float64) float64 {
			if x < -700 {
				return math.Exp(x) // 1/(1+e^800) underflows the naive form to 0 too
			}
			return 1 / (1 + math.Exp(-x))
		}},
		{"Exp", Exp[float64], math.Exp},
		{"Softplus", Softplus[float64], func(x float64) float64 {
			if x > 30 {
				return x // log(1+eˣ) = x to double precision; the naive form overflows
			}
			return math.Log(1 + math.Exp(x))
		}},
		{"Square", Square[float64], func(x float64) float64 { return x * x }},
		{"Clamp", func(tp *Tape[float64], x *Var[float64]) *Var[float64] { return Clamp(tp, x, -1, 2) },
			func(x float64) float64 { return math.Min(math.Max(x, -1), 2) }},
		{"Scale", func(tp *Tape[float64], x *Var[float64]) *Var[float64] { return Scale(tp, x, -3) },
			func(x float64) float64 { return -3 * x }},
		{"AddScalar", func(tp *Tape[float64], x *Var[float64]) *Var[float64] { return AddScalar(tp, x, 0.5) },
			func(x float64) float64 { return x + 0.5 }},
	}
	x := NewVar(tensor.FromRows([][]float64{xs}), true)
	for _, c := range cases {
		var tp Tape[float64]
		y := c.f(&tp, x)
		for i, v := range xs {
			got, want := y.Value.Data[i], c.ref(v)
			if math.IsNaN(got) || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("%s(%g) = %g, want %g", c.name, v, got, want)
			}
		}
		if err := tp.BackwardSeeded(y, nil); err != nil {
			t.Fatal(err)
		}
		for i, g := range x.Grad.Data {
			if c.name != "Exp" && (math.IsNaN(g) || math.IsInf(g, 0)) {
				t.Errorf("%s: gradient at %g is %g", c.name, xs[i], g)
			}
		}
		x.ZeroGrad()
	}
}

func TestLogSqrtDomain(t *testing.T) {
	x := NewVar(tensor.FromRows([][]float64{{4, 1, 0, -1}}), true)
	var tp Tape[float64]
	l := Log(&tp, x)
	if l.Value.Data[0] != math.Log(4) || l.Value.Data[2] != math.Inf(-1) || !math.IsNaN(l.Value.Data[3]) {
		t.Errorf("Log = %v, want [log 4, 0, −Inf, NaN]", l.Value.Data)
	}
	s := Sqrt(&tp, x, 1e-12)
	if math.Abs(s.Value.Data[0]-2) > 1e-12 || s.Value.Data[2] != 1e-6 || !math.IsNaN(s.Value.Data[3]) {
		t.Errorf("Sqrt = %v, want [2, 1, 1e-6, NaN]", s.Value.Data)
	}
	seed := tensor.FromRows([][]float64{{1, 1, 1, 0}})
	if err := tp.BackwardSeeded(s, seed); err != nil {
		t.Fatal(err)
	}
	// At x = 0 the eps keeps the gradient finite: 1/(2√eps).
	if g := x.Grad.Data[2]; math.Abs(g-5e5) > 1e-3 {
		t.Errorf("d Sqrt(0 + 1e-12) = %g, want 5e5", g)
	}
}

// TestActivationKinks pins the documented (sub)gradients at kinks: ReLU 0 at
// 0, LeakyReLU slope at 0, Clamp 1 on its bounds and 0 outside.
func TestActivationKinks(t *testing.T) {
	cases := []struct {
		name string
		f    func(*Tape[float64], *Var[float64]) *Var[float64]
		xs   []float64
		want []float64
	}{
		{"ReLU", ReLU[float64], []float64{0, -1, 1}, []float64{0, 0, 1}},
		{"LeakyReLU", func(tp *Tape[float64], x *Var[float64]) *Var[float64] { return LeakyReLU(tp, x, 0.1) },
			[]float64{0, -1, 1}, []float64{0.1, 0.1, 1}},
		{"ELU", func(tp *Tape[float64], x *Var[float64]) *Var[float64] { return ELU(tp, x, 0.5) },
			[]float64{0, 1}, []float64{0.5, 1}},
		{"Clamp", func(tp *Tape[float64], x *Var[float64]) *Var[float64] { return Clamp(tp, x, -1, 1) },
			[]float64{-1, 1, 0, -1.5, 1.5}, []float64{1, 1, 1, 0, 0}},
	}
	for _, c := range cases {
		x := NewVar(tensor.FromRows([][]float64{c.xs}), true)
		var tp Tape[float64]
		if err := tp.BackwardSeeded(c.f(&tp, x), nil); err != nil {
			t.Fatal(err)
		}
		for i, g := range x.Grad.Data {
			if g != c.want[i] {
				t.Errorf("%s'(%g) = %g, want %g", c.name, c.xs[i], g, c.want[i])
			}
		}
	}
}

func TestClampBadBoundsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Clamp(lo 1, hi 0) did not panic")
		}
	}()
	var tp Tape[float64]
	Clamp(&tp, NewVar(tensor.NewDense[float64](1, 1), true), 1, 0)
}

// TestActivationEmptyAndParallel runs every activation on a 0×5 matrix and on
// one large enough to be split across goroutines, checking the split result
// against a 1×1 evaluation of each element.
func TestActivationEmptyAndParallel(t *testing.T) {
	fs := map[string]func(*Tape[float32], *Var[float32]) *Var[float32]{
		"ReLU": ReLU[float32], "Tanh": Tanh[float32], "Sigmoid": Sigmoid[float32], "Exp": Exp[float32],
		"Softplus": Softplus[float32], "Square": Square[float32],
		"ELU": func(tp *Tape[float32], x *Var[float32]) *Var[float32] { return ELU(tp, x, 1) },
	}
	rng := rand.New(rand.NewPCG(2, 2))
	big := ewtVar[float32](rng, "big", 256, 300, ewtUniform(-3, 3))
	for name, f := range fs {
		var tp Tape[float32]
		e := f(&tp, NewVar(tensor.NewDense[float32](0, 5), true))
		if r, c := e.Shape(); r != 0 || c != 5 {
			t.Fatalf("%s of 0×5 is %d×%d", name, r, c)
		}
		y := f(&tp, big)
		if err := tp.BackwardSeeded(y, nil); err != nil {
			t.Fatal(err)
		}
		one := NewVar(tensor.NewDense[float32](1, 1), true)
		for i := 0; i < len(big.Value.Data); i += 97 {
			one.Value.Data[0], one.Grad.Data[0] = big.Value.Data[i], 0
			var t1 Tape[float32]
			y1 := f(&t1, one)
			if err := t1.BackwardSeeded(y1, nil); err != nil {
				t.Fatal(err)
			}
			if y1.Value.Data[0] != y.Value.Data[i] || one.Grad.Data[0] != big.Grad.Data[i] {
				t.Fatalf("%s element %d: split (%g, %g), single (%g, %g)", name, i,
					y.Value.Data[i], big.Grad.Data[i], y1.Value.Data[0], one.Grad.Data[0])
			}
		}
		big.ZeroGrad()
	}
}
