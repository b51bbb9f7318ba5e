package capsule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// predict's gradients, with rows on both branches of the wrap (θ < π and
// θ > π, away from the branch cut at θ = π).
func predictGradCheck[T autodiff.Float](t *testing.T, eps, tol float64) {
	rng := rand.New(rand.NewPCG(31, 31))
	s, tt, K, n := 2, 3, 3, 12
	d := s + tt
	var wsph, weuc, bias, beta []*autodiff.Var[T]
	for k := 0; k < K; k++ {
		ws := randVar[T](rng, fmt.Sprint("wsph", k), tt, tt, 0.3)
		for m := 0; m < tt; m++ {
			ws.Value.Data[m*tt+m] += 1
		}
		wsph = append(wsph, ws)
		weuc = append(weuc, randVar[T](rng, fmt.Sprint("weuc", k), s, s, 1))
		bias = append(bias, randVar[T](rng, fmt.Sprint("bias", k), 1, d, 1))
		b := randVar[T](rng, fmt.Sprint("beta", k), 1, 1, 0)
		b.Value.Data[0] = T(-0.4 - 0.5*float64(k))
		beta = append(beta, b)
	}
	a := randVar[T](rng, "a", n, d, 1)
	// Scale the rows so that θ_k = ‖a_T·Wsph_k‖/r_k stays at least 0.05 away
	// from odd multiples of π for every k.
	for i := 0; i < n; i++ {
		for {
			scale := 0.3 + 5*rng.Float64()
			ok := true
			for k := 0; k < K; k++ {
				x := make([]float64, tt)
				for m := 0; m < tt; m++ {
					for c := 0; c < tt; c++ {
						x[c] += scale * float64(a.Value.Data[i*d+m]) * float64(wsph[k].Value.Data[m*tt+c])
					}
				}
				th := math.Sqrt(dotF(x, x)) / math.Sqrt(-float64(beta[k].Value.Data[0]))
				if r := math.Mod(th, 2*math.Pi); math.Abs(r-math.Pi) < 0.05 {
					ok = false
				}
			}
			if ok {
				for m := 0; m < d; m++ {
					a.Value.Data[i*d+m] *= T(scale)
				}
				break
			}
		}
	}
	inputs := append(append(append(append([]*autodiff.Var[T]{a}, wsph...), weuc...), bias...), beta...)
	rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[T]) (*autodiff.Var[T], error) {
		return predict(tp, a, wsph, weuc, bias, beta, s, tt), nil
	}, inputs, eps)
	if err != nil {
		t.Fatal(err)
	}
	if rel > tol {
		t.Fatalf("relative gradient error %.3g > %g", rel, tol)
	}
	// Both branches were exercised.
	wrapped := 0
	for i := 0; i < n; i++ {
		for k := 0; k < K; k++ {
			x := make([]float64, tt)
			for m := 0; m < tt; m++ {
				for c := 0; c < tt; c++ {
					x[c] += float64(a.Value.Data[i*d+m]) * float64(wsph[k].Value.Data[m*tt+c])
				}
			}
			if th, _, _ := wrapFactor(x, math.Sqrt(-float64(beta[k].Value.Data[0]))); th > math.Pi {
				wrapped++
			}
		}
	}
	if wrapped == 0 || wrapped == n*K {
		t.Fatalf("%d of %d predictions wrap: one branch is untested", wrapped, n*K)
	}
}

// predictRun runs predict in T on the given float64 values (a: n×d, the
// K Wsph, Weuc, biases and curvatures), back-propagates sin(index) and
// returns the output followed by every gradient, as float64.
func predictRun[T autodiff.Float](a [][]float64, ws, we, bs [][][]float64, betas []float64, s, tt int) []float64 {
	conv := func(rows [][]float64) *autodiff.Var[T] { return autodiff.NewVar(denseFromRows[T](rows), true) }
	av := conv(a)
	var wsph, weuc, bias, beta []*autodiff.Var[T]
	for k := range ws {
		wsph, weuc, bias = append(wsph, conv(ws[k])), append(weuc, conv(we[k])), append(bias, conv(bs[k]))
		beta = append(beta, conv([][]float64{{betas[k]}}))
	}
	var tp autodiff.Tape[T]
	out := predict(&tp, av, wsph, weuc, bias, beta, s, tt)
	seed := tensor.NewDense[T](out.Value.Rows, out.Value.Cols)
	for i := range seed.Data {
		seed.Data[i] = T(math.Sin(float64(i)))
	}
	if err := tp.BackwardSeeded(out, seed); err != nil {
		panic(err)
	}
	var res []float64
	for _, v := range append([]*autodiff.Var[T]{out}, av) {
		for _, x := range v.Value.Data {
			res = append(res, float64(x))
		}
	}
	for _, v := range append(append(append(append([]*autodiff.Var[T]{av}, wsph...), weuc...), bias...), beta...) {
		for _, x := range v.Grad.Data {
			res = append(res, float64(x))
		}
	}
	return res
}

