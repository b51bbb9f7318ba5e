package tensor

import (
	"math"
	"testing"
)

// Inside FlushDenormals a denormal input counts as zero and a result too
// small to be normal becomes zero, on the caller's thread and in the
// chunks that the worker goroutines run; outside, both stay denormal.
func TestFlushDenormals(t *testing.T) {
	den := math.Float32frombits(1 << 20) // about 1.5e-39
	x := []float32{den, 1e-20, 1}
	prod := func() (float32, float32) { return x[0] * x[2], x[1] * x[1] }
	if a, b := prod(); a == 0 || b == 0 {
		t.Fatalf("outside FlushDenormals: %v and %v, want denormals", a, b)
	}
	FlushDenormals(func() {
		if !FlushingDenormals() {
			t.Skip("this platform does not flush denormals")
		}
		if a, b := prod(); a != 0 || b != 0 {
			t.Errorf("inside FlushDenormals: %v and %v, want 0", a, b)
		}
		// A product split over the workers: every chunk flushes.
		const n = 512
		a, b, c := NewDense[float32](n, 64), NewDense[float32](64, 64), NewDense[float32](n, 64)
		for i := range a.Data {
			a.Data[i] = 1e-20
		}
		for i := range b.Data {
			b.Data[i] = 1e-20
		}
		Gemm(c, a, b, false, false, 1, 0)
		for i, v := range c.Data {
			if v != 0 {
				t.Fatalf("element %d of a product of 1e-20s is %v, want 0", i, v)
			}
		}
	})
	if FlushingDenormals() {
		t.Error("the mode outlived FlushDenormals")
	}
	if a, _ := prod(); a == 0 {
		t.Error("outside FlushDenormals again: the denormal input reads as zero")
	}
}
