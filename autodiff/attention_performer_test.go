package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// naivePerformer is the float64 reference: the feature maps element by
// element, then Q'(K'ᵀV) normalised by Q'(K'ᵀ1), per head.
func naivePerformer(q, k, v, proj *tensor.Dense[float64], heads int) *tensor.Dense[float64] {
	n, m, w := q.Rows, k.Rows, q.Cols
	dh, f := w/heads, proj.Rows
	s, r := math.Pow(float64(dh), -0.25), 1/math.Sqrt(float64(f))
	out := tensor.NewDense[float64](n, w)
	phi := func(x *tensor.Dense[float64], h int, perRow bool) [][]float64 {
		wx := make([][]float64, x.Rows)
		gmax := math.Inf(-1)
		for i := range wx {
			wx[i] = make([]float64, f)
			for l := range wx[i] {
				for d := 0; d < dh; d++ {
					wx[i][l] += s * x.At(i, h*dh+d) * proj.At(l, d)
				}
				gmax = max(gmax, wx[i][l])
			}
		}
		for i := range wx {
			var sq float64
			for d := 0; d < dh; d++ {
				sq += s * s * x.At(i, h*dh+d) * x.At(i, h*dh+d)
			}
			mx := gmax
			if perRow {
				mx = math.Inf(-1)
				for _, a := range wx[i] {
					mx = max(mx, a)
				}
			}
			for l := range wx[i] {
				wx[i][l] = r * (math.Exp(wx[i][l]-sq/2-mx) + PerformerEps)
			}
		}
		return wx
	}
	for h := 0; h < heads; h++ {
		qf, kf := phi(q, h, true), phi(k, h, false)
		for i := 0; i < n; i++ {
			var den float64
			num := make([]float64, dh)
			for j := 0; j < m; j++ {
				var a float64
				for l := 0; l < f; l++ {
					a += qf[i][l] * kf[j][l]
				}
				den += a
				for d := range num {
					num[d] += a * v.At(j, h*dh+d)
				}
			}
			for d := range num {
				out.Data[i*w+h*dh+d] = num[d] / den
			}
		}
	}
	return out
}

func performerInputs[T Float](seed uint64, n, m, heads, dh, f int) (q, k, v, proj *Var[T]) {
	q, k, v = attnInputs[T](seed, n, m, heads*dh)
	rng := rand.New(rand.NewPCG(seed, 12))
	proj = NewParam[T]("proj", f, dh)
	for i := range proj.Value.Data {
		proj.Value.Data[i] = T(rng.NormFloat64())
	}
	return q, k, v, proj
}

func TestPerformerMatchesNaive(t *testing.T) {
	for _, tc := range []struct{ n, m, heads, dh, f int }{{30, 20, 2, 4, 11}, {7, 40, 1, 8, 16}, {50, 50, 4, 3, 5}} {
		q, k, v, proj := performerInputs[float64](3, tc.n, tc.m, tc.heads, tc.dh, tc.f)
		var tp Tape[float64]
		got := PerformerAttention(&tp, q, k, v, proj, tc.heads)
		want := naivePerformer(&q.Value, &k.Value, &v.Value, &proj.Value, tc.heads)
		if d := maxAbsDiff(got.Value.Data, want.Data); d > 1e-12 {
			t.Errorf("%+v: float64 differs from the reference by %.3g", tc, d)
		}
		q32, k32, v32, p32 := performerInputs[float32](3, tc.n, tc.m, tc.heads, tc.dh, tc.f)
		var tp32 Tape[float32]
		if d := maxAbsDiff(PerformerAttention(&tp32, q32, k32, v32, p32, tc.heads).Value.Data, want.Data); d > 1e-5 {
			t.Errorf("%+v: float32 differs from the reference by %.3g", tc, d)
		}
	}
}

// FAVOR+ estimates softmax attention: with many random features (here
// orthogonal blocks with Gaussian norms, as Performer draws them) and
// small scores the two agree closely.
func TestPerformerApproximatesSoftmax(t *testing.T) {
	n, dh, f := 40, 4, 4096
	q, k, v := attnInputs[float64](6, n, n, dh)
	for _, x := range []*Var[float64]{q, k} {
		for i := range x.Value.Data {
			x.Value.Data[i] *= 0.3
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	proj := NewParam[float64]("proj", f, dh)
	for b := 0; b < f; b += dh { // an orthonormal block per dh rows, by Gram-Schmidt
		for r := 0; r < dh; r++ {
			row := proj.Value.Data[(b+r)*dh : (b+r+1)*dh]
			for d := range row {
				row[d] = rng.NormFloat64()
			}
			for r2 := 0; r2 < r; r2++ {
				prev := proj.Value.Data[(b+r2)*dh : (b+r2+1)*dh]
				var dot float64
				for d := range row {
					dot += row[d] * prev[d]
				}
				for d := range row {
					row[d] -= dot * prev[d]
				}
			}
			var norm, g float64
			for d := range row {
				norm += row[d] * row[d]
				x := rng.NormFloat64()
				g += x * x
			}
			for d := range row {
				row[d] *= math.Sqrt(g / norm)
			}
		}
	}
	var tp Tape[float64]
	got := PerformerAttention(&tp, q, k, v, proj, 1)
	want := naiveAttention(&q.Value, &k.Value, &v.Value, 1, nil, 0)
	if d := maxAbsDiff(got.Value.Data, want.Data); d > 0.02 {
		t.Errorf("FAVOR+ differs from softmax attention by %.3g", d)
	}
}

func TestPerformerGradients(t *testing.T) {
	for _, tc := range []struct{ n, m, heads, dh, f int }{{9, 7, 2, 3, 5}, {6, 11, 1, 4, 9}} {
		q, k, v, proj := performerInputs[float64](5, tc.n, tc.m, tc.heads, tc.dh, tc.f)
		build := func(tp *Tape[float64]) (*Var[float64], error) {
			return PerformerAttention(tp, q, k, v, proj, tc.heads), nil
		}
		rel, err := GradCheck(build, []*Var[float64]{q, k, v, proj}, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if rel > 1e-6 {
			t.Errorf("%+v: relative gradient error %.3g", tc, rel)
		}
	}
}

func TestPerformerAllocatesNothing(t *testing.T) {
	q, k, v, proj := performerInputs[float32](5, 300, 300, 4, 16, 44)
	proj.requiresGrad = false
	var tp Tape[float32]
	tp.ReleaseGrads = true
	step := func() {
		tp.Reset()
		if err := tp.Backward(Sum(&tp, PerformerAttention(&tp, q, k, v, proj, 4))); err != nil {
			t.Fatal(err)
		}
	}
	step()
	step()
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Errorf("a warm pass allocates %.1f times", a)
	}
}
