//go:build !purego

package tensor

// axpyRows16Tail4Links sums n source rows of h (indices idx, rows of
// stride floats, stride 17-23) into the four output rows at dst (stride
// apart), row r with the weight w[4·link[t] + r] of term t, each row with
// axpyRows16Tail's arithmetic (see AggregateGroupedLinked). mask has a bit
// for each column from the 17th on. The caller guarantees every row and
// weight read lies in its slice.
//
//go:noescape
func axpyRows16Tail4Links(dst *float32, h *float32, stride int, idx, link *int32, w *float32, n int, acc bool, mask int)
