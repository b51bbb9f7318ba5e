package autodiff

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// attnInputs returns random queries (n×w) and keys and values (m×w).
func attnInputs[T Float](seed uint64, n, m, w int) (q, k, v *Var[T]) {
	rng := rand.New(rand.NewPCG(seed, 11))
	mk := func(name string, r int) *Var[T] {
		x := NewParam[T](name, r, w)
		for i := range x.Value.Data {
			x.Value.Data[i] = T(rng.Float64()*4 - 2)
		}
		return x
	}
	return mk("q", n), mk("k", m), mk("v", m)
}

// naiveAttention is the obvious float64 reference: per head the full n×m
// matrix softmax(QKᵀ/√d), optionally masked by keep (the op's own dropout
// decisions) and scaled by 1/(1−p), times V.
func naiveAttention(q, k, v *tensor.Dense[float64], heads int, keep func(h, i, j int) bool, p float64) *tensor.Dense[float64] {
	n, m, w := q.Rows, k.Rows, q.Cols
	dh := w / heads
	out := tensor.NewDense[float64](n, w)
	for h := 0; h < heads; h++ {
		for i := 0; i < n; i++ {
			s := make([]float64, m)
			mx := math.Inf(-1)
			for j := range s {
				for d := 0; d < dh; d++ {
					s[j] += q.At(i, h*dh+d) * k.At(j, h*dh+d)
				}
				s[j] /= math.Sqrt(float64(dh))
				mx = max(mx, s[j])
			}
			var sum float64
			for j := range s {
				s[j] = math.Exp(s[j] - mx)
				sum += s[j]
			}
			for j := range s {
				a := s[j] / sum
				if keep != nil {
					if keep(h, i, j) {
						a /= 1 - p
					} else {
						a = 0
					}
				}
				for d := 0; d < dh; d++ {
					out.Data[i*w+h*dh+d] += a * v.At(j, h*dh+d)
				}
			}
		}
	}
	return out
}

func maxAbsDiff[T, U Float](a []T, b []U) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// The fused op equals the naive reference: several query blocks and
// groups, more queries than keys and the reverse, one and three heads,
// with and without dropout; float64 to rounding, float32 to its
// resolution.
func TestAttentionMatchesNaive(t *testing.T) {
	for _, tc := range []struct {
		n, m, heads, dh int
	}{{150, 70, 3, 4}, {5, 200, 1, 8}, {130, 130, 2, 16}, {70, 300, 2, 5}} {
		for _, p := range []float64{0, 0.4} {
			q, k, v := attnInputs[float64](uint64(tc.n+tc.m), tc.n, tc.m, tc.heads*tc.dh)
			var tp Tape[float64]
			got := Attention(&tp, q, k, v, tc.heads, p, rand.New(rand.NewPCG(1, 2)), true)
			var keep func(h, i, j int) bool
			if p > 0 {
				keep = got.op.(*attentionOp[float64]).keeps
			}
			want := naiveAttention(&q.Value, &k.Value, &v.Value, tc.heads, keep, p)
			if d := maxAbsDiff(got.Value.Data, want.Data); d > 1e-12 {
				t.Errorf("%+v p=%v: float64 differs from the reference by %.3g", tc, p, d)
			}
			q32, k32, v32 := attnInputs[float32](uint64(tc.n+tc.m), tc.n, tc.m, tc.heads*tc.dh)
			var tp32 Tape[float32]
			got32 := Attention(&tp32, q32, k32, v32, tc.heads, p, rand.New(rand.NewPCG(1, 2)), true)
			if d := maxAbsDiff(got32.Value.Data, want.Data); d > 1e-5 {
				t.Errorf("%+v p=%v: float32 differs from the reference by %.3g", tc, p, d)
			}
		}
	}
}

// Dropout keeps about 1−p of the probabilities, and evaluation mode
// ignores it.
func TestAttentionDropoutRate(t *testing.T) {
	q, k, v := attnInputs[float64](3, 100, 100, 4)
	var tp Tape[float64]
	out := Attention(&tp, q, k, v, 1, 0.3, rand.New(rand.NewPCG(5, 6)), true)
	op := out.op.(*attentionOp[float64])
	kept := 0
	for i := 0; i < 100; i++ {
		for j := 0; j < 100; j++ {
			if op.keeps(0, i, j) {
				kept++
			}
		}
	}
	if f := float64(kept) / 1e4; math.Abs(f-0.7) > 0.02 {
		t.Errorf("kept %.3f of the probabilities, want 0.7", f)
	}
	tp.Reset()
	eval := Attention(&tp, q, k, v, 1, 0.3, nil, false)
	if d := maxAbsDiff(eval.Value.Data, naiveAttention(&q.Value, &k.Value, &v.Value, 1, nil, 0).Data); d > 1e-12 {
		t.Errorf("evaluation mode differs from attention without dropout by %.3g", d)
	}
}

