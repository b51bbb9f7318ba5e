package tensor

import "testing"

// Make returns zeroed slices of the asked length, small and large alike.
func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, hugeMin / 4, hugeMin/4 + 12345, 3 * hugeMin} {
		b := Make[float32](n)
		if len(b) != n {
			t.Fatalf("Make(%d): length %d", n, len(b))
		}
		for i, v := range b {
			if v != 0 {
				t.Fatalf("Make(%d)[%d] = %v, want 0", n, i, v)
			}
		}
		for i := range b {
			b[i] = float32(i)
		}
		if n > 0 && b[n-1] != float32(n-1) {
			t.Fatalf("Make(%d): the last element did not take its value", n)
		}
	}
}
