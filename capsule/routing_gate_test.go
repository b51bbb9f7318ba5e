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

// The unrolled K = 4 gate kernels of float64 networks give the generic
// kernels' bits, values and every gradient, and still pass the gradient
// check (linkGateGradCheck uses K = 3, the generic path).
func TestLinkGate4MatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	n, K := 2*gateBlock+37, 4
	in, inputs := randGateInputs[float64](rng, n, K)
	for i := range in.c.Value.Data {
		in.c.Value.Data[i] = math.Pow(10, -12*rng.Float64()) // down to 1e-12, below the 1e-9 of log(c+1e-9)
	}
	seed := tensor.NewDense[float64](n, K)
	for i := range seed.Data {
		seed.Data[i] = rng.NormFloat64()
	}
	fast, generic := runGate(t, in, inputs, seed, false), runGate(t, in, inputs, seed, true)
	for q := range fast {
		for i, x := range fast[q] {
			if y := generic[q][i]; x != y && !(x != x && y != y) {
				t.Fatalf("result %d element %d: %v unrolled, %v generic", q, i, x, y)
			}
		}
	}
	n = 7
	in, inputs = randGateInputs[float64](rand.New(rand.NewPCG(22, 22)), n, K)
	rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) { return linkGate(tp, in, n, K), nil }, inputs, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if rel > 1e-6 {
		t.Errorf("K = 4: relative gradient error %.3g", rel)
	}
}

