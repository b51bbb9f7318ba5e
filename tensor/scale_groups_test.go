package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ScaleGroups gives the plain loop's bits, with and without accumulation,
// for groups of 1-5 values (four takes the AVX-512 or AVX2 kernel where
// the kernel set has one, and on AVX-512 machines the AVX2 kernel too) and
// group counts around its four-group vectors, in float32 and
// float64.
func TestScaleGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, k := range []int{1, 3, 4, 5} {
		for _, n := range []int{0, 1, 3, 4, 5, 8, 103} {
			for _, acc := range []bool{false, true} {
				name := fmt.Sprintf("k=%d/n=%d/acc=%v", k, n, acc)
				t.Run(name+"/float32", func(t *testing.T) { checkScaleGroups[float32](t, rng, k, n, acc) })
				if scaleGroupsZ { // the AVX2 kernel too
					t.Run(name+"/float32/avx2", func(t *testing.T) {
						defer func(z bool) { scaleGroupsZ = z }(scaleGroupsZ)
						scaleGroupsZ = false
						checkScaleGroups[float32](t, rng, k, n, acc)
					})
				}
				t.Run(name+"/float64", func(t *testing.T) { checkScaleGroups[float64](t, rng, k, n, acc) })
			}
		}
	}
}

func checkScaleGroups[T Float](t *testing.T, rng *rand.Rand, k, n int, acc bool) {
	x, s, dst := make([]T, k*n), make([]T, n), make([]T, k*n)
	for i := range x {
		x[i], dst[i] = T(rng.NormFloat64()), T(rng.NormFloat64())
	}
	for i := range s {
		s[i] = T(rng.NormFloat64())
	}
	want := append([]T(nil), dst...)
	for e := range s {
		for q := 0; q < k; q++ {
			if acc {
				want[e*k+q] += s[e] * x[e*k+q]
			} else {
				want[e*k+q] = s[e] * x[e*k+q]
			}
		}
	}
	ScaleGroups(dst, x, s, k, acc)
	for i, v := range want {
		if math.Float64bits(float64(dst[i])) != math.Float64bits(float64(v)) {
			t.Fatalf("element %d: %v, the loop %v", i, dst[i], v)
		}
	}
}

func TestScaleGroupsRejects(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for 7 values in groups of 4 over 2 scales")
		}
	}()
	ScaleGroups(make([]float32, 7), make([]float32, 7), make([]float32, 2), 4, false)
}
