package tensor

import "fmt"

// ScaleGroups sets dst[e·k + q] = x[e·k + q]·s[e] for every group e of k
// values (q < k), or adds that product to dst[e·k + q] when accumulate is
// set: one rounded product, then one rounded sum, as the plain loop
// computes it, so every path gives its bits. The routing's gated sums use
// it for w = γ⊙c and its backward pass for ∂γ += ∂w⊙c, with k = 4
// perspectives a link (four links a vector on AVX-512, two on AVX2).
func ScaleGroups[T Float](dst, x, s []T, k int, accumulate bool) {
	if k < 1 || len(dst) != len(x) || len(x) != k*len(s) {
		panic(fmt.Sprintf("tensor: ScaleGroups lengths: dst %d, x %d, s %d in groups of %d", len(dst), len(x), len(s), k))
	}
	e := 0
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA && k == 4 {
		if e = len(s) &^ 3; e > 0 {
			if scaleGroupsZ {
				scaleGroups4Z(&d[0], &any(x).([]float32)[0], &any(s).([]float32)[0], e, accumulate)
			} else {
				scaleGroups4Y(&d[0], &any(x).([]float32)[0], &any(s).([]float32)[0], e, accumulate)
			}
		}
	}
	for ; e < len(s); e++ {
		se := s[e]
		row, xr := dst[e*k:(e+1)*k], x[e*k:(e+1)*k]
		for q, v := range xr[:len(row)] {
			if accumulate {
				row[q] += v * se
			} else {
				row[q] = v * se
			}
		}
	}
}

// scaleGroupsZ selects ScaleGroups' AVX-512 kernel over its AVX2 one; tests
// turn it off to check the AVX2 kernel on machines with AVX-512.
var scaleGroupsZ = haveAVX512
