package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func ewtNormCases[T Float]() []ewtCase[T] {
	ln := func(tp *Tape[T], in []*Var[T]) *Var[T] { return LayerNorm(tp, in[0], in[1], in[2], LayerNormEps) }
	return []ewtCase[T]{
		{name: "LayerNorm", shapes: [][2]int{{5, 6}, {1, 6}, {1, 6}}, gen: ewtUniform(-2, 2), build: ln},
		{name: "LayerNorm/noAffine", shapes: [][2]int{{5, 6}}, gen: ewtUniform(-2, 2),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return LayerNorm(tp, in[0], nil, nil, LayerNormEps) }},
		{name: "LayerNorm/gammaOnly", shapes: [][2]int{{4, 3}, {1, 3}}, gen: ewtUniform(-2, 2),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return LayerNorm(tp, in[0], in[1], nil, LayerNormEps) }},
		// With two columns x̂ = ±√(v/(v+eps)) ≈ ±1: the x gradient is
		// O(eps/v), all cancellation, so only float64 resolves it.
		{name: "LayerNorm/2cols", shapes: [][2]int{{4, 2}, {1, 2}, {1, 2}}, gen: ewtUniform(-2, 2), build: ln, no32: true},
		{name: "LayerNorm/1x1", shapes: [][2]int{{1, 1}, {1, 1}, {1, 1}}, build: ln},
		{name: "LayerNorm/chain", shapes: [][2]int{{4, 5}, {1, 5}, {1, 5}}, gen: ewtUniform(-2, 2),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
				return Tanh(tp, LayerNorm(tp, Add(tp, in[0], in[2]), in[1], in[2], LayerNormEps))
			}},
	}
}

func TestLayerNormGradients(t *testing.T) {
	ewtRunBoth(t, ewtNormCases[float64], ewtNormCases[float32])
}

// TestLayerNormConstantRows: a constant row normalises to 0 (output = beta),
// and gradients stay finite there; checked by finite differences in float64,
// where the function is smooth because eps dominates the variance.
func TestLayerNormConstantRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	x := ewtVar[float64](rng, "x", 3, 4, nil)
	for j := 0; j < 4; j++ {
		x.Value.Set(1, j, 2.5) // row 1 constant
		x.Value.Set(2, j, 0)   // row 2 all zero
	}
	gamma := ewtVar[float64](rng, "gamma", 1, 4, nil)
	beta := ewtVar[float64](rng, "beta", 1, 4, nil)
	var tp Tape[float64]
	y := LayerNorm(&tp, x, gamma, beta, LayerNormEps)
	for _, i := range []int{1, 2} {
		for j := 0; j < 4; j++ {
			if got := y.Value.At(i, j); got != beta.Value.Data[j] {
				t.Errorf("constant row %d col %d = %g, want beta %g", i, j, got, beta.Value.Data[j])
			}
		}
	}
	rel, err := GradCheck(func(tp *Tape[float64]) (*Var[float64], error) {
		return LayerNorm(tp, x, gamma, beta, LayerNormEps), nil
	}, []*Var[float64]{x, gamma, beta}, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if rel > 1e-6 {
		t.Errorf("relative gradient error %.3g", rel)
	}
}

// TestLayerNormForward compares with a direct float64 evaluation of
// PyTorch's definition, including a row with a large common offset.
func TestLayerNormForward(t *testing.T) {
	rows := [][]float64{{1, 2, 3, 4}, {-1, 0.5, 0.25, 8}, {1e6 + 1, 1e6 - 1, 1e6 + 2, 1e6}}
	x := NewVar(tensor.FromRows(rows), false)
	gamma := NewVar(tensor.FromRows([][]float64{{1, 2, 0.5, -1}}), false)
	beta := NewVar(tensor.FromRows([][]float64{{0, 1, -1, 0.5}}), false)
	var tp Tape[float64]
	y := LayerNorm(&tp, x, gamma, beta, LayerNormEps)
	for i, r := range rows {
		var mu, v float64
		for _, a := range r {
			mu += a / 4
		}
		for _, a := range r {
			v += (a - mu) * (a - mu) / 4 // biased variance
		}
		for j, a := range r {
			want := (a-mu)/math.Sqrt(v+LayerNormEps)*gamma.Value.Data[j] + beta.Value.Data[j]
			if got := y.Value.At(i, j); math.Abs(got-want) > 1e-9 {
				t.Errorf("(%d,%d) = %.12g, want %.12g", i, j, got, want)
			}
		}
	}
}

