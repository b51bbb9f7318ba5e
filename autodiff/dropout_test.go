package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

func ewtDropoutCases[T Float]() []ewtCase[T] {
	// A fresh source per pass: GradCheck needs the same mask every time.
	drop := func(p float64) func(tp *Tape[T], in []*Var[T]) *Var[T] {
		return func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return Dropout(tp, in[0], p, rand.New(rand.NewPCG(3, 4)), true)
		}
	}
	return []ewtCase[T]{
		{name: "p0.5", shapes: [][2]int{{6, 7}}, build: drop(0.5)},
		{name: "p0.1", shapes: [][2]int{{5, 1}}, build: drop(0.1)},
		{name: "oddLength", shapes: [][2]int{{3, 3}}, build: drop(0.3)},
	}
}

func TestDropoutGradients(t *testing.T) {
	ewtRunBoth(t, ewtDropoutCases[float64], ewtDropoutCases[float32])
}

func TestDropoutForward(t *testing.T) {
	const R, C, p = 200, 100, 0.3
	x := NewVar(tensor.NewDense[float32](R, C), true)
	for i := range x.Value.Data {
		x.Value.Data[i] = float32(i%17) + 1
	}
	var tp Tape[float32]
	y := Dropout(&tp, x, p, rand.New(rand.NewPCG(1, 1)), true)
	dropped := 0
	keep := float32(1 / (1 - p))
	for i, v := range y.Value.Data {
		switch v {
		case 0:
			dropped++
		case x.Value.Data[i] * keep:
		default:
			t.Fatalf("element %d = %g, neither 0 nor x/(1−p) = %g", i, v, x.Value.Data[i]*keep)
		}
	}
	// Binomial(20000, 0.3): sd ≈ 65; allow 5 sd.
	if frac := float64(dropped) / (R * C); math.Abs(frac-p) > 5*math.Sqrt(p*(1-p)/(R*C)) {
		t.Errorf("dropped fraction %.4f, want ≈ %g", frac, p)
	}
	// Same seed, same mask; another seed, another mask.
	var t2 Tape[float32]
	y2 := Dropout(&t2, x, p, rand.New(rand.NewPCG(1, 1)), true)
	y3 := Dropout(&t2, x, p, rand.New(rand.NewPCG(2, 1)), true)
	same3 := true
	for i := range y.Value.Data {
		if y.Value.Data[i] != y2.Value.Data[i] {
			t.Fatal("same seed gave a different mask")
		}
		same3 = same3 && y.Value.Data[i] == y3.Value.Data[i]
	}
	if same3 {
		t.Error("different seeds gave the same mask")
	}
	// Backward applies the same mask.
	if err := tp.BackwardSeeded(y, nil); err != nil {
		t.Fatal(err)
	}
	for i, g := range x.Grad.Data {
		want := keep
		if y.Value.Data[i] == 0 {
			want = 0
		}
		if g != want {
			t.Fatalf("grad %d = %g, want %g", i, g, want)
		}
	}
}

func TestDropoutIdentityAndExtremes(t *testing.T) {
	x := NewVar(tensor.FromRows([][]float64{{1, 2, 3}}), true)
	rng := rand.New(rand.NewPCG(1, 1))
	var tp Tape[float64]
	if y := Dropout(&tp, x, 0.5, rng, false); y != x {
		t.Error("evaluation-mode Dropout is not the identity")
	}
	if y := Dropout(&tp, x, 0, rng, true); y != x {
		t.Error("Dropout with p = 0 is not the identity")
	}
	if y := Dropout(&tp, x, 0.5, nil, false); y != x {
		t.Error("evaluation-mode Dropout needs no random source")
	}
	// In evaluation Dropout takes the position its training pass records
	// at (Tape.Skip), so that both passes can share a tape; with p = 0 it
	// has no position in either.
	if tp.Len() != 2 {
		t.Errorf("identity Dropout took %d tape positions, want 2 (the two evaluation-mode calls)", tp.Len())
	}
	y := Dropout(&tp, x, 1, rng, true)
	for _, v := range y.Value.Data {
		if v != 0 {
			t.Fatalf("Dropout p = 1 gave %v, want zeros", y.Value.Data)
		}
	}
	if err := tp.BackwardSeeded(y, nil); err != nil {
		t.Fatal(err)
	}
	for _, g := range x.Grad.Data {
		if g != 0 || math.IsNaN(g) {
			t.Fatalf("Dropout p = 1 gradient %v, want zeros", x.Grad.Data)
		}
	}
	for _, p := range []float64{-0.1, 1.5, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Dropout p = %g did not panic", p)
				}
			}()
			Dropout(&tp, x, p, rng, true)
		}()
	}
}

// BenchmarkDropout2708x64 times forward+backward of training-mode dropout
// at Cora's hidden size.
func BenchmarkDropout2708x64(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := ewtVar[float32](rng, "x", 2708, 64, nil)
	var tp Tape[float32]
	b.ReportAllocs()
	for b.Loop() {
		tp.Reset()
		y := Dropout(&tp, x, 0.5, rng, true)
		if err := tp.BackwardSeeded(y, nil); err != nil {
			b.Fatal(err)
		}
	}
}
