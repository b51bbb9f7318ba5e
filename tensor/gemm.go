package tensor

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Gemm tiles. gonum's native Sgemm/Dgemm spawn goroutines (and allocate)
// once a product has 4 or more 64×64 blocks of C, so Gemm cuts C into tiles
// of at most 3 such blocks and runs the tiles on ParallelRange: each gonum
// call stays serial and allocation-free, and the parallelism is ours.
const (
	// gemmTransposeMaxElems and gemmTransposeMinRows bound when Gemm
	// copies a transposed b (see Gemm): small b, many rows of a.
	gemmTransposeMaxElems = 1 << 16
	gemmTransposeMinRows  = 32

	gemmBlock     = 64
	gemmTileBlock = 3 // blocks per tile, < gonum's minParBlock (4)
)

// Gemm computes dst = alpha·op(a)·op(b) + beta·dst, where op(x) is x or xᵀ
// as transA/transB say. op(a) is M×K, op(b) K×N and dst must already be M×N;
// dst must not alias a or b. With beta = 0 dst is overwritten (NaNs in it are
// ignored). float32 and float64 use gonum's blas32/blas64 (pure Go with
// assembly kernels; an `openblas` build tag routing these calls to gonum's
// netlib bindings is left for later).
func Gemm[T Float](dst, a, b *Dense[T], transA, transB bool, alpha, beta T) {
	m, ka := a.Rows, a.Cols
	if transA {
		m, ka = ka, m
	}
	kb, n := b.Rows, b.Cols
	if transB {
		kb, n = n, kb
	}
	if ka != kb || dst.Rows != m || dst.Cols != n {
		panic(fmt.Sprintf("tensor: Gemm shape mismatch: op(a) %d×%d, op(b) %d×%d, dst %d×%d", m, ka, kb, n, dst.Rows, dst.Cols))
	}
	if m == 0 || n == 0 {
		return
	}
	if ka == 0 || alpha == 0 {
		scaleInPlace(dst.Data, beta)
		return
	}
	// Tile shape: up to 3 blocks of 64 along N, then as many rows as keep
	// the tile at 3 blocks in all.
	nb := min((n+gemmBlock-1)/gemmBlock, gemmTileBlock)
	tn := nb * gemmBlock
	tm := (gemmTileBlock / nb) * gemmBlock
	mt, nt := (m+tm-1)/tm, (n+tn-1)/tn
	if transA && !transB && gemmFitTZ(dst, a, alpha, beta) {
		// aᵀ·b with a long inner dimension (the weight gradient Hᵀ·∂Y of a
		// wide hidden layer) on AVX-512: rows in pairs straight from a's
		// columns, in chunks of the inner dimension.
		k := kernel[T]{kind: kGemmTZ}
		st := getScratch[T](m, n)
		k.dst, k.a, k.b, k.w, k.acc = dst, a, b, st.Data, beta == 1
		k.launch(m/2, m*n*ka)
		putScratch(st)
		return
	}
	if transA && !transB && m <= n && gemmRowsFitTA(dst, a, b, alpha, beta) {
		// aᵀ·b with a narrower than b (the weight gradient of a narrow
		// input, a_Tᵀ·∂X in routing's prediction): transpose the small a
		// and compute dst by rows, whose outputs are b's wide rows.
		at := getScratch[T](m, ka)
		transposeInto(at, a)
		gemmByRows(dst, at, b, false, beta)
		putScratch(at)
		return
	}
	if transA && !transB && gemmRowsFitT(dst, a, b, alpha) {
		// aᵀ·b (the weight gradient of a Linear layer): compute the
		// transposed product bᵀ·a by rows, whose outputs are a's narrow
		// rows, then transpose it back.
		bt := getScratch[T](n, ka)
		transposeInto(bt, b)
		ct := getScratch[T](n, m)
		gemmByRows(ct, bt, a, false, 0)
		addTransposed(dst, ct, beta)
		putScratch(ct) // LIFO, so the next call gets each back at its size
		putScratch(bt)
		return
	}
	if transA && !transB && n < gemmTransposeMinRows && m >= 2*n && m*n <= gemmTransposeMaxElems {
		// aᵀ·b with few columns (the weight gradient Xᵀ∂Y of a narrow
		// Linear layer) runs as length-N axpys; computing the transposed
		// product bᵀ·a, whose rows have length M, and transposing it back
		// is about twice as fast.
		ct := getScratch[T](n, m)
		Gemm(ct, b, a, true, false, alpha, 0)
		addTransposed(dst, ct, beta)
		putScratch(ct)
		return
	}
	if gemmRowsFit(dst, a, b, transA, transB, alpha, beta) {
		gemmByRows(dst, a, b, transB, beta)
		return
	}
	k := kernel[T]{kind: kGemmTiles}
	k.dst, k.a, k.b = dst, a, b
	// gonum runs a·b as length-N axpys (one per element of a) and a·bᵀ as
	// length-K dots (one per element of dst); for skinny products the call
	// overhead dominates, so when b is small, transpose it into scratch to
	// get whichever form has the longer inner vector: the backward pass of
	// a narrow Linear layer (∂X = ∂Y·Wᵀ) and its forward pass (X·W with few
	// outputs) both gain 2-4×.
	if wantT := n < ka; wantT != transB && m >= gemmTransposeMinRows && n*ka <= gemmTransposeMaxElems {
		bt := getScratch[T](b.Cols, b.Rows)
		defer putScratch(bt)
		transposeInto(bt, b)
		k.b, transB = bt, wantT
	}
	k.transA, k.transB = transA, transB
	k.alpha, k.beta = alpha, beta
	k.height, k.width = tm, tn
	k.launch(mt*nt, min(tm, m)*min(tn, n)*ka)
}

