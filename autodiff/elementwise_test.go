package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// This file also holds the helpers shared by the tests of the elementwise,
// activation, shape, reduce, norm, dropout and loss ops (prefix ewt).

// ewtCase is one gradient-check case: inputs of the given shapes filled by
// gen (uniform in [−1, 1] when nil) and the computation to check.
type ewtCase[T Float] struct {
	name   string
	shapes [][2]int
	gen    func(rng *rand.Rand) float64
	build  func(tp *Tape[T], in []*Var[T]) *Var[T]
	no32   bool // skip in float32: the case is not well conditioned at eps 1e-2
}

// ewtUniform returns a generator of uniform values in [lo, hi).
func ewtUniform(lo, hi float64) func(*rand.Rand) float64 {
	return func(rng *rand.Rand) float64 { return lo + (hi-lo)*rng.Float64() }
}

// ewtAwayFrom returns a generator of values in [−1, 1] at least gap away from
// every kink, so that finite differences never straddle one.
func ewtAwayFrom(gap float64, kinks ...float64) func(*rand.Rand) float64 {
	return func(rng *rand.Rand) float64 {
		for {
			v := 2*rng.Float64() - 1
			ok := true
			for _, k := range kinks {
				if math.Abs(v-k) < gap {
					ok = false
				}
			}
			if ok {
				return v
			}
		}
	}
}

// ewtVar returns a named r×c leaf requiring a gradient, filled by gen.
func ewtVar[T Float](rng *rand.Rand, name string, r, c int, gen func(*rand.Rand) float64) *Var[T] {
	if gen == nil {
		gen = ewtUniform(-1, 1)
	}
	m := tensor.NewDense[T](r, c)
	for i := range m.Data {
		m.Data[i] = T(gen(rng))
	}
	v := NewVar(m, true)
	v.Name = name
	return v
}

// ewtRunGradCases gradient-checks every case at the given eps and tolerance,
// and checks that a second backward pass accumulates into (+=) the input
// gradients rather than overwriting them.
func ewtRunGradCases[T Float](t *testing.T, cases []ewtCase[T], eps, tol float64) {
	t.Helper()
	var zero T
	f32 := any(zero) == any(float32(0))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if f32 && tc.no32 {
				t.Skip("not well conditioned in float32")
			}
			rng := rand.New(rand.NewPCG(7, uint64(len(tc.name))))
			in := make([]*Var[T], len(tc.shapes))
			for k, s := range tc.shapes {
				in[k] = ewtVar[T](rng, fmt.Sprintf("in%d", k), s[0], s[1], tc.gen)
			}
			build := func(tp *Tape[T]) (*Var[T], error) { return tc.build(tp, in), nil }
			rel, err := GradCheck(build, in, eps)
			if err != nil {
				t.Fatal(err)
			}
			if rel > tol {
				t.Errorf("relative gradient error %.3g > %.3g", rel, tol)
			}

			// Accumulation: two backward passes give twice the gradient.
			var tp Tape[T]
			out := tc.build(&tp, in)
			first := make([][]float64, len(in))
			for _, v := range in {
				v.ZeroGrad()
			}
			if err := tp.BackwardSeeded(out, nil); err != nil {
				t.Fatal(err)
			}
			for k, v := range in {
				for _, g := range v.Grad.Data {
					first[k] = append(first[k], float64(g))
				}
			}
			if err := tp.BackwardSeeded(out, nil); err != nil {
				t.Fatal(err)
			}
			for k, v := range in {
				for i, g := range v.Grad.Data {
					want := 2 * first[k][i]
					if math.Abs(float64(g)-want) > 1e-4*(1+math.Abs(want)) {
						t.Fatalf("input %d element %d: after two backward passes grad %g, want %g (does Backward overwrite?)", k, i, g, want)
					}
				}
			}
		})
	}
}

// ewtRunBoth runs the cases of mk in float64 (eps 1e-6, tolerance 1e-6) and
// float32 (eps 1e-2, tolerance 1e-3), the thresholds of DESIGN.md §3.
func ewtRunBoth(t *testing.T, mk64 func() []ewtCase[float64], mk32 func() []ewtCase[float32]) {
	t.Run("float64", func(t *testing.T) { ewtRunGradCases(t, mk64(), 1e-6, 1e-6) })
	t.Run("float32", func(t *testing.T) { ewtRunGradCases(t, mk32(), 1e-2, 1e-3) })
}