func TestAttentionGradients(t *testing.T) {
	for _, tc := range []struct {
		n, m, heads, dh int
		p               float64
	}{{150, 70, 2, 3, 0}, {150, 70, 2, 3, 0.3}, {4, 9, 1, 2, 0}, {70, 140, 3, 2, 0.5}} {
		q, k, v := attnInputs[float64](7, tc.n, tc.m, tc.heads*tc.dh)
		build := func(tp *Tape[float64]) (*Var[float64], error) {
			return Attention(tp, q, k, v, tc.heads, tc.p, rand.New(rand.NewPCG(8, 9)), true), nil
		}
		rel, err := GradCheck(build, []*Var[float64]{q, k, v}, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if rel > 1e-6 {
			t.Errorf("%+v: relative gradient error %.3g", tc, rel)
		}
	}
}

// Only the inputs that require a gradient receive one, and each correctly.
func TestAttentionPartialGradients(t *testing.T) {
	q, k, v := attnInputs[float64](9, 80, 66, 6)
	for i, frozen := range []*Var[float64]{q, k, v} {
		frozen.requiresGrad = false
		var ins []*Var[float64]
		for _, x := range []*Var[float64]{q, k, v} {
			if x.requiresGrad {
				ins = append(ins, x)
			}
		}
		build := func(tp *Tape[float64]) (*Var[float64], error) {
			return Attention(tp, q, k, v, 2, 0, nil, false), nil
		}
		rel, err := GradCheck(build, ins, 1e-6)
		if err != nil || rel > 1e-6 {
			t.Errorf("input %d frozen: relative gradient error %.3g (%v)", i, rel, err)
		}
		frozen.requiresGrad = true
	}
}

// The forward and backward passes give the same bits on one core as on
// several: the decomposition is fixed and each sum has one order.
func TestAttentionIndependentOfCores(t *testing.T) {
	run := func(procs int) (out, gq, gk, gv []float32) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		q, k, v := attnInputs[float32](4, 600, 600, 32)
		var tp Tape[float32]
		y := Attention(&tp, q, k, v, 4, 0.2, rand.New(rand.NewPCG(3, 3)), true)
		seed := tensor.NewDense[float32](600, 32)
		for i := range seed.Data {
			seed.Data[i] = float32(i%13) - 6
		}
		if err := tp.BackwardSeeded(y, seed); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(y.Value.Data), q.Grad.Data, k.Grad.Data, v.Grad.Data
	}
	o1, q1, k1, v1 := run(1)
	o4, q4, k4, v4 := run(4)
	if !slices.Equal(o1, o4) || !slices.Equal(q1, q4) || !slices.Equal(k1, k4) || !slices.Equal(v1, v4) {
		t.Error("results differ between 1 and 4 cores")
	}
}

// A warm pass, forward and backward, allocates nothing.
func TestAttentionAllocatesNothing(t *testing.T) {
	q, k, v := attnInputs[float32](5, 200, 200, 16)
	var tp Tape[float32]
	tp.ReleaseGrads = true
	rng := rand.New(rand.NewPCG(1, 1))
	step := func() {
		tp.Reset()
		y := Attention(&tp, q, k, v, 2, 0.5, rng, true)
		if err := tp.Backward(Sum(&tp, y)); err != nil {
			t.Fatal(err)
		}
	}
	step()
	step()
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Errorf("a warm pass allocates %.1f times", a)
	}
}

func TestAttentionPanics(t *testing.T) {
	q, k, v := attnInputs[float64](1, 4, 5, 6)
	for name, f := range map[string]func(){
		"heads":   func() { Attention(new(Tape[float64]), q, k, v, 4, 0, nil, false) },
		"shape":   func() { Attention(new(Tape[float64]), q, q, v, 2, 0, nil, false) },
		"dropout": func() { Attention(new(Tape[float64]), q, k, v, 2, 1, nil, false) },
		"rng":     func() { Attention(new(Tape[float64]), q, k, v, 2, 0.5, nil, true) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
