//go:build !purego

package tensor

// transposedPairs adds the terms of n entries of one row of a sparse
// matrix to the rows of dst (stride ldd floats) they name, or to those of
// odd (stride ldo): for entry e with column f = idx[e], the term
// w[e]·h[0:c] goes, by fused multiply-add lane by lane, onto dst's row f
// when state[f] is 0 or 2 (an even-numbered term of column f) and onto
// odd's row f when it is 1, and state[f] becomes 1 or 2 accordingly. The
// last c mod 8 columns go through mask (tailMasks), nil when there are
// none.
//
//go:noescape
func transposedPairs(dst *float32, ldd int, odd *float32, ldo int, h *float32, c int, idx *int32, w *float32, n int, state *uint8, mask *int32, f0, span int)
