package optim

import (
	"math"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
)

func TestClipGradNorm(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name     string
		grads    [][]float64 // one slice per parameter
		maxNorm  float64
		wantNorm float64
		scale    float64 // expected factor applied to the gradients
		errSub   string
	}{
		{name: "zero", grads: [][]float64{{0, 0}, {0}}, maxNorm: 1, wantNorm: 0, scale: 1},
		{name: "below", grads: [][]float64{{0.3}, {0.4}}, maxNorm: 1, wantNorm: 0.5, scale: 1},
		{name: "global-norm", grads: [][]float64{{3, 0}, {4}}, maxNorm: 1, wantNorm: 5, scale: 1 / (5 + 1e-6)},
		{name: "big", grads: [][]float64{{30, -40}}, maxNorm: 2, wantNorm: 50, scale: 2 / (50 + 1e-6)},
		// PyTorch clamps maxNorm/(norm+1e-6) at 1, so a norm equal to
		// maxNorm is still scaled, by a hair.
		{name: "at-max", grads: [][]float64{{0.6, 0.8}}, maxNorm: 1, wantNorm: 1, scale: 1 / (1 + 1e-6)},
		{name: "huge-but-finite", grads: [][]float64{{3e200}, {4e200}}, maxNorm: 1, wantNorm: 5e200, scale: 1 / 5e200},
		{name: "nan", grads: [][]float64{{1, 2}, {math.NaN()}}, maxNorm: 1, errSub: "not finite"},
		{name: "inf", grads: [][]float64{{inf, 0}}, maxNorm: 1, errSub: "not finite"},
		{name: "zero-max", grads: [][]float64{{1}}, maxNorm: 0, errSub: "positive"},
		{name: "nan-max", grads: [][]float64{{1}}, maxNorm: math.NaN(), errSub: "positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ps []*autodiff.Var[float64]
			for i, g := range tc.grads {
				p := autodiff.NewParam[float64]("p"+string(rune('0'+i)), 1, len(g))
				copy(p.Grad.Data, g)
				ps = append(ps, p)
			}
			norm, err := ClipGradNorm(ps, tc.maxNorm)
			if tc.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) {
					t.Fatalf("error %v, want one with %q", err, tc.errSub)
				}
				for i, p := range ps { // untouched
					for j, g := range p.Grad.Data {
						if w := tc.grads[i][j]; g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
							t.Fatalf("gradient changed on error: %v, was %v", g, w)
						}
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(norm-tc.wantNorm) > 1e-12*(1+tc.wantNorm) {
				t.Fatalf("norm %v, want %v", norm, tc.wantNorm)
			}
			for i, p := range ps {
				want := make([]float64, len(tc.grads[i]))
				for j, g := range tc.grads[i] {
					want[j] = g * tc.scale
				}
				assertClose(t, "gradient", p.Grad.Data, want, 1e-15)
			}
			if after, _ := GradNorm(ps); tc.wantNorm > tc.maxNorm && math.Abs(after-tc.maxNorm) > 1e-5 {
				t.Fatalf("norm after clipping %v, want ≈ %v", after, tc.maxNorm)
			}
		})
	}
}

func TestClipGradNormFloat32(t *testing.T) {
	p := autodiff.NewParam[float32]("w", 2, 2)
	copy(p.Grad.Data, []float32{3, 4, 0, 0})
	norm, err := ClipGradNorm([]*autodiff.Var[float32]{p}, 1)
	if err != nil || norm != 5 {
		t.Fatalf("norm %v err %v", norm, err)
	}
	assertClose(t, "clipped", p.Grad.Data, []float64{0.6, 0.8, 0, 0}, 1e-6)
	p.Grad.Data[1] = float32(math.NaN())
	if _, err := ClipGradNorm([]*autodiff.Var[float32]{p}, 1); err == nil || !strings.Contains(err.Error(), `"w"`) {
		t.Fatalf("NaN: error %v, want one naming the parameter", err)
	}
}