// gemmRowsMaxK bounds the inner dimension of the row kernel.
const gemmRowsMaxK = 1 << 15

// gemmRowsMaxN bounds the output width of the row kernel: beyond it gonum's
// cache-blocked kernel is faster.
const gemmRowsMaxN = 128

// gemmRowsFit reports whether Gemm can run as float32 row aggregations
// (the AVX2 row kernels, or gemmRowsGo in the Go kernel set): dst =
// a·op(b) or dst += a·op(b) with narrow outputs, the shapes of graph layers (N×64 times 64×7) where gonum's per-element dots and
// axpys are dominated by call overhead.
func gemmRowsFit[T Float](dst, a, b *Dense[T], transA, transB bool, alpha, beta T) bool {
	if _, ok := any(dst.Data).([]float32); !ok {
		return false
	}
	if transA || alpha != 1 || (beta != 0 && beta != 1) {
		return false
	}
	k := a.Cols
	if k > gemmRowsMaxK || dst.Cols > gemmRowsMaxN || !gemmRowsGoFits(dst.Cols) {
		return false
	}
	return !transB || b.Rows*b.Cols <= gemmTransposeMaxElems
}

// gemmRowsFitT reports whether dst = aᵀ·b + β·dst can run as the row
// kernel on bᵀ·a: float32, α = 1, a's rows (the outputs of bᵀ·a)
// narrow, and b's transpose small enough to copy.
func gemmRowsFitT[T Float](dst, a, b *Dense[T], alpha T) bool {
	if _, ok := any(dst.Data).([]float32); !ok || alpha != 1 {
		return false
	}
	return a.Rows <= gemmRowsMaxK && a.Cols <= gemmRowsMaxN && b.Rows*b.Cols <= gemmTransposeMaxElems*16 && gemmRowsGoFits(a.Cols)
}

// gemmRowsFitTA reports whether dst = aᵀ·b + β·dst can run as the row
// kernel on a's transpose: float32, α = 1, β ∈ {0, 1}, the inner
// dimension (a's rows) within the row kernel's index vector and dst narrow
// enough for it.
func gemmRowsFitTA[T Float](dst, a, b *Dense[T], alpha, beta T) bool {
	if _, ok := any(dst.Data).([]float32); !ok || alpha != 1 || (beta != 0 && beta != 1) {
		return false
	}
	return a.Rows <= gemmRowsMaxK && dst.Cols <= gemmRowsMaxN && a.Rows*a.Cols <= gemmTransposeMaxElems*16 && gemmRowsGoFits(dst.Cols)
}