// predict in float32 (matrix products) agrees with predict in float64 (row
// loops, gradient-checked above) at the default shapes (s = t = 9, K = 4),
// with rows on both branches of the wrap.
func TestPredictFloat32MatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 41))
	s, tt, K, n := 9, 9, 4, 300
	randRows := func(r, c int, scale float64) [][]float64 {
		m := make([][]float64, r)
		for i := range m {
			m[i] = make([]float64, c)
			for j := range m[i] {
				m[i][j] = scale * rng.NormFloat64()
			}
		}
		return m
	}
	a := randRows(n, s+tt, 1)
	for i := range a { // norms from 0.1 to 8: some θ_k beyond π
		f := 0.1 + 8*rng.Float64()
		for j := range a[i] {
			a[i][j] *= f / 3
		}
	}
	var ws, we, bs [][][]float64
	betas := []float64{-0.5, -1, -2, -4}
	for range K {
		ws, we, bs = append(ws, randRows(tt, tt, 0.4)), append(we, randRows(s, s, 0.4)), append(bs, randRows(1, s+tt, 0.1))
	}
	want := predictRun[float64](a, ws, we, bs, betas, s, tt)
	got := predictRun[float32](a, ws, we, bs, betas, s, tt)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 2e-4*(1+math.Abs(want[i])) {
			t.Fatalf("value %d of %d: float32 %v, float64 %v", i, len(want), got[i], want[i])
		}
	}
}

// predict with G weight groups is the G one-group predictions stacked by
// rows (what graph-level routing used to build with ConcatRows), in values
// and in every gradient.
func predictGroupsCheck[T autodiff.Float](t *testing.T, tol float64) {
	rng := rand.New(rand.NewPCG(51, 51))
	s, tt, K, G, n := 3, 4, 2, 3, 7
	d := s + tt
	a := randVar[T](rng, "a", n, d, 2) // norms up to ~8: some rows wrap
	var wsph, weuc, bias, beta []*autodiff.Var[T]
	for q := 0; q < G*K; q++ {
		wsph = append(wsph, randVar[T](rng, "ws", tt, tt, 0.8))
		weuc = append(weuc, randVar[T](rng, "we", s, s, 0.8))
		bias = append(bias, randVar[T](rng, "b", 1, d, 0.3))
	}
	for k := 0; k < K; k++ {
		b := randVar[T](rng, "beta", 1, 1, 0)
		b.Value.Data[0] = T(-0.5 - float64(k))
		beta = append(beta, b)
	}
	params := append(append(append(append([]*autodiff.Var[T]{a}, wsph...), weuc...), bias...), beta...)
	run := func(grouped bool) []float64 {
		for _, v := range params {
			v.ZeroGrad()
		}
		var tp autodiff.Tape[T]
		var out *autodiff.Var[T]
		if grouped {
			out = predict(&tp, a, wsph, weuc, bias, beta, s, tt)
		} else {
			var parts []*autodiff.Var[T]
			for g := 0; g < G; g++ {
				parts = append(parts, predict(&tp, a, wsph[g*K:(g+1)*K], weuc[g*K:(g+1)*K], bias[g*K:(g+1)*K], beta, s, tt))
			}
			out = autodiff.ConcatRows(&tp, parts...)
		}
		seed := tensor.NewDense[T](out.Value.Rows, out.Value.Cols)
		for i := range seed.Data {
			seed.Data[i] = T(math.Cos(float64(i)))
		}
		if err := tp.BackwardSeeded(out, seed); err != nil {
			t.Fatal(err)
		}
		var res []float64
		for _, x := range out.Value.Data {
			res = append(res, float64(x))
		}
		for _, v := range params {
			for _, x := range v.Grad.Data {
				res = append(res, float64(x))
			}
		}
		return res
	}
	got, want := run(true), run(false)
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("value %d of %d: grouped %v, stacked %v", i, len(want), got[i], want[i])
		}
	}
}

func TestPredictGroups(t *testing.T) {
	t.Run("float64", func(t *testing.T) { predictGroupsCheck[float64](t, 1e-12) })
	t.Run("float32", func(t *testing.T) { predictGroupsCheck[float32](t, 1e-5) })
}

func TestPredictGradients(t *testing.T) {
	t.Run("float64", func(t *testing.T) { predictGradCheck[float64](t, 1e-6, 1e-6) })
	t.Run("float32", func(t *testing.T) { predictGradCheck[float32](t, 1e-2, 1e-3) })
}

// predict's wrap adds the bias in float32 where h = 1 (no wrap): that is
// the bits of T(float64(v) + float64(b)), its formula, because a float64
// sum of two float32 values rounds to float32 as the float32 sum does.
// Checked here over random exponents, signed zeros, subnormals and the
// float32 extremes.
func TestFloat32SumRoundsOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	special := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.MaxFloat32, -math.MaxFloat32, 1, -1, 1 + 1.0/(1<<23)}
	pick := func() float32 {
		if rng.IntN(8) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(math.Ldexp(rng.Float64()*2-1, rng.IntN(300)-150))
	}
	for range 200000 {
		v, b := pick(), pick()
		got, want := v+b, float32(float64(v)+float64(b))
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("%g + %g: float32 sum %g, float64 sum rounded %g", v, b, got, want)
		}
	}
}
