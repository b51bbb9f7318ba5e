//go:build !purego

package tensor

// gemmRows32x3 is gemmRows32 for 3·triples rows, three per pass, which
// share their loads of b; the same bits as gemmRows32.
//
//go:noescape
func gemmRows32x3(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, triples int, acc bool)

// gemmRows16Tailx3 is gemmRows16Tail for 3·triples rows, three per pass;
// the same bits as gemmRows16Tail.
//
//go:noescape
func gemmRows16Tailx3(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, triples int, acc bool, mask *int32)

// gemmRows8x4 is gemmRows8 for 4·quads rows, four per pass; the same bits
// as gemmRows8.
//
//go:noescape
func gemmRows8x4(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, quads int, acc bool, mask *int32)

// gemmRows32x3S is gemmRows32x3 over one even-length chunk of the inner
// dimension, chain B kept in state (laid out as dst) between chunks: mode
// bit 0 starts chain B from state, bit 1 sums the chains into dst (the
// last chunk). Run over consecutive chunks it gives gemmRows32x3's bits.
//
//go:noescape
func gemmRows32x3S(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k, triples int, acc bool, state *float32, mode int)

// gemmRowsAVX2 is gemmRows on AVX2 (see gemmRows for the arguments):
// products 17-23 columns wide in one pass over the columns, others in
// 32-column blocks and 8-column (or masked 1-7-column) ones. Most rows run
// in blocks of three (four for 8 columns), which share their loads of b
// (gemmRows32x3, gemmRows16Tailx3, gemmRows8x4); the rest one at a time.
// With state (laid out as d) and an inner dimension longer than
// gemmChunkK, the 32-column blocks run in chunks of it (gemmRows32x3S),
// each chunk of b reused by all row triples while it is in cache. Every
// path gives each element the per-row kernels' operations, so the bits do
// not depend on the blocking (TestGemmRowsBlocks).
func gemmRowsAVX2(d, a, b, state []float32, n, kk, lo, hi int, acc bool) {
	rows := hi - lo
	r3 := rows - rows%3
	if n > 16 && n < 24 { // axpyRowAVX's one-pass width
		mask := &tailMasks[8-(n-16)]
		if r3 > 0 {
			gemmRows16Tailx3(&d[lo*n], n, &a[lo*kk], kk, &b[0], n, kk, r3/3, acc, mask)
		}
		if r3 < rows {
			gemmRows16Tail(&d[(lo+r3)*n], n, &a[(lo+r3)*kk], kk, &b[0], n, kk, rows-r3, acc, mask)
		}
		return
	}
	j := 0
	for ; j+32 <= n; j += 32 {
		if r3 > 0 && state != nil && kk > gemmChunkK {
			for c := 0; c < kk; c += gemmChunkK {
				kc, mode := min(gemmChunkK, kk-c), 0
				if c > 0 {
					mode |= 1
				}
				if c+kc == kk {
					mode |= 2
				}
				gemmRows32x3S(&d[lo*n+j], n, &a[lo*kk+c], kk, &b[c*n+j], n, kc, r3/3, acc || c > 0, &state[lo*n+j], mode)
			}
		} else if r3 > 0 {
			gemmRows32x3(&d[lo*n+j], n, &a[lo*kk], kk, &b[j], n, kk, r3/3, acc)
		}
		if r3 < rows {
			gemmRows32(&d[(lo+r3)*n+j], n, &a[(lo+r3)*kk], kk, &b[j], n, kk, rows-r3, acc)
		}
	}
	r4 := rows - rows%4
	for ; j < n; j += 8 {
		mask := &tailMasks[0]
		if n-j < 8 {
			mask = &tailMasks[8-(n-j)]
		}
		if r4 > 0 {
			gemmRows8x4(&d[lo*n+j], n, &a[lo*kk], kk, &b[j], n, kk, r4/4, acc, mask)
		}
		if r4 < rows {
			gemmRows8(&d[(lo+r4)*n+j], n, &a[(lo+r4)*kk], kk, &b[j], n, kk, rows-r4, acc, mask)
		}
	}
}
