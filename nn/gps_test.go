package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// weighted returns Σ w ⊙ y for a fixed uneven w, a scalar that exercises
// every output.
func weighted(tp *autodiff.Tape[float64], y *autodiff.Var[float64]) *autodiff.Var[float64] {
	r, c := y.Shape()
	w := autodiff.NewVar(tensor.NewDense[float64](r, c), false)
	for i := range w.Value.Data {
		w.Value.Data[i] = float64(i%7) - 3
	}
	return autodiff.Sum(tp, autodiff.Mul(tp, y, w))
}

func randomParam(name string, r, c int, rng *rand.Rand) *autodiff.Var[float64] {
	x := autodiff.NewParam[float64](name, r, c)
	Uniform(x, -1.5, 1.5, rng)
	return x
}

func TestGELU(t *testing.T) {
	x := randomParam("x", 4, 5, rand.New(rand.NewPCG(1, 1)))
	x.Value.Data[0], x.Value.Data[1] = 0, -6
	var tp autodiff.Tape[float64]
	y := GELU(&tp, x)
	for i, v := range x.Value.Data {
		want := v * 0.5 * (1 + math.Erf(v/math.Sqrt2))
		if math.Abs(y.Value.Data[i]-want) > 1e-15 {
			t.Fatalf("GELU(%v) = %v, want %v", v, y.Value.Data[i], want)
		}
	}
	rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
		return weighted(tp, GELU(tp, x)), nil
	}, []*autodiff.Var[float64]{x}, 1e-6)
	if err != nil || rel > 1e-7 {
		t.Errorf("relative gradient error %.3g (%v)", rel, err)
	}
	// The float32 path's value and slope against the float64 definitions.
	for z := -8.0; z <= 8; z += 1e-3 {
		var y32 [1]float32
		var s32 [1]float64
		zz := float64(float32(z))
		tensor.GELU32(y32[:], s32[:], []float32{float32(z)})
		c64, p64 := normal(zz)
		if math.Abs(float64(y32[0])-zz*c64) > 1e-6*max(1, math.Abs(zz)) || math.Abs(s32[0]-(c64+zz*p64)) > 1e-6 {
			t.Fatalf("GELU32(%v) = %v, slope %v; float64 %v, %v", zz, y32[0], s32[0], zz*c64, c64+zz*p64)
		}
	}
	// float32 against float64, values and gradients.
	x32 := autodiff.NewVar(tensor.Convert[float32](&x.Value), true)
	var tp32 autodiff.Tape[float32]
	y32 := GELU(&tp32, x32)
	if err := tp32.BackwardSeeded(y32, nil); err != nil {
		t.Fatal(err)
	}
	x.ZeroGrad()
	tp.Reset()
	if err := tp.BackwardSeeded(GELU(&tp, x), nil); err != nil {
		t.Fatal(err)
	}
	for i := range x.Value.Data {
		if math.Abs(float64(y32.Value.Data[i])-y.Value.Data[i]) > 1e-6 || math.Abs(float64(x32.Grad.Data[i])-x.Grad.Data[i]) > 1e-6 {
			t.Fatalf("element %d: float32 %v (gradient %v), float64 %v (%v)", i, y32.Value.Data[i], x32.Grad.Data[i], y.Value.Data[i], x.Grad.Data[i])
		}
	}
}

// The random features come in orthogonal blocks of d rows, each row
// scaled to the norm of a Gaussian vector (so about √d long).
func TestGaussianOrthogonal(t *testing.T) {
	f, d := 44, 16
	p := autodiff.NewParam[float64]("p", f, d)
	GaussianOrthogonal(p, rand.New(rand.NewPCG(2, 3)))
	var meanSq float64
	for i := 0; i < f; i++ {
		ri := p.Value.Data[i*d : (i+1)*d]
		var ni float64
		for _, x := range ri {
			ni += x * x
		}
		meanSq += ni / float64(f)
		for j := i - i%d; j < i; j++ { // earlier rows of the same block
			rj := p.Value.Data[j*d : (j+1)*d]
			var dot, nj float64
			for k := range ri {
				dot += ri[k] * rj[k]
				nj += rj[k] * rj[k]
			}
			if c := dot / math.Sqrt(ni*nj); math.Abs(c) > 1e-12 {
				t.Fatalf("rows %d and %d: cosine %v", i, j, c)
			}
		}
	}
	if meanSq < 0.6*float64(d) || meanSq > 1.4*float64(d) {
		t.Errorf("mean squared row norm %v, want about %d", meanSq, d)
	}
}

func TestMultiHeadAttentionGradients(t *testing.T) {
	for _, performer := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(4, 5))
		a := NewMultiHeadAttention[float64]("a", 6, 2, 0.3, true, rng)
		Uniform(a.In.B, -0.5, 0.5, rng)
		Uniform(a.Out.B, -0.5, 0.5, rng)
		x := randomParam("x", 9, 6, rng)
		build := func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
			return weighted(tp, a.Forward(tp, x, performer, true, rand.New(rand.NewPCG(6, 7)))), nil
		}
		rel, err := autodiff.GradCheck(build, append([]*autodiff.Var[float64]{x}, a.Params()...), 1e-6)
		if err != nil || rel > 1e-6 {
			t.Errorf("performer %v: relative gradient error %.3g (%v)", performer, rel, err)
		}
	}
}

