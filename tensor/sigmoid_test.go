package tensor

import (
	"math"
	"testing"
)

// TestSigmoid64 compares with the math.Exp form over the whole range,
// including the tails, ±0, the floor at e^{−708}, ±Inf and NaN, and lengths
// that are not multiples of the vector width.
func TestSigmoid64(t *testing.T) {
	var x []float64
	for i := -20000; i <= 20000; i++ {
		x = append(x, float64(i)*0.0371)
	}
	x = append(x, 0, math.Copysign(0, -1), 700, -700, 708, -708, 709.5, -745, 1e6, -1e6, math.Inf(1), math.Inf(-1), 1e-300, -1e-300, 36.7, -36.7, 1)
	dst := make([]float64, len(x))
	Sigmoid64(dst, x)
	for i, v := range x {
		want := sigmoidGo(v)
		got := dst[i]
		switch {
		case v < -708: // e^{−708} or below (the vector kernel floors e^{−|x|})
			if !(got >= 0 && got <= 1e-300) {
				t.Errorf("σ(%v) = %v, want 0 or a tiny positive value", v, got)
			}
		case math.Abs(got-want) > 1e-14*want:
			t.Errorf("σ(%v) = %v, want %v (relative error %.2g)", v, got, want, math.Abs(got-want)/want)
		}
	}
	nan := []float64{math.NaN(), 1, 2, 3}
	Sigmoid64(nan, nan)
	if !math.IsNaN(nan[0]) || nan[1] != sigmoidGo(1) {
		t.Errorf("σ(NaN) = %v, σ(1) = %v", nan[0], nan[1])
	}
}

func BenchmarkSigmoid64(b *testing.B) {
	x := make([]float64, 4096)
	for i := range x {
		x[i] = float64(i%200)*0.1 - 10
	}
	dst := make([]float64, len(x))
	b.SetBytes(int64(8 * len(x)))
	for i := 0; i < b.N; i++ {
		Sigmoid64(dst, x)
	}
}
