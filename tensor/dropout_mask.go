package tensor

import (
	"fmt"
	"math"
)

// DropoutMask applies dropout keep decisions drawn as 32-bit uniforms: the
// uniform of element i is the low half of words[i/2] for even i and the
// high half for odd i (two elements per 64-bit draw, as a PCG stream gives
// them), and the element is kept when its uniform is ≥ thr (thr = 2³²
// drops every element). With m_i = val for a kept element and 0 otherwise,
// it sets dst[i] = m_i when src is nil (the mask itself) and
// dst[i] = (src[i]·scale)·m_i otherwise, each product rounded to T; src may
// be dst. It is the inner loop of autodiff's dropout ops and DropoutCSR:
// the random words are drawn serially, the decisions and products run on
// AVX2 for float32 (Go does not vectorise the compare), with the bits of
// the plain loop.
func DropoutMask[T Float](dst, src []T, words []uint64, thr uint64, scale, val T) {
	n := len(dst)
	if len(words) < (n+1)/2 || (src != nil && len(src) != n) || thr > 1<<32 {
		panic(fmt.Sprintf("tensor: DropoutMask: dst %d, src %d, words %d, thr %d", n, len(src), len(words), thr))
	}
	if thr > math.MaxUint32 { // every uniform is below 2³²
		val = 0
		thr = 0
	}
	done := 0
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA && n >= 8 {
		done = n &^ 7
		var s *float32
		if src != nil {
			s = &any(src).([]float32)[0]
		}
		dropoutMask32(&d[0], s, &words[0], done, uint32(thr), any(scale).(float32), any(val).(float32))
	}
	for i := done; i < n; i++ {
		u := uint64(uint32(words[i>>1] >> (32 * uint(i&1))))
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
