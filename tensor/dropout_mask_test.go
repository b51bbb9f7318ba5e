package tensor

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// dropoutMaskRef is DropoutMask's definition, element by element.
func dropoutMaskRef[T Float](dst, src []T, words []uint64, thr uint64, scale, val T) {
	for i := range dst {
		u := words[i/2] & math.MaxUint32
		if i%2 == 1 {
			u = words[i/2] >> 32
		}
		var m T
		if u >= thr {
			m = val
		}
		if src == nil {
			dst[i] = m
		} else {
			dst[i] = src[i] * scale * m
		}
	}
}

// TestDropoutMask checks DropoutMask (the AVX2 kernel for float32 where
// the machine has it, and its tails) against the element-wise definition,
// bit for bit: thresholds at the edges, NaN, infinities and negative
// values in src (a dropped −x gives −0), src aliasing dst, and float64.
func TestDropoutMask(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	thrs := []uint64{0, 1, 1 << 31, uint64(rng.Uint32()), math.MaxUint32, 1 << 32}
	for _, n := range []int{0, 1, 7, 8, 9, 16, 31, 100, 4096} {
		words := make([]uint64, (n+1)/2)
		for i := range words {
			words[i] = rng.Uint64()
		}
		if len(words) > 0 {
			words[0] = 1<<63 | 5 // high half ≥ 2³¹, low half 5: signed compares would get these wrong
		}
		src := make([]float32, n)
		for i := range src {
			src[i] = float32(rng.NormFloat64() * 3)
		}
		if n > 9 {
			src[3], src[4], src[9] = float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))
		}
		for _, thr := range thrs {
			for _, mode := range []string{"mask", "scaled", "in place"} {
				got, want := make([]float32, n), make([]float32, n)
				var s []float32
				switch mode {
				case "scaled":
					s = src
				case "in place":
					copy(got, src)
					s = got
				}
				ws := s
				if mode == "in place" {
					ws = src
				}
				dropoutMaskRef(want, ws, words, thr, 1.25, 2.5)
				DropoutMask(got, s, words, thr, 1.25, 2.5)
				if !bitsEqual32(got, want) {
					t.Fatalf("n %d, thr %d, %s: got %v, want %v", n, thr, mode, got, want)
				}
				kept := 0
				for _, v := range want {
					if v != 0 && !math.IsNaN(float64(v)) {
						kept++
					}
				}
				if thr == 1<<32 && kept != 0 {
					t.Fatalf("thr 2³² kept %d elements", kept)
				}
			}
			src64, got64, want64 := make([]float64, n), make([]float64, n), make([]float64, n)
			for i, v := range src {
				src64[i] = float64(v)
			}
			dropoutMaskRef(want64, src64, words, thr, 1.25, 2.5)
			DropoutMask(got64, src64, words, thr, 1.25, 2.5)
			if !bitsEqual64(got64, want64) {
				t.Fatalf("float64, n %d, thr %d: got %v, want %v", n, thr, got64, want64)
			}
		}
	}
}

func TestDropoutMaskPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"few words":  func() { DropoutMask(make([]float32, 5), nil, make([]uint64, 2), 0, 1, 1) },
		"src length": func() { DropoutMask(make([]float32, 4), make([]float32, 3), make([]uint64, 2), 0, 1, 1) },
		"thr > 2³²":  func() { DropoutMask(make([]float32, 4), nil, make([]uint64, 2), 1<<32+1, 1, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func BenchmarkDropoutMask(b *testing.B) {
	for _, n := range []int{512, 4096} {
		words := make([]uint64, n/2)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range words {
			words[i] = rng.Uint64()
		}
		x := make([]float32, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				DropoutMask(x, x, words, 1<<31, 1, 2)
			}
		})
	}
}
