package capsule

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// randGateInputs returns the gate's inputs for n rows and K perspectives
// with all three terms, c in [0.1, 0.9], and the list of those inputs.
func randGateInputs[T autodiff.Float](rng *rand.Rand, n, K int) (gateInputs[T], []*autodiff.Var[T]) {
	in := gateInputs[T]{kappa: randVar[T](rng, "kappa", n, 1, 0.5), betaRow: randVar[T](rng, "betaRow", 1, K, 1),
		alphaC: randVar[T](rng, "ac", 1, 1, 1), a: randVar[T](rng, "a", n, K, 1), alphaA: randVar[T](rng, "aa", 1, 1, 1),
		c: randVar[T](rng, "c", n, 1, 0), h: randVar[T](rng, "h", n, K, 1), wc: randVar[T](rng, "wc", K, K, 0.5),
		alphaR: randVar[T](rng, "ar", 1, 1, 1)}
	for i := range in.c.Value.Data {
		in.c.Value.Data[i] = T(0.1 + 0.8*rng.Float64())
	}
	return in, []*autodiff.Var[T]{in.kappa, in.betaRow, in.alphaC, in.a, in.alphaA, in.c, in.h, in.wc, in.alphaR}
}

// The unrolled K = 4 gate kernels give the generic kernels' bits, values
// and every gradient, and the float64 form still passes the gradient check
// through them (linkGateGradCheck uses K = 3, the generic path).
func TestLinkGate4MatchesGeneric(t *testing.T) {
	t.Run("float32", func(t *testing.T) { linkGate4MatchesGeneric[float32](t) })
	t.Run("float64", func(t *testing.T) { linkGate4MatchesGeneric[float64](t) })
	n, K := 7, 4
	in, inputs := randGateInputs[float64](rand.New(rand.NewPCG(22, 22)), n, K)
	rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) { return linkGate(tp, in, n, K), nil }, inputs, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if rel > 1e-6 {
		t.Errorf("K = 4: relative gradient error %.3g", rel)
	}
}

func linkGate4MatchesGeneric[T autodiff.Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	n, K := 2*gateBlock+37, 4
	in, inputs := randGateInputs[T](rng, n, K)
	for i := range in.c.Value.Data {
		in.c.Value.Data[i] = T(math.Pow(10, -12*rng.Float64())) // down to 1e-12, below the 1e-9 of log(c+1e-9)
	}
	seed := tensor.NewDense[T](n, K)
	for i := range seed.Data {
		seed.Data[i] = T(rng.NormFloat64())
	}
	run := func(generic bool) [][]T {
		in.generic = generic
		for _, v := range inputs {
			v.ZeroGrad()
		}
		var tp autodiff.Tape[T]
		out := linkGate(&tp, in, n, K)
		if p := autodiff.OpOf[gateOp[T]](out); p.gate4() == generic {
			t.Fatalf("generic %v: the unrolled kernels are %v", generic, p.gate4())
		}
		if err := tp.BackwardSeeded(out, seed); err != nil {
			t.Fatal(err)
		}
		res := [][]T{slices.Clone(out.Value.Data)}
		for _, v := range inputs {
			res = append(res, slices.Clone(v.Grad.Data))
		}
		return res
	}
	fast, generic := run(false), run(true)
	for q := range fast {
		for i, x := range fast[q] {
			if y := generic[q][i]; x != y && !(x != x && y != y) {
				t.Fatalf("result %d element %d: %v unrolled, %v generic", q, i, x, y)
			}
		}
	}
}