// gemmByRows runs a Gemm that gemmRowsFit accepted, transposing a small
// transposed b into scratch first.
func gemmByRows[T Float](dst, a, b *Dense[T], transB bool, beta T) {
	if transB {
		bt := getScratch[T](b.Cols, b.Rows)
		defer putScratch(bt)
		transposeInto(bt, b)
		b = bt
	}
	k := kernel[T]{kind: kGemmRows}
	if b32, ok := any(b.Data).([]float32); ok && gemmAVX512 && b.Cols > gemmPanel {
		bp := getScratch[T](b.Rows, b.Cols)
		defer putScratch(bp)
		p32, _ := any(bp.Data).([]float32)
		packPanels(p32, b32, b.Rows, b.Cols)
		b, k.packed = bp, true
	}
	if _, ok := any(b.Data).([]float32); ok && a.Cols > gemmChunkK && (gemmAVX512 && dst.Cols >= gemmPanel && dst.Rows >= 2 || !gemmAVX512 && dst.Cols >= 32 && dst.Rows >= 3) {
		st := getScratch[T](dst.Rows, dst.Cols)
		defer putScratch(st)
		k.w = st.Data
	}
	k.dst, k.a, k.b, k.acc = dst, a, b, beta == 1
	k.launch(dst.Rows, dst.Cols*a.Cols)
}

// addTransposed sets dst (m×n) to ctᵀ + beta·dst, ct being n×m; with beta = 0
// dst's old contents (NaNs included) are ignored.
func addTransposed[T Float](dst, ct *Dense[T], beta T) {
	m, n := dst.Rows, dst.Cols
	for i := 0; i < m; i++ {
		row := dst.Data[i*n : (i+1)*n]
		for j := range row {
			if beta == 0 {
				row[j] = ct.Data[j*m+i]
			} else {
				row[j] = beta*row[j] + ct.Data[j*m+i]
			}
		}
	}
}

// transposeInto sets dst (c×r) to the transpose of m (r×c). Four rows of m
// at a time become four adjacent values of each row of dst: one bounds
// check and one short run of stores per four values. Gemm transposes the
// narrow operand of a weight gradient (an N×18 matrix) on every backward
// pass, and the element-at-a-time loop took 2% of a DD profile.
func transposeInto[T Float](dst, m *Dense[T]) {
	r, c := m.Rows, m.Cols
	src, out := m.Data[:r*c], dst.Data[:r*c]
	i := 0
	for ; i+4 <= r; i += 4 {
		r0, r1, r2, r3 := src[i*c:(i+1)*c], src[(i+1)*c:(i+2)*c], src[(i+2)*c:(i+3)*c], src[(i+3)*c:(i+4)*c]
		for j, v := range r0 {
			o := out[j*r+i : j*r+i+4 : j*r+i+4]
			o[0], o[1], o[2], o[3] = v, r1[j], r2[j], r3[j]
		}
	}
	for ; i < r; i++ {
		for j, v := range src[i*c : (i+1)*c] {
			out[j*r+i] = v
		}
	}
}

