package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Gather gives src's elements in idx's order at lengths on and off the
// 8-index vector blocks, and panics on an index outside src.
func TestGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 31, 100} {
		src := make([]float32, 50)
		for i := range src {
			src[i] = float32(rng.NormFloat64())
		}
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(rng.IntN(len(src)))
		}
		dst := make([]float32, n)
		Gather(dst, src, idx)
		for i, e := range idx {
			if dst[i] != src[e] {
				t.Fatalf("n=%d: dst[%d] = %v, want src[%d] = %v", n, i, dst[i], e, src[e])
			}
		}
		dst64, src64 := make([]float64, n), make([]float64, len(src))
		for i, v := range src {
			src64[i] = float64(v)
		}
		Gather(dst64, src64, idx)
		for i, e := range idx {
			if dst64[i] != src64[e] {
				t.Fatalf("float64 n=%d: dst[%d] = %v, want %v", n, i, dst64[i], src64[e])
			}
		}
	}
	for _, bad := range []int32{-1, 50} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("index %d of 50: no panic", bad)
				}
			}()
			idx := []int32{0, 1, 2, 3, 4, 5, 6, 7, bad}
			Gather(make([]float32, len(idx)), make([]float32, 50), idx)
		}()
	}
}

func BenchmarkGather(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1 << 10, 1 << 14} {
		src, dst, idx := make([]float32, n), make([]float32, n), make([]int32, n)
		for i := range idx {
			idx[i] = int32(rng.IntN(n))
		}
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for b.Loop() {
				Gather(dst, src, idx)
			}
		})
	}
}
