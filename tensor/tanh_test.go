package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestTanh32(t *testing.T) {
	worst := 0.0
	for i := -300000; i <= 300000; i++ {
		x := float64(i) * 4e-5
		want, got := math.Tanh(x), Tanh32(x)
		if want != 0 {
			worst = math.Max(worst, math.Abs(got-want)/math.Abs(want))
		} else if got != 0 {
			t.Fatalf("Tanh32(0) = %v", got)
		}
	}
	if worst > 4e-8 {
		t.Fatalf("relative error %g > 4e-8", worst)
	}
	for _, x := range []float64{1e-30, -1e-12, 20, -1e6, math.Inf(1), math.Inf(-1)} {
		if got, want := Tanh32(x), math.Tanh(x); math.Abs(got-want) > 4e-8*math.Abs(want) {
			t.Errorf("Tanh32(%v) = %v, want %v", x, got, want)
		}
	}
	if !math.IsNaN(Tanh32(math.NaN())) {
		t.Error("Tanh32(NaN) is not NaN")
	}
}

func TestTanhAddDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 8, 16, 17, 64} {
		for trial := 0; trial < 50; trial++ {
			x, y, w, tau := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * 4)
				y[i] = float32(rng.NormFloat64() * 4)
				w[i] = float32(rng.NormFloat64())
			}
			x[0] = []float32{30, -30, 0, 9, -9}[trial%5]
			for _, yy := range [][]float32{y, nil} {
				s := TanhAddDot(tau, x, yy, w)
				want := 0.0
				for i := range x {
					a := float64(x[i])
					if yy != nil {
						a += float64(yy[i])
					}
					th := math.Tanh(a)
					if d := math.Abs(float64(tau[i]) - th); d > 1e-6 {
						t.Fatalf("n=%d y=%v: tau[%d] = %v, want %v", n, yy != nil, i, tau[i], th)
					}
					want += float64(w[i]) * th
				}
				if math.Abs(float64(s)-want) > 1e-5*(1+math.Abs(want)) {
					t.Fatalf("n=%d: sum %v, want %v", n, s, want)
				}
			}
		}
	}
}

func BenchmarkTanhAddDot(b *testing.B) {
	for _, n := range []int{16, 64} {
		x, y, w, tau := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i], w[i] = float32(i%7)-3, 0.5, 1
		}
		b.Run(map[int]string{16: "n16", 64: "n64"}[n], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				TanhAddDot(tau, x, y, w)
			}
		})
	}
}