// gemmRows computes rows [lo, hi) of dst (+)= a·b (float32 only, see
// gemmRowsFit): row i aggregates b's rows weighted by row i of a. Gemm has
// already returned for an empty inner dimension, so every row has terms.
// On AVX2, gemmRowsAVX2 runs products 17-23 columns wide, and the 32- and
// 8-column blocks and the masked tail of other widths, over all rows, with
// the arithmetic of the row kernels that axpyRowAVX calls per row, so the
// bits do not depend on the path (TestGemmRowsBlocks). With AVX-512,
// gemmRowsZ runs them instead.
func gemmRows[T Float](k *kernel[T], lo, hi int) {
	d, _ := any(k.dst.Data).([]float32)
	a, _ := any(k.a.Data).([]float32)
	b, _ := any(k.b.Data).([]float32)
	n, kk := k.dst.Cols, k.a.Cols
	if hi <= lo {
		return
	}
	if !haveAVX2FMA {
		if haveNEON {
			gemmRowsNEONRange(d, a, b, n, kk, lo, hi, k.acc)
			return
		}
		gemmRowsGo(d, a, b, n, kk, lo, hi, k.acc)
		return
	}
	st, _ := any(k.w).([]float32)
	if gemmAVX512 {
		gemmRowsZ(d, a, b, st, n, kk, lo, hi, k.acc, k.packed)
		return
	}
	gemmRowsAVX2(d, a, b, st, n, kk, lo, hi, k.acc)
}

// gemmAVX512 selects gemmRowsZ in gemmRows; tests turn it off to check
// the AVX2 kernels on machines with AVX-512.
var gemmAVX512 = haveAVX512

// gemmRowsZ is gemmRows on AVX-512: 64-column blocks, two rows per pass
// (gemmRowsZ4x2, then gemmRowsZ4 for an odd row), then the remaining 1-63
// columns in one masked call (gemmRowsZ1-Z4), each covering rows [lo, hi)
// with the AVX2 kernels' arithmetic. With packed, b is in column panels
// (see packPanels): the block starting at column j is b[j·kk:] with row
// stride min(64, n−j). With state (laid out as d) and an inner dimension
// longer than gemmChunkK, the 64-column blocks run in chunks of the inner
// dimension (gemmRowsZ4x2S), to the same bits.
func gemmRowsZ(d, a, b, state []float32, n, kk, lo, hi int, acc, packed bool) {
	rows := hi - lo
	panel := func(j int) (int, int) {
		if packed {
			return j * kk, min(gemmPanel, n-j)
		}
		return j, n
	}
	j := 0
	for ; j+64 <= n; j += 64 {
		off, ldb := panel(j)
		bj := &b[off]
		dst, src := &d[lo*n+j], &a[lo*kk]
		if state != nil && rows >= 2 {
			// Long inner dimension: run it in chunks that stay in L1
			// across all row pairs, chain B kept in state between them.
			for c := 0; c < kk; c += gemmChunkK {
				kc, mode := min(gemmChunkK, kk-c), 0
				if c > 0 {
					mode |= 1
				}
				if c+kc == kk {
					mode |= 2
				}
				gemmRowsZ4x2S(dst, n, &a[lo*kk+c], kk, &b[off+c*ldb], ldb, kc, rows/2, acc || c > 0, 0xffff, &state[lo*n+j], mode)
			}
			if rows%2 == 0 {
				continue
			}
			dst, src = &d[(hi-1)*n+j], &a[(hi-1)*kk]
		} else if rows >= 2 {
			gemmRowsZ4x2(dst, n, src, kk, bj, ldb, kk, rows/2, acc, 0xffff)
			if rows%2 == 0 {
				continue
			}
			dst, src = &d[(hi-1)*n+j], &a[(hi-1)*kk]
		}
		gemmRowsZ4(dst, n, src, kk, bj, ldb, kk, 1, acc, 0xffff)
	}
	rem := n - j
	if rem == 0 {
		return
	}
	v := (rem + 15) / 16
	mask := 1<<(rem-16*(v-1)) - 1
	off, ldb := panel(j)
	bj := &b[off]
	dst, src := &d[lo*n+j], &a[lo*kk]
	if v <= 2 && rows >= 2 { // narrow: two rows per pass, then the odd one
		pairs := rows / 2
		if v == 1 {
			gemmRowsZ1x2(dst, n, src, kk, bj, ldb, kk, pairs, acc, mask)
		} else {
			gemmRowsZ2x2(dst, n, src, kk, bj, ldb, kk, pairs, acc, mask)
		}
		if rows%2 == 0 {
			return
		}
		dst, src, rows = &d[(hi-1)*n+j], &a[(hi-1)*kk], 1
	}
	switch v {
	case 1:
		gemmRowsZ1(dst, n, src, kk, bj, ldb, kk, rows, acc, mask)
	case 2:
		gemmRowsZ2(dst, n, src, kk, bj, ldb, kk, rows, acc, mask)
	case 3:
		gemmRowsZ3(dst, n, src, kk, bj, ldb, kk, rows, acc, mask)
	default:
		gemmRowsZ4(dst, n, src, kk, bj, ldb, kk, rows, acc, mask)
	}
}

