package tensor

import (
	"fmt"
	"math"
)

// Log64 sets dst[i] = ln(x[i]), the same bits as math.Log. dst may be x.
// On AVX2 four positive normal finite values at a time run in assembly,
// lane by lane the operations, in the order, of math.Log's amd64 kernel
// (frexp, the reduction to [√2/2, √2), the degree-14 rational
// approximation in s = f/(2+f)); a block with a zero, negative,
// subnormal, infinite or NaN value, and the last len(x) mod 4 values, go
// through math.Log.
func Log64(dst, x []float64) {
	if len(dst) != len(x) {
		panic(fmt.Sprintf("tensor: Log64 lengths %d and %d", len(dst), len(x)))
	}
	i, n := 0, 0
	if haveAVX2FMA {
		n = len(x) &^ 3
	}
	for i < n {
		i += log64AVX(&dst[i], &x[i], n-i)
		if i < n {
			// A block with a special value: the scalar path decides it.
			for j := i; j < i+4; j++ {
				dst[j] = math.Log(x[j])
			}
			i += 4
		}
	}
	for ; i < len(x); i++ {
		dst[i] = math.Log(x[i])
	}
}
