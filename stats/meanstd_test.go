package stats

import (
	"math"
	"testing"
)

func TestMeanStd(t *testing.T) {
	for _, tc := range []struct {
		xs        []float64
		mean, std float64
	}{
		{[]float64{1}, 1, 0},
		{[]float64{1, 3}, 2, 1},
		{[]float64{0.8, 0.9, 1.0}, 0.9, math.Sqrt(0.02 / 3)},
	} {
		m, s := MeanStd(tc.xs)
		if math.Abs(m-tc.mean) > 1e-12 || math.Abs(s-tc.std) > 1e-12 {
			t.Errorf("MeanStd(%v) = %v, %v; want %v, %v", tc.xs, m, s, tc.mean, tc.std)
		}
	}
	if m, _ := MeanStd(nil); !math.IsNaN(m) {
		t.Errorf("MeanStd(nil) mean = %v, want NaN", m)
	}
}