// One head, no dropout: the layer is softmax(QKᵀ/√d)V between its
// projections, by hand.
func TestMultiHeadAttentionFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	a := NewMultiHeadAttention[float64]("a", 3, 1, 0, false, rng)
	x := randomParam("x", 4, 3, rng)
	var tp autodiff.Tape[float64]
	got := a.Forward(&tp, x, false, false, nil)
	proj := func(i, off int) []float64 {
		r := make([]float64, 3)
		for o := range r {
			r[o] = a.In.B.Value.At(0, off+o)
			for k := 0; k < 3; k++ {
				r[o] += x.Value.At(i, k) * a.In.W.Value.At(k, off+o)
			}
		}
		return r
	}
	for i := 0; i < 4; i++ {
		q := proj(i, 0)
		att := make([]float64, 3)
		var sum float64
		for j := 0; j < 4; j++ {
			k, v := proj(j, 3), proj(j, 6)
			e := math.Exp((q[0]*k[0] + q[1]*k[1] + q[2]*k[2]) / math.Sqrt(3))
			sum += e
			for o := range att {
				att[o] += e * v[o]
			}
		}
		for o := 0; o < 3; o++ {
			want := a.Out.B.Value.At(0, o)
			for k := 0; k < 3; k++ {
				want += att[k] / sum * a.Out.W.Value.At(k, o)
			}
			if d := math.Abs(got.Value.At(i, o) - want); d > 1e-12 {
				t.Fatalf("node %d, output %d: %v, want %v", i, o, got.Value.At(i, o), want)
			}
		}
	}
}

func TestGPSLayerGradients(t *testing.T) {
	n, ptr, src := path4()
	adj := GCNNorm[float64](n, ptr, src)
	for _, tc := range []struct{ norm, performer bool }{{true, false}, {false, false}, {true, true}} {
		rng := rand.New(rand.NewPCG(10, 11))
		l := NewGPSLayer[float64]("l", 4, 2, tc.norm, tc.performer, 0.2, 0.3, rng)
		for _, p := range l.Params() { // non-trivial biases and norms
			if p.Value.Rows == 1 {
				Uniform(p, 0.5, 1.5, rng)
			}
		}
		x := randomParam("x", n, 4, rng)
		build := func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
			return weighted(tp, l.Forward(tp, adj, x, tc.performer, true, rand.New(rand.NewPCG(12, 13)))), nil
		}
		rel, err := autodiff.GradCheck(build, append([]*autodiff.Var[float64]{x}, l.Params()...), 1e-6)
		if err != nil || rel > 1e-6 {
			t.Errorf("%+v: relative gradient error %.3g (%v)", tc, rel, err)
		}
	}
}

// On one node without dropout or norms the layer can be followed by hand:
// the attention returns the node's own value projection.
func TestGPSLayerSingleNode(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	l := NewGPSLayer[float64]("l", 2, 1, false, false, 0, 0, rng)
	adj := GCNNorm[float64](1, []int32{0, 0}, nil) // Â = [1]
	x := randomParam("x", 1, 2, rng)
	var tp autodiff.Tape[float64]
	got := l.Forward(&tp, adj, x, false, false, nil)
	lin := func(v []float64, w, b *autodiff.Var[float64]) []float64 {
		r := make([]float64, w.Value.Cols)
		for o := range r {
			if b != nil {
				r[o] = b.Value.At(0, o)
			}
			for k, vk := range v {
				r[o] += vk * w.Value.At(k, o)
			}
		}
		return r
	}
	xv := x.Value.Data
	local := lin(xv, l.Local.W, l.Local.B)
	val := lin(lin(xv, l.Attn.In.W, l.Attn.In.B)[4:6], l.Attn.Out.W, l.Attn.Out.B)
	s := []float64{2*xv[0] + local[0] + val[0], 2*xv[1] + local[1] + val[1]}
	h := lin(s, l.FF1.W, l.FF1.B)
	for i, v := range h {
		h[i] = v * 0.5 * (1 + math.Erf(v/math.Sqrt2))
	}
	f := lin(h, l.FF2.W, l.FF2.B)
	for o := 0; o < 2; o++ {
		if d := math.Abs(got.Value.At(0, o) - (s[o] + f[o])); d > 1e-12 {
			t.Errorf("output %d: %v, want %v", o, got.Value.At(0, o), s[o]+f[o])
		}
	}
}

// Attention within segments is attention on each segment alone, stacked;
// an empty segment contributes nothing; gradients check out.
func TestMultiHeadAttentionSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	a := NewMultiHeadAttention[float64]("a", 6, 2, 0, false, rng)
	Uniform(a.In.B, -0.5, 0.5, rng)
	x := randomParam("x", 7, 6, rng)
	seg := []int32{0, 3, 3, 7}
	var tp autodiff.Tape[float64]
	got := a.ForwardSegments(&tp, x, seg, false, nil).Value
	for s := 0; s+1 < len(seg); s++ {
		lo, hi := int(seg[s]), int(seg[s+1])
		if lo == hi {
			continue
		}
		want := a.Forward(&tp, autodiff.SliceRows(&tp, x, lo, hi), false, false, nil).Value
		for i := lo; i < hi; i++ {
			for j := 0; j < 6; j++ {
				if d := got.At(i, j) - want.At(i-lo, j); d > 1e-12 || d < -1e-12 {
					t.Fatalf("row %d col %d: %v, segment alone %v", i, j, got.At(i, j), want.At(i-lo, j))
				}
			}
		}
	}
	b := NewMultiHeadAttention[float64]("b", 6, 2, 0.3, false, rng)
	build := func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
		return weighted(tp, b.ForwardSegments(tp, x, seg, true, rand.New(rand.NewPCG(6, 7)))), nil
	}
	rel, err := autodiff.GradCheck(build, append([]*autodiff.Var[float64]{x}, b.Params()...), 1e-6)
	if err != nil || rel > 1e-6 {
		t.Errorf("relative gradient error %.3g (%v)", rel, err)
	}
}