// gemmFitTZ reports whether dst = aᵀ·b + β·dst runs as gemmTZ: float32
// on AVX-512, α = 1, β ∈ {0, 1}, an even number of rows, 64-column blocks
// and an inner dimension beyond one chunk.
func gemmFitTZ[T Float](dst, a *Dense[T], alpha, beta T) bool {
	if _, ok := any(dst.Data).([]float32); !ok || !gemmAVX512 || alpha != 1 || (beta != 0 && beta != 1) {
		return false
	}
	return dst.Rows%2 == 0 && dst.Cols%gemmPanel == 0 && a.Rows > gemmChunkK
}

// gemmTZ computes row pairs [lo, hi) of dst (+)= aᵀ·b (see gemmFitTZ):
// for each 64-column block of b, chunks of gemmChunkKT of its rows (16 KiB,
// which at b's stride still fit the L1 sets they fold onto) are reused by
// all the worker's row pairs, chain B kept in k.w between chunks. The bits
// are those of the row kernels on a transposed copy of a.
func gemmTZ[T Float](k *kernel[T], lo, hi int) {
	d, _ := any(k.dst.Data).([]float32)
	a, _ := any(k.a.Data).([]float32)
	b, _ := any(k.b.Data).([]float32)
	st, _ := any(k.w).([]float32)
	m, n, kk := k.dst.Rows, k.dst.Cols, k.a.Rows
	r0, pairs := 2*lo, hi-lo
	if pairs <= 0 {
		return
	}
	for j := 0; j < n; j += gemmPanel {
		for c := 0; c < kk; c += gemmChunkKT {
			kc, mode := min(gemmChunkKT, kk-c), 0
			if c > 0 {
				mode |= 1
			}
			if c+kc == kk {
				mode |= 2
			}
			gemmRowsZ4x2ST(&d[r0*n+j], n, &a[c*m+r0], m, &b[c*n+j], n, kc, pairs, k.acc || c > 0, 0xffff, &st[r0*n+j], mode)
		}
	}
}

// gemmChunkKT is gemmTZ's inner-dimension chunk (even).
const gemmChunkKT = 64

// gemmChunkK is the inner-dimension chunk of gemmRowsZ4x2S and
// gemmRows32x3S (even, so that every term keeps its chain): 128 rows of a 64-column panel are 32 KiB,
// which stays in L1 while all row pairs of a worker pass over it.
const gemmChunkK = 128

// gemmPanel is the column width of packPanels' panels: one gemmRowsZ4 block.
const gemmPanel = 64

// packPanels copies b (k×n, row-major) into dst as column panels: columns
// [j, j+w) with w = min(64, n−j) become a k×w row-major block at dst[j·k:].
// A block of a wider b is k rows 64 floats long at a stride of n floats,
// which for n a multiple of 128 folds onto half of the L1 cache's sets
// (2708×128×128 ran at a third of the speed of 2708×64×128); a panel is
// contiguous.
func packPanels(dst, b []float32, k, n int) {
	for j := 0; j < n; j += gemmPanel {
		w := min(gemmPanel, n-j)
		p := dst[j*k : j*k+k*w]
		for r := 0; r < k; r++ {
			copy(p[r*w:(r+1)*w], b[r*n+j:r*n+j+w])
		}
	}
}

// MatMul computes dst = a·b (dst must be a.Rows×b.Cols).
func MatMul[T Float](dst, a, b *Dense[T]) { Gemm(dst, a, b, false, false, 1, 0) }