func ewtElementwiseCases[T Float]() []ewtCase[T] {
	bin := func(f func(*Tape[T], *Var[T], *Var[T]) *Var[T]) func(*Tape[T], []*Var[T]) *Var[T] {
		return func(tp *Tape[T], in []*Var[T]) *Var[T] { return f(tp, in[0], in[1]) }
	}
	var cs []ewtCase[T]
	shapes := []struct {
		name string
		a, b [2]int
	}{
		{"same", [2]int{4, 3}, [2]int{4, 3}},
		{"row", [2]int{4, 3}, [2]int{1, 3}},
		{"col", [2]int{4, 3}, [2]int{4, 1}},
		{"scalar", [2]int{4, 3}, [2]int{1, 1}},
		{"rowFirst", [2]int{1, 3}, [2]int{4, 3}},
		{"colFirst", [2]int{4, 1}, [2]int{4, 3}},
		{"outer", [2]int{4, 1}, [2]int{1, 3}},
		{"1x1", [2]int{1, 1}, [2]int{1, 1}},
	}
	for _, op := range []struct {
		name string
		f    func(*Tape[T], *Var[T], *Var[T]) *Var[T]
	}{{"Add", Add[T]}, {"Sub", Sub[T]}, {"Mul", Mul[T]}, {"Div", Div[T]}} {
		for _, s := range shapes {
			// Values away from 0 keep Div well conditioned.
			cs = append(cs, ewtCase[T]{name: op.name + "/" + s.name, shapes: [][2]int{s.a, s.b},
				gen: ewtAwayFrom(0.3, 0), build: bin(op.f)})
		}
		// The same Var on both sides: both gradient paths land in one buffer.
		f := op.f
		cs = append(cs, ewtCase[T]{name: op.name + "/aliased", shapes: [][2]int{{3, 5}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return f(tp, Tanh(tp, in[0]), in[0]) }})
	}
	cs = append(cs,
		ewtCase[T]{name: "Scale", shapes: [][2]int{{3, 4}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return Scale(tp, in[0], -2.5) }},
		ewtCase[T]{name: "AddScalar", shapes: [][2]int{{3, 4}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return AddScalar(tp, in[0], 0.75) }},
		ewtCase[T]{name: "MulScalarVar", shapes: [][2]int{{3, 4}, {1, 1}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return MulScalarVar(tp, in[0], in[1]) }},
		ewtCase[T]{name: "chain", shapes: [][2]int{{5, 3}, {1, 3}, {5, 1}}, gen: ewtAwayFrom(0.3, 0),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
				return Div(tp, Mul(tp, Sub(tp, Add(tp, in[0], in[1]), in[2]), in[0]), in[2])
			}},
	)
	return cs
}

func TestElementwiseGradients(t *testing.T) {
	ewtRunBoth(t, ewtElementwiseCases[float64], ewtElementwiseCases[float32])
}

