package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func ewtReLUDropoutCases[T Float]() []ewtCase[T] {
	// A fresh source per pass: GradCheck needs the same mask every time.
	rd := func(p float64, training bool) func(tp *Tape[T], in []*Var[T]) *Var[T] {
		return func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return ReLUDropout(tp, in[0], p, rand.New(rand.NewPCG(3, 4)), training)
		}
	}
	kink0 := ewtAwayFrom(0.05, 0)
	return []ewtCase[T]{
		{name: "p0.5", shapes: [][2]int{{6, 7}}, gen: kink0, build: rd(0.5, true)},
		{name: "p0.1", shapes: [][2]int{{5, 1}}, gen: kink0, build: rd(0.1, true)},
		{name: "evaluation", shapes: [][2]int{{3, 3}}, gen: kink0, build: rd(0.5, false)},
		{name: "p0", shapes: [][2]int{{3, 3}}, gen: kink0, build: rd(0, true)},
	}
}

func TestReLUDropoutGradients(t *testing.T) {
	ewtRunBoth(t, ewtReLUDropoutCases[float64], ewtReLUDropoutCases[float32])
}

// TestReLUDropoutMatchesChain checks that ReLUDropout gives Dropout(ReLU(x))'s
// values and gradients bit for bit from the same random source: several
// dropout blocks with a partial last one, inputs with zeros of both signs,
// training and evaluation, p = 0, ½ and 1, float32 and float64.
func TestReLUDropoutMatchesChain(t *testing.T) {
	t.Run("float32", func(t *testing.T) { reluDropoutMatchesChain[float32](t) })
	t.Run("float64", func(t *testing.T) { reluDropoutMatchesChain[float64](t) })
}

func reluDropoutMatchesChain[T Float](t *testing.T) {
	const R, C = 3*dropoutBlock/64 + 5, 64
	rng := rand.New(rand.NewPCG(5, 6))
	x := ewtVar[T](rng, "x", R, C, ewtUniform(-1, 1))
	for i := 0; i < len(x.Value.Data); i += 37 {
		x.Value.Data[i] = 0
		x.Value.Data[i+1] = T(math.Copysign(0, -1))
	}
	up := make([]T, R*C)
	for i := range up {
		up[i] = T(rng.Float64()*2 - 1)
	}
	bits := func(v T) uint64 { return math.Float64bits(float64(v)) }
	for _, tc := range []struct {
		p        float64
		training bool
	}{{0.5, true}, {0.3, true}, {0, true}, {1, true}, {0.5, false}} {
		run := func(fused bool) (y, gx []T) {
			clear(x.Grad.Data)
			var tp Tape[T]
			src := rand.New(rand.NewPCG(7, 8))
			var out *Var[T]
			if fused {
				out = ReLUDropout(&tp, x, tc.p, src, tc.training)
			} else {
				out = Dropout(&tp, ReLU(&tp, x), tc.p, src, tc.training)
			}
			seed := tensor.NewDense[T](R, C)
			copy(seed.Data, up)
			if err := tp.BackwardSeeded(out, seed); err != nil {
				t.Fatal(err)
			}
			return append([]T(nil), out.Value.Data...), append([]T(nil), x.Grad.Data...)
		}
		y0, g0 := run(false)
		y1, g1 := run(true)
		for i := range y0 {
			if bits(y0[i]) != bits(y1[i]) {
				t.Fatalf("p = %g, training %v: output %d = %v, the chain gives %v", tc.p, tc.training, i, y1[i], y0[i])
			}
			if bits(g0[i]) != bits(g1[i]) {
				t.Fatalf("p = %g, training %v: gradient %d = %v, the chain gives %v", tc.p, tc.training, i, g1[i], g0[i])
			}
		}
	}
}

// ReLUDropout takes one tape position in training and in evaluation, and
// rejects what Dropout rejects.
func TestReLUDropoutPositionsAndBadInput(t *testing.T) {
	x := NewVar(tensor.FromRows([][]float64{{1, -2, 3}}), true)
	rng := rand.New(rand.NewPCG(1, 1))
	var tp Tape[float64]
	ReLUDropout(&tp, x, 0.5, rng, true)
	ReLUDropout(&tp, x, 0.5, nil, false)
	if tp.Len() != 2 {
		t.Errorf("two calls took %d tape positions, want 2", tp.Len())
	}
	for _, tc := range []struct {
		p   float64
		rng *rand.Rand
	}{{-0.1, rng}, {1.5, rng}, {math.NaN(), rng}, {0.5, nil}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ReLUDropout p = %g (rng %v) did not panic", tc.p, tc.rng != nil)
				}
			}()
			ReLUDropout(&tp, x, tc.p, tc.rng, true)
		}()
	}
}

// BenchmarkReLUDropout2708x64 times forward+backward of the fused op at
// Cora's hidden size; BenchmarkReLUThenDropout2708x64 the two ops.
func BenchmarkReLUDropout2708x64(b *testing.B) { benchReLUDropout(b, true) }

func BenchmarkReLUThenDropout2708x64(b *testing.B) { benchReLUDropout(b, false) }

func benchReLUDropout(b *testing.B, fused bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := ewtVar[float32](rng, "x", 2708, 64, ewtUniform(-1, 1))
	var tp Tape[float32]
	b.ReportAllocs()
	for b.Loop() {
		tp.Reset()
		var y *Var[float32]
		if fused {
			y = ReLUDropout(&tp, x, 0.5, rng, true)
		} else {
			y = Dropout(&tp, ReLU(&tp, x), 0.5, rng, true)
		}
		if err := tp.BackwardSeeded(y, nil); err != nil {
			b.Fatal(err)
		}
	}
}
