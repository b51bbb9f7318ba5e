package tensor

import "testing"

// Prefetch accepts any span, including empty ones, one byte and spans that
// end mid-line, and changes nothing.
func TestPrefetch(t *testing.T) {
	buf := make([]float32, 1000)
	for i := range buf {
		buf[i] = float32(i)
	}
	for _, n := range []int{0, 1, 15, 16, 17, 64, 999, 1000} {
		Prefetch(buf[:n])
		Prefetch(buf[1000-n:])
	}
	Prefetch([]byte{1})
	Prefetch([]int32(nil))
	for i, v := range buf {
		if v != float32(i) {
			t.Fatalf("element %d changed to %v", i, v)
		}
	}
}