// runGate records the gate on in (the generic kernels if generic), runs
// its backward pass from seed, and returns γ and the inputs' gradients.
func runGate[T autodiff.Float](t *testing.T, in gateInputs[T], inputs []*autodiff.Var[T], seed *tensor.Dense[T], generic bool) [][]T {
	t.Helper()
	n, K := seed.Rows, seed.Cols
	in.generic = generic
	for _, v := range inputs {
		v.ZeroGrad()
	}
	var tp autodiff.Tape[T]
	out := linkGate(&tp, in, n, K)
	if p := autodiff.OpOf[gateOp[T]](out); (p.gate4() || p.f32) == generic {
		t.Fatalf("generic %v: the default gate's kernels are %v, the float32 path %v", generic, p.gate4(), p.f32)
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

// The float32 gate computes the generic float64 gate's values and
// gradients to float32 accuracy: γ and the per-link gradients to a
// relative 1e-5 of their largest magnitude, the parameters' gradients
// (sums over 1,061 links in blocks) to 1e-4.
func TestLinkGate32(t *testing.T) {
	for _, first := range []bool{false, true} {
		linkGate32(t, first)
	}
}

// firstGate turns in into the first iteration's gate (κ̂ = 0, no routing
// consistency) and returns it with its inputs.
func firstGate[T autodiff.Float](in gateInputs[T]) (gateInputs[T], []*autodiff.Var[T]) {
	in.kappa, in.c, in.h, in.wc, in.alphaR = nil, nil, nil, nil, nil
	return in, []*autodiff.Var[T]{in.betaRow, in.alphaC, in.a, in.alphaA}
}

// gate32Inputs are randGateInputs for n links in float32 with couplings
// from 1 down to 1e-12, below the 1e-9 of log(c+1e-9).
func gate32Inputs(rng *rand.Rand, n int) (gateInputs[float32], []*autodiff.Var[float32]) {
	in, inputs := randGateInputs[float32](rng, n, 4)
	for i := range in.c.Value.Data {
		in.c.Value.Data[i] = float32(math.Pow(10, -12*rng.Float64()))
	}
	return in, inputs
}

func linkGate32(t *testing.T, first bool) {
	rng := rand.New(rand.NewPCG(25, 25))
	n, K := 2*gateBlock+37, 4
	in32, inputs32 := gate32Inputs(rng, n)
	names := []string{"γ", "κ̂", "β", "α_c", "A", "α_a", "c", "h", "WC", "α_r"}
	if first {
		in32, inputs32 = firstGate(in32)
		names = []string{"γ", "β", "α_c", "A", "α_a"}
	}
	widen := func(v *autodiff.Var[float32]) *autodiff.Var[float64] {
		m := tensor.NewDense[float64](v.Value.Rows, v.Value.Cols)
		for i, x := range v.Value.Data {
			m.Data[i] = float64(x)
		}
		return autodiff.NewVar(m, true)
	}
	var inputs64 []*autodiff.Var[float64]
	for _, v := range inputs32 {
		inputs64 = append(inputs64, widen(v))
	}
	in64 := gateInputs[float64]{betaRow: inputs64[0], alphaC: inputs64[1], a: inputs64[2], alphaA: inputs64[3]}
	if !first {
		in64 = gateInputs[float64]{kappa: inputs64[0], betaRow: inputs64[1], alphaC: inputs64[2], a: inputs64[3], alphaA: inputs64[4],
			c: inputs64[5], h: inputs64[6], wc: inputs64[7], alphaR: inputs64[8]}
	}
	seed32, seed64 := tensor.NewDense[float32](n, K), tensor.NewDense[float64](n, K)
	for i := range seed32.Data {
		seed32.Data[i] = float32(rng.NormFloat64())
		seed64.Data[i] = float64(seed32.Data[i])
	}
	got, want := runGate(t, in32, inputs32, seed32, false), runGate(t, in64, inputs64, seed64, true)
	for q := range got {
		scale := 0.0
		for _, y := range want[q] {
			scale = max(scale, math.Abs(y))
		}
		tol := 1e-5
		if len(want[q]) <= K*K {
			tol = 1e-4
		}
		for i, x := range got[q] {
			if y := want[q][i]; !(math.Abs(float64(x)-y) <= tol*scale) {
				t.Fatalf("first %v: %s[%d]: %v in float32, %v in float64 (largest %.3g)", first, names[q], i, x, y, scale)
			}
		}
	}
}

// sigmoid32 is σ to float32 accuracy down to −87, σ(−87) below it (a
// normal float32, so that the gate's Σσ never flushes to zero), 1 at the
// top and NaN for NaN.
func TestSigmoid32(t *testing.T) {
	floor := sigmoid32(-87)
	for x := -120.0; x <= 120; x += 0.0137 {
		x32 := float32(x)
		got, want := float64(sigmoid32(x32)), 1/(1+math.Exp(-float64(x32)))
		if x32 < -87 {
			want = float64(floor)
		}
		if math.Abs(got-want) > 3e-7*want {
			t.Fatalf("sigmoid32(%v) = %v, want %v", x, got, want)
		}
	}
	if want := math.Exp(-87); math.Abs(float64(floor)-want) > 3e-7*want {
		t.Errorf("sigmoid32(-87) = %v, want %v", floor, want)
	}
	for _, c := range []struct{ x, want float32 }{{0, 0.5}, {200, 1}, {float32(math.Inf(1)), 1}, {float32(math.Inf(-1)), floor}} {
		if got := sigmoid32(c.x); got != c.want {
			t.Errorf("sigmoid32(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := sigmoid32(float32(math.NaN())); got == got {
		t.Errorf("sigmoid32(NaN) = %v", got)
	}
}

// The AVX-512 and AVX2 kernels of the float32 gate give its Go kernels' bits: γ and
// every gradient, over two blocks and a partial one, with couplings down
// to 1e-12, logits out to ±1e4 and, apart, a NaN, for the default gate and
// the first iteration's, with σ kept and recomputed.
func TestGate32Kernels(t *testing.T) {
	if !gate32Vec() {
		t.Skip("the float32 gate's vector kernels need AVX2")
	}
	for _, avx2 := range []bool{false, true} {
		if avx2 && !haveAVX2 || !avx2 && !haveAVX512 {
			continue
		}
		for _, first := range []bool{false, true} {
			for _, keep := range []int{1 << 30, 0} { // σ kept, and recomputed in Backward
				for _, nan := range []bool{false, true} {
					func() {
						defer func(v int, o bool) { gateKeepMax, gate32AVX2Only = v, o }(gateKeepMax, gate32AVX2Only)
						gateKeepMax, gate32AVX2Only = keep, avx2
						gate32Kernels(t, first, nan)
					}()
				}
			}
		}
	}
}

// gate32Kernels compares the kernels once on finite inputs and once with a
// NaN in a link's h (or A), which turns the parameters' gradients to NaN.
func gate32Kernels(t *testing.T, first, nan bool) {
	rng := rand.New(rand.NewPCG(26, 26))
	n, K := 2*gateBlock+39, 4
	in, inputs := gate32Inputs(rng, n)
	for i := 0; i < n; i += 97 {
		in.a.Value.Data[4*i+i%4] = float32(1e4 * rng.NormFloat64())
	}
	if nan {
		in.h.Value.Data[4*(n-2)+1] = float32(math.NaN())
	}
	if first {
		in, inputs = firstGate(in)
		if nan {
			in.a.Value.Data[4*(n-3)+2] = float32(math.NaN())
		}
	}
	seed := tensor.NewDense[float32](n, K)
	for i := range seed.Data {
		seed.Data[i] = float32(rng.NormFloat64())
	}
	// Both under FlushDenormals, as in training: the kernels' worker
	// goroutines always flush denormals (the floor of σ over G can be one).
	var vec, ref [][]float32
	tensor.FlushDenormals(func() { vec = runGate(t, in, inputs, seed, false) })
	gate32VecOff = true
	defer func() { gate32VecOff = false }()
	tensor.FlushDenormals(func() { ref = runGate(t, in, inputs, seed, false) })
	for q := range vec {
		for i, x := range vec[q] {
			if y := ref[q][i]; math.Float32bits(x) != math.Float32bits(y) && !(x != x && y != y) {
				t.Fatalf("AVX2 only %v, first %v, keep %d, NaN %v: result %d element %d: %v (%#x) vector, %v (%#x) Go",
					gate32AVX2Only, first, gateKeepMax, nan, q, i, x, math.Float32bits(x), y, math.Float32bits(y))
			}
		}
	}
}

// gate32Args has the field offsets that routing_gate32_amd64.h hard-codes for
// the kernels.
func TestGate32ArgsLayout(t *testing.T) {
	want := map[string]uintptr{"kap": 0, "h": 8, "a": 16, "c": 24, "lc": 32, "sig": 40, "out": 48, "g": 56,
		"gKap": 64, "gA": 72, "gC": 80, "gH": 88, "n": 96, "ac": 104, "aa": 108, "ar": 112, "_": 116,
		"beta": 120, "wc": 184, "wct": 440, "accB": 696, "accA": 760, "accW": 824}
	typ := reflect.TypeFor[gate32Args]()
	if typ.NumField() != len(want) || typ.Size() != 1080 {
		t.Fatalf("gate32Args has %d fields and %d bytes, want %d and 1080", typ.NumField(), typ.Size(), len(want))
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
		if p.blocked && (len(p.lc) != 0 || len(p.sig32) != 0) {
			t.Errorf("a blocked gate keeps %d values of log(c+1e-9) and %d of σ", len(p.lc), len(p.sig32))
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

func linkGateGradCheck[T autodiff.Float](t *testing.T, eps, tol float64) {
	rng := rand.New(rand.NewPCG(21, 21))
	n, K := 9, 3
	kappa := randVar[T](rng, "kappa", n, 1, 0.5)
	betaRow := randVar[T](rng, "betaRow", 1, K, 1)
	a := randVar[T](rng, "a", n, K, 1)
	h := randVar[T](rng, "h", n, K, 1)
	wc := randVar[T](rng, "wc", K, K, 0.5)
	c := randVar[T](rng, "c", n, 1, 0)
	for i := range c.Value.Data {
		c.Value.Data[i] = T(0.1 + 0.8*rng.Float64())
	}
	alphas := []*autodiff.Var[T]{randVar[T](rng, "ac", 1, 1, 1), randVar[T](rng, "aa", 1, 1, 1), randVar[T](rng, "ar", 1, 1, 1)}
	for mask := 1; mask < 8; mask++ {
		var in gateInputs[T]
		var inputs []*autodiff.Var[T]
		if mask&1 != 0 {
			in.kappa, in.betaRow, in.alphaC = kappa, betaRow, alphas[0]
			inputs = append(inputs, kappa, betaRow, alphas[0])
		}
		if mask&2 != 0 {
			in.a, in.alphaA = a, alphas[1]
			inputs = append(inputs, a, alphas[1])
		}
		if mask&4 != 0 {
			in.c, in.h, in.wc, in.alphaR = c, h, wc, alphas[2]
			inputs = append(inputs, c, h, wc, alphas[2])
		}
		rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[T]) (*autodiff.Var[T], error) { return linkGate(tp, in, n, K), nil }, inputs, eps)
		if err != nil {
			t.Fatal(err)
		}
		if rel > tol {
			t.Errorf("terms %03b: relative gradient error %.3g > %g", mask, rel, tol)
		}
	}
}

func TestLinkGateGradients(t *testing.T) {
	t.Run("float64", func(t *testing.T) { linkGateGradCheck[float64](t, 1e-6, 1e-6) })
	t.Run("float32", func(t *testing.T) { linkGateGradCheck[float32](t, 1e-2, 1e-3) })
}