func TestLayerNormEmptyAndPanics(t *testing.T) {
	var tp Tape[float32]
	x := NewVar(tensor.NewDense[float32](0, 4), true)
	g, b := NewParam[float32]("g", 1, 4), NewParam[float32]("b", 1, 4)
	y := LayerNorm(&tp, x, g, b, LayerNormEps)
	if r, c := y.Shape(); r != 0 || c != 4 {
		t.Fatalf("LayerNorm of 0×4 is %d×%d", r, c)
	}
	if err := tp.BackwardSeeded(Sum(&tp, y), nil); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("LayerNorm with a 1×3 gamma on 4 columns did not panic")
		}
	}()
	LayerNorm(&tp, x, NewParam[float32]("g", 1, 3), nil, LayerNormEps)
}

// TestLayerNormParallelMatchesSerial runs a matrix that tensor.ParallelFor
// splits and compares every row with a single-row evaluation.
func TestLayerNormParallelMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	const R, C = 600, 64
	x := ewtVar[float32](rng, "x", R, C, nil)
	g := ewtVar[float32](rng, "g", 1, C, nil)
	b := ewtVar[float32](rng, "b", 1, C, nil)
	seed := tensor.NewDense[float32](R, C)
	for i := range seed.Data {
		seed.Data[i] = float32(rng.NormFloat64())
	}
	var tp Tape[float32]
	y := LayerNorm(&tp, x, g, b, LayerNormEps)
	if err := tp.BackwardSeeded(y, seed); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, R / 2, R - 1} {
		xi := NewVar(tensor.FromRows([][]float32{x.Value.Row(i)}), true)
		var t1 Tape[float32]
		yi := LayerNorm(&t1, xi, g, b, LayerNormEps)
		if err := t1.BackwardSeeded(yi, tensor.FromRows([][]float32{seed.Row(i)})); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < C; j++ {
			if yi.Value.Data[j] != y.Value.At(i, j) || xi.Grad.Data[j] != x.Grad.At(i, j) {
				t.Fatalf("row %d col %d: split (%g, %g), single (%g, %g)", i, j,
					y.Value.At(i, j), x.Grad.At(i, j), yi.Value.Data[j], xi.Grad.Data[j])
			}
		}
	}
}

func benchmarkLayerNorm(b *testing.B, R, C int) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := ewtVar[float32](rng, "x", R, C, nil)
	g := ewtVar[float32](rng, "g", 1, C, nil)
	be := ewtVar[float32](rng, "b", 1, C, nil)
	seed := tensor.NewDense[float32](R, C)
	for i := range seed.Data {
		seed.Data[i] = 1
	}
	var tp Tape[float32]
	b.SetBytes(int64(R * C * 4))
	b.ReportAllocs()
	for b.Loop() {
		tp.Reset()
		y := LayerNorm(&tp, x, g, be, LayerNormEps)
		if err := tp.BackwardSeeded(y, seed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLayerNorm times forward+backward at Cora's hidden size.
func BenchmarkLayerNorm2708x64(b *testing.B) { benchmarkLayerNorm(b, 2708, 64) }

// BenchmarkLayerNorm2708x7 is the same at Cora's class count.
func BenchmarkLayerNorm2708x7(b *testing.B) { benchmarkLayerNorm(b, 2708, 7) }