func TestBinaryForwardBroadcast(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct{ a, b, out [2]int }{
		{[2]int{3, 4}, [2]int{3, 4}, [2]int{3, 4}},
		{[2]int{3, 4}, [2]int{1, 4}, [2]int{3, 4}},
		{[2]int{3, 4}, [2]int{3, 1}, [2]int{3, 4}},
		{[2]int{1, 4}, [2]int{3, 4}, [2]int{3, 4}},
		{[2]int{3, 1}, [2]int{1, 4}, [2]int{3, 4}},
		{[2]int{3, 4}, [2]int{1, 1}, [2]int{3, 4}},
		{[2]int{0, 4}, [2]int{1, 4}, [2]int{0, 4}}, // a row vector stretches to zero rows
		{[2]int{0, 4}, [2]int{0, 4}, [2]int{0, 4}},
	}
	at := func(v *Var[float64], i, j int) float64 {
		return v.Value.At(min(i, v.Value.Rows-1), min(j, v.Value.Cols-1))
	}
	for _, c := range cases {
		a := ewtVar[float64](rng, "a", c.a[0], c.a[1], nil)
		b := ewtVar[float64](rng, "b", c.b[0], c.b[1], nil)
		var tp Tape[float64]
		for _, op := range []struct {
			name string
			f    func(*Tape[float64], *Var[float64], *Var[float64]) *Var[float64]
			ref  func(x, y float64) float64
		}{
			{"Add", Add[float64], func(x, y float64) float64 { return x + y }},
			{"Sub", Sub[float64], func(x, y float64) float64 { return x - y }},
			{"Mul", Mul[float64], func(x, y float64) float64 { return x * y }},
			{"Div", Div[float64], func(x, y float64) float64 { return x / y }},
		} {
			out := op.f(&tp, a, b)
			if r, cc := out.Shape(); r != c.out[0] || cc != c.out[1] {
				t.Fatalf("%s %v %v: shape %d×%d, want %v", op.name, c.a, c.b, r, cc, c.out)
			}
			for i := 0; i < c.out[0]; i++ {
				for j := 0; j < c.out[1]; j++ {
					if got, want := out.Value.At(i, j), op.ref(at(a, i, j), at(b, i, j)); got != want {
						t.Fatalf("%s %v %v (%d,%d) = %g, want %g", op.name, c.a, c.b, i, j, got, want)
					}
				}
			}
			// Backward on empty or full shapes must run without panicking.
			if out.Value.Len() > 0 {
				if err := tp.BackwardSeeded(out, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestBinaryShapeMismatchPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Add of 3×4 and 2×4 did not panic")
		}
	}()
	var tp Tape[float64]
	Add(&tp, NewVar(tensor.NewDense[float64](3, 4), true), NewVar(tensor.NewDense[float64](2, 4), true))
}

// TestBinaryParallelMatchesSerial exercises the row-parallel paths on a
// matrix large enough for tensor.ParallelFor to split it.
func TestBinaryParallelMatchesSerial(t *testing.T) {
	testBinaryParallel[float64](t, 1e-15, 1e-12)
	testBinaryParallel[float32](t, 1e-6, 1e-4) // the AVX2 vector kernels
}

func testBinaryParallel[T Float](t *testing.T, tol, biasTol float64) {
	rng := rand.New(rand.NewPCG(3, 3))
	a := ewtVar[T](rng, "a", 300, 200, nil)
	b := ewtVar[T](rng, "b", 300, 200, nil)
	bias := ewtVar[T](rng, "bias", 1, 200, nil)
	var tp Tape[T]
	out := Add(&tp, Mul(&tp, a, b), bias)
	seed := tensor.NewDense[T](300, 200)
	for i := range seed.Data {
		seed.Data[i] = T(rng.Float64())
	}
	if err := tp.BackwardSeeded(out, seed); err != nil {
		t.Fatal(err)
	}
	near := func(got T, want float64, tol float64) bool {
		return math.Abs(float64(got)-want) <= tol*(1+math.Abs(want))
	}
	for i := 0; i < 300; i++ {
		for j := 0; j < 200; j++ {
			k := i*200 + j
			if want := float64(a.Value.Data[k]*b.Value.Data[k]) + float64(bias.Value.Data[j]); !near(out.Value.Data[k], want, tol) {
				t.Fatalf("%T forward (%d,%d) = %g, want %g", T(0), i, j, out.Value.Data[k], want)
			}
			if want := float64(seed.Data[k]) * float64(b.Value.Data[k]); !near(a.Grad.Data[k], want, tol) {
				t.Fatalf("%T grad a (%d,%d) = %g, want %g", T(0), i, j, a.Grad.Data[k], want)
			}
		}
	}
	for j := 0; j < 200; j++ {
		var want float64
		for i := 0; i < 300; i++ {
			want += float64(seed.Data[i*200+j])
		}
		if !near(bias.Grad.Data[j], want, biasTol) {
			t.Fatalf("%T bias grad %d = %g, want %g", T(0), j, bias.Grad.Data[j], want)
		}
	}
}

func TestMulScalarVarShapePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("MulScalarVar with a 1×2 scalar did not panic")
		}
	}()
	var tp Tape[float64]
	MulScalarVar(&tp, NewVar(tensor.NewDense[float64](3, 4), true), NewVar(tensor.NewDense[float64](1, 2), true))
}

func TestNoGradTapeComputesValuesOnly(t *testing.T) {
	tp := Tape[float64]{NoGrad: true}
	x := NewVar(tensor.FromRows([][]float64{{1, -2}, {3, 4}}), true)
	y := Sum(&tp, ReLU(&tp, Add(&tp, x, x)))
	if y.RequiresGrad() {
		t.Fatal("output of a NoGrad tape requires a gradient")
	}
	if got := y.Value.Data[0]; got != 16 {
		t.Fatalf("sum = %g, want 16", got)
	}
}

// ewtBuggyOp is y = 2x with a deliberately wrong backward (3·g), used to
// prove that GradCheck can fail.
type ewtBuggyOp[T Float] struct {
	x      *Var[T]
	factor T
}

func (p *ewtBuggyOp[T]) Backward(out *Var[T]) {
	for i, g := range out.Grad.Data {
		p.x.Grad.Data[i] += p.factor * g
	}
}

func ewtDouble[T Float](tp *Tape[T], x *Var[T], backFactor T) *Var[T] {
	out := tp.Node(x.Value.Rows, x.Value.Cols, x)
	p := OpOf[ewtBuggyOp[T]](out)
	p.x, p.factor = x, backFactor
	for i, v := range x.Value.Data {
		out.Value.Data[i] = 2 * v
	}
	return out
}

func TestGradCheckDetectsWrongBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x := ewtVar[float64](rng, "x", 3, 4, nil)
	for _, tc := range []struct {
		factor float64
		fail   bool
	}{{2, false}, {3, true}, {-2, true}, {0, true}, {2.0001, true}} {
		build := func(tp *Tape[float64]) (*Var[float64], error) {
			return Tanh(tp, ewtDouble(tp, x, tc.factor)), nil
		}
		rel, err := GradCheck(build, []*Var[float64]{x}, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if failed := rel > 1e-6; failed != tc.fail {
			t.Errorf("backward factor %g: relative error %.3g, GradCheck failing = %v, want %v", tc.factor, rel, failed, tc.fail)
		}
	}
}

// ewtRaceEnabled reports whether the test binary runs under the race
// detector, whose sync.Pool (used by tensor's worker pool) drops items on
// purpose, so allocation counts are not meaningful there. Read from the build
// settings, so that no build-tagged file is needed.
func ewtRaceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// ewtMLP is a small network: a linear layer (MatMul), LayerNorm,
// activations, dropout, concatenation, slicing, a per-feature scaling and a
// masked cross-entropy plus a regulariser.
type ewtMLP struct {
	x, w, b, s, gamma, beta, temp *Var[float32]
	labels                        Labels
	rows                          []int32
	rng                           *rand.Rand
}

func newEwtMLP(n, f int) *ewtMLP {
	rng := rand.New(rand.NewPCG(9, 9))
	m := &ewtMLP{
		x:     ewtVar[float32](rng, "x", n, f, nil),
		w:     ewtVar[float32](rng, "w", f, f, nil),
		s:     ewtVar[float32](rng, "s", 1, f, nil),
		b:     ewtVar[float32](rng, "b", 1, f, nil),
		gamma: ewtVar[float32](rng, "gamma", 1, f, ewtUniform(0.5, 1.5)),
		beta:  ewtVar[float32](rng, "beta", 1, f, nil),
		temp:  ewtVar[float32](rng, "temp", 1, 1, ewtUniform(0.5, 1.5)),
		rng:   rand.New(rand.NewPCG(1, 2)),
	}
	y := make([]int32, n)
	for i := range y {
		y[i] = int32(i % 5)
	}
	var err error
	if m.labels, err = NewLabels(y, 5); err != nil {
		panic(err)
	}
	for i := 0; i < n; i += 3 {
		m.rows = append(m.rows, int32(i))
	}
	return m
}

func (m *ewtMLP) step(tp *Tape[float32]) error {
	tp.Reset()
	h := Add(tp, MatMul(tp, Mul(tp, m.x, m.s), m.w), m.b)
	h = LayerNorm(tp, h, m.gamma, m.beta, LayerNormEps)
	h = ReLU(tp, h)
	h = Dropout(tp, h, 0.5, m.rng, true)
	h = ConcatCols(tp, h, Tanh(tp, m.x))
	h = SliceCols(tp, h, 3, 8) // 5 columns: the classes
	h = MulScalarVar(tp, Softplus(tp, h), m.temp)
	loss := SoftmaxCrossEntropy(tp, h, m.labels, m.rows)
	reg := Mean(tp, Square(tp, SumRows(tp, m.s)))
	return tp.Backward(Add(tp, loss, reg))
}

// TestMLPStepAllocatesNothing runs the network at a small size (every op
// serial) and at one where the row-parallel kernels split their work.
func TestMLPStepAllocatesNothing(t *testing.T) {
	t.Run("small", func(t *testing.T) { ewtMLPAllocs(t, 32, 8) })
	t.Run("parallel", func(t *testing.T) { ewtMLPAllocs(t, 600, 32) })
}

func ewtMLPAllocs(t *testing.T, n, f int) {
	m := newEwtMLP(n, f)
	var tp Tape[float32]
	for i := 0; i < 3; i++ { // warm the tape's buffers and op records
		if err := m.step(&tp); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	allocs := testing.AllocsPerRun(50, func() {
		if e := m.step(&tp); e != nil {
			err = e
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 && !ewtRaceEnabled() {
		t.Fatalf("steady-state forward+backward allocates %v times, want 0", allocs)
	}
	for _, p := range []*Var[float32]{m.w, m.s, m.b, m.gamma, m.beta, m.temp} {
		for _, g := range p.Grad.Data {
			if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) {
				t.Fatalf("%s has a non-finite gradient", p.Name)
			}
		}
	}
}

// BenchmarkAddBiasReLU2708x64 times a bias add and ReLU, forward+backward,
// at Cora's hidden size: the elementwise tail of a GCN layer.
func BenchmarkAddBiasReLU2708x64(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := ewtVar[float32](rng, "x", 2708, 64, nil)
	bias := ewtVar[float32](rng, "bias", 1, 64, nil)
	var tp Tape[float32]
	b.ReportAllocs()
	for b.Loop() {
		tp.Reset()
		y := ReLU(&tp, Add(&tp, x, bias))
		if err := tp.BackwardSeeded(y, nil); err != nil {
			b.Fatal(err)
		}
	}
}
