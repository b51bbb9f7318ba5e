package tensor

// gatherDotGo is GatherDot's float32 kernel for the Go kernel set:
// dst[e] (+)= Σ_j q[j]·h[idx[e]·c + j] in float64. q is widened once per
// call (c ≤ len(qw), the caller's stack buffer) instead of once per row,
// and each dot product runs in four partial sums, the columns j ≡ 0, 1, 2,
// 3 (mod 4), added as (s0+s1)+(s2+s3): four independent addition chains
// instead of one. Every product of two float32 values is exact in float64,
// so the result differs from the sequential sum only in the rounding of
// the additions. On arm64's neon set gatherDotNEON runs the same chains,
// two lanes a vector, to the same bits. Callers check that every idx[e]
// is a row of h.
func gatherDotGo(dst, q, h []float32, c int, idx []int32, acc bool, qw []float64) {
	qw = qw[:c]
	for j, v := range q[:c] {
		qw[j] = float64(v)
	}
	dst = dst[:len(idx)]
	if haveNEON && len(idx) > 0 {
		gatherDotNEON(&dst[0], &qw[0], first(h), c, &idx[0], len(idx), acc)
		return
	}
	gatherDotLoop(dst, qw, h, c, idx, acc)
}

// gatherDotLoop is gatherDotGo's loop over the rows, with q already
// widened into qw.
func gatherDotLoop(dst []float32, qw []float64, h []float32, c int, idx []int32, acc bool) {
	dst = dst[:len(idx)]
	for e, r := range idx {
		row := h[int(r)*c : int(r)*c+c]
		row = row[:len(qw)]
		var s0, s1, s2, s3 float64
		j := 0
		for ; j+4 <= len(row); j += 4 {
			x, y := row[j:j+4:j+4], qw[j:j+4:j+4]
			s0 += y[0] * float64(x[0])
			s1 += y[1] * float64(x[1])
			s2 += y[2] * float64(x[2])
			s3 += y[3] * float64(x[3])
		}
		for ; j < len(row); j++ {
			s0 += qw[j] * float64(row[j])
		}
		s := float32((s0 + s1) + (s2 + s3))
		if acc {
			dst[e] += s
		} else {
			dst[e] = s
		}
	}
}

// gatherDotGoMaxCols is the widest q gatherDotGo takes (its widened copy
// lives on the caller's stack, zeroed on every call); wider rows run
// GatherDot's generic loop.
const gatherDotGoMaxCols = 32