func scaleInPlace[T Float](x []T, s T) {
	if s == 0 {
		clear(x)
		return
	}
	if s == 1 {
		return
	}
	for i := range x {
		x[i] *= s
	}
}

// gemmTiles runs tiles [lo, hi) of a Gemm; tiles are numbered row-major
// over the tile grid. Uses dst, a, b, transA, transB, alpha, beta, height, width.
func gemmTiles[T Float](k *kernel[T], lo, hi int) {
	tm, tn := k.height, k.width
	m, n := k.dst.Rows, k.dst.Cols
	nt := (n + tn - 1) / tn
	for t := lo; t < hi; t++ {
		r0, c0 := (t/nt)*tm, (t%nt)*tn
		r1, c1 := min(r0+tm, m), min(c0+tn, n)
		gemmTile(k, r0, r1, c0, c1)
	}
}

// gemmTile computes the block dst[r0:r1, c0:c1] by one serial gonum call on
// strided views: rows of a row-major matrix are offsets by a multiple of the
// stride, columns are plain offsets.
func gemmTile[T Float](k *kernel[T], r0, r1, c0, c1 int) {
	a, b, c := k.a, k.b, k.dst
	var aOff, aR, aC, bOff, bR, bC int
	if k.transA { // a is K×M: take columns r0:r1
		aOff, aR, aC = r0, a.Rows, r1-r0
	} else {
		aOff, aR, aC = r0*a.Cols, r1-r0, a.Cols
	}
	if k.transB { // b is N×K: take rows c0:c1
		bOff, bR, bC = c0*b.Cols, c1-c0, b.Cols
	} else {
		bOff, bR, bC = c0, b.Rows, c1-c0
	}
	cOff := r0*c.Cols + c0
	tA, tB := blas.NoTrans, blas.NoTrans
	if k.transA {
		tA = blas.Trans
	}
	if k.transB {
		tB = blas.Trans
	}
	switch cd := any(c.Data).(type) {
	case []float32:
		ad, bd := any(a.Data).([]float32), any(b.Data).([]float32)
		blas32.Gemm(tA, tB, float32(k.alpha),
			blas32.General{Rows: aR, Cols: aC, Stride: a.Cols, Data: ad[aOff:]},
			blas32.General{Rows: bR, Cols: bC, Stride: b.Cols, Data: bd[bOff:]},
			float32(k.beta),
			blas32.General{Rows: r1 - r0, Cols: c1 - c0, Stride: c.Cols, Data: cd[cOff:]})
	case []float64:
		ad, bd := any(a.Data).([]float64), any(b.Data).([]float64)
		blas64.Gemm(tA, tB, float64(k.alpha),
			blas64.General{Rows: aR, Cols: aC, Stride: a.Cols, Data: ad[aOff:]},
			blas64.General{Rows: bR, Cols: bC, Stride: b.Cols, Data: bd[bOff:]},
			float64(k.beta),
			blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: c.Cols, Data: cd[cOff:]})
	default:
		gemmTileGo(k, r0, r1, c0, c1)
	}
}

// gemmTileGo is the fallback for element types that are not float32 or
// float64 themselves (named types with those underlying types).
func gemmTileGo[T Float](k *kernel[T], r0, r1, c0, c1 int) {
	a, b, c := k.a, k.b, k.dst
	kk := a.Cols
	if k.transA {
		kk = a.Rows
	}
	for i := r0; i < r1; i++ {
		for j := c0; j < c1; j++ {
			var s T
			for p := 0; p < kk; p++ {
				var av, bv T
				if k.transA {
					av = a.Data[p*a.Cols+i]
				} else {
					av = a.Data[i*a.Cols+p]
				}
				if k.transB {
					bv = b.Data[j*b.Cols+p]
				} else {
					bv = b.Data[p*b.Cols+j]
				}
				s += av * bv
			}
			if k.beta == 0 {
				c.Data[i*c.Cols+j] = k.alpha * s
			} else {
				c.Data[i*c.Cols+j] = k.alpha*s + k.beta*c.Data[i*c.Cols+j]
			}
		}
	}
}