// gate4Args has the field offsets that routing_gate4_amd64.s hard-codes.
func TestGate4ArgsLayout(t *testing.T) {
	want := map[string]uintptr{"kap": 0, "h": 8, "a": 16, "g": 24, "ga": 32, "c": 40, "lc": 48, "sig": 56,
		"out": 64, "gKap": 72, "gA": 80, "gC": 88, "gH": 96, "n": 104, "beta": 112, "wc": 144,
		"ac": 272, "aa": 280, "ar": 288, "part": 296}
	typ := reflect.TypeFor[gate4Args]()
	if typ.NumField() != len(want) || typ.Size() != 480 {
		t.Fatalf("gate4Args has %d fields and %d bytes, want %d and 480", typ.NumField(), typ.Size(), len(want))
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if off, ok := want[f.Name]; !ok || f.Offset != off {
			t.Errorf("field %s at offset %d, want %d", f.Name, f.Offset, off)
		}
	}
}

// BenchmarkLinkGate is the default gate (K = 4, all three terms) on 27k
// rows, about the node-level links of a DD batch: forward, and forward with
// backward.
func BenchmarkLinkGate(b *testing.B) {
	rng := rand.New(rand.NewPCG(21, 21))
	n, K := 27000, 4
	in, _ := randGateInputs[float32](rng, n, K)
	var tp autodiff.Tape[float32]
	seed := tensor.NewDense[float32](n, K)
	for i := range seed.Data {
		seed.Data[i] = float32(rng.NormFloat64())
	}
	b.Run("fwd", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tp.Reset()
			linkGate(&tp, in, n, K)
		}
	})
	b.Run("fwdbwd", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tp.Reset()
			out := linkGate(&tp, in, n, K)
			if err := tp.BackwardSeeded(out, seed); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Above gateKeepMax the K = 4 gate keeps no σ and no log(c+1e-9) (it forms
// them per block and recomputes them in Backward), and an evaluation pass
// never keeps them: both give the bits of the path that keeps them, values
// and gradients, over several blocks and a partial one.
func TestLinkGateRecomputedSigma(t *testing.T) {
	if !haveGate4AVX {
		t.Skip("the gate's assembly kernels need AVX2")
	}
	rng := rand.New(rand.NewPCG(24, 24))
	n, K := 3*gateBlock+91, 4
	in, inputs := randGateInputs[float32](rng, n, K)
	seed := tensor.NewDense[float32](n, K)
	for i := range seed.Data {
		seed.Data[i] = float32(rng.NormFloat64())
	}
	run := func(keepMax int, noGrad bool) (blocked bool, res [][]float32) {
		defer func(v int) { gateKeepMax = v }(gateKeepMax)
		gateKeepMax = keepMax
		for _, v := range inputs {
			v.ZeroGrad()
		}
		tp := autodiff.Tape[float32]{NoGrad: noGrad}
		out := linkGate(&tp, in, n, K)
		p := autodiff.OpOf[gateOp[float32]](out)
		if p.blocked && (len(p.lc) != 0 || len(p.sig) != 0) {
			t.Errorf("a blocked gate keeps %d values of log(c+1e-9) and %d of σ", len(p.lc), len(p.sig))
		}
		if noGrad {
			return p.blocked, [][]float32{slices.Clone(out.Value.Data)}
		}
		if err := tp.BackwardSeeded(out, seed); err != nil {
			t.Fatal(err)
		}
		res = [][]float32{slices.Clone(out.Value.Data)}
		for _, v := range inputs {
			res = append(res, slices.Clone(v.Grad.Data))
		}
		return p.blocked, res
	}
	keptBlocked, kept := run(1<<30, false)
	recBlocked, rec := run(0, false)
	evalBlocked, eval := run(1<<30, true)
	if keptBlocked || !recBlocked || !evalBlocked {
		t.Fatalf("blocked: kept %v, recomputed %v, evaluation %v", keptBlocked, recBlocked, evalBlocked)
	}
	for q := range kept {
		for i, x := range kept[q] {
			if y := rec[q][i]; math.Float32bits(x) != math.Float32bits(y) {
				t.Fatalf("result %d element %d: %v with σ kept, %v recomputed", q, i, x, y)
			}
		}
	}
	for i, x := range kept[0] {
		if y := eval[0][i]; math.Float32bits(x) != math.Float32bits(y) {
			t.Fatalf("γ %d: %v in training, %v in evaluation", i, x, y)
		}
	}
}
