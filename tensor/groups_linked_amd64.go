//go:build !purego

package tensor

// axpyRows16Tail4Links sums n source rows of h (indices idx, rows of
// stride floats, stride 17-23) into the four output rows at dst (stride
// apart), row r with the weight w[4·link[t] + r] of term t, each row with
// axpyRows16Tail's arithmetic (see AggregateGroupedLinked). mask has a bit
// for each column from the 17th on. The caller guarantees every row and
// weight read lies in its slice. It runs axpyRows16Tail4LinksZ on AVX-512
// and axpyRows16Tail4LinksY on AVX2, with the same results.
func axpyRows16Tail4Links(dst *float32, h *float32, stride int, idx, link *int32, w *float32, n int, acc bool, mask int) {
	if haveAVX512 && !linkedAVX2Only {
		axpyRows16Tail4LinksZ(dst, h, stride, idx, link, w, n, acc, mask)
		return
	}
	axpyRows16Tail4LinksY(dst, h, stride, idx, link, w, n, acc, &tailMasks[8-(stride-16)])
}

//go:noescape
func axpyRows16Tail4LinksZ(dst *float32, h *float32, stride int, idx, link *int32, w *float32, n int, acc bool, mask int)

//go:noescape
func axpyRows16Tail4LinksY(dst *float32, h *float32, stride int, idx, link *int32, w *float32, n int, acc bool, mask *int32)
