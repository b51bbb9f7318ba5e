package tensor

import (
	"fmt"
	"math"
)

// Elementwise kernels over flat slices. They are memory-bound: they go
// parallel only for slices of tens of thousands of elements.

func checkLen(name string, n int, lens ...int) {
	for _, l := range lens {
		if l != n {
			panic(fmt.Sprintf("tensor: %s: slice lengths differ (%d and %d)", name, n, l))
		}
	}
}

// Axpy computes y += alpha·x.
func Axpy[T Float](alpha T, x, y []T) {
	checkLen("Axpy", len(x), len(y))
	k := kernel[T]{kind: kAxpyChunk}
	k.alpha, k.x, k.y = alpha, x, y
	k.launch(len(x), 1)
}

// axpyChunk uses alpha, x, y.
func axpyChunk[T Float](k *kernel[T], lo, hi int) { axpy(k.alpha, k.x[lo:hi], k.y[lo:hi]) }

// Scale computes x *= alpha.
func Scale[T Float](alpha T, x []T) {
	k := kernel[T]{kind: kScaleChunk}
	k.alpha, k.x = alpha, x
	k.launch(len(x), 1)
}

// scaleChunk uses alpha, x.
func scaleChunk[T Float](k *kernel[T], lo, hi int) {
	for i := range k.x[lo:hi] {
		k.x[lo+i] *= k.alpha
	}
}

// Add computes dst = a + b; dst may alias a or b.
func Add[T Float](dst, a, b []T) {
	checkLen("Add", len(dst), len(a), len(b))
	k := kernel[T]{kind: kAddChunk}
	k.w, k.x, k.y = dst, a, b
	k.launch(len(dst), 1)
}

// addChunk uses w (= dst), x, y.
func addChunk[T Float](k *kernel[T], lo, hi int) {
	d, a, b := k.w[lo:hi], k.x[lo:hi], k.y[lo:hi]
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

// Mul computes dst = a ⊙ b; dst may alias a or b.
func Mul[T Float](dst, a, b []T) {
	checkLen("Mul", len(dst), len(a), len(b))
	k := kernel[T]{kind: kMulChunk}
	k.w, k.x, k.y = dst, a, b
	k.launch(len(dst), 1)
}

// mulChunk uses w (= dst), x, y.
func mulChunk[T Float](k *kernel[T], lo, hi int) {
	d, a, b := k.w[lo:hi], k.x[lo:hi], k.y[lo:hi]
	for i := range d {
		d[i] = a[i] * b[i]
	}
}

// Map sets dst[i] = f(src[i]); dst may alias src. f runs concurrently on
// disjoint chunks. Pass a plain function, not a capturing closure, to keep
// the call allocation-free.
func Map[T Float](dst, src []T, f func(T) T) {
	checkLen("Map", len(dst), len(src))
	k := kernel[T]{kind: kMapChunk}
	k.w, k.x, k.f = dst, src, f
	k.launch(len(dst), 4)
}

// mapChunk uses w (= dst), x (= src), f.
func mapChunk[T Float](k *kernel[T], lo, hi int) {
	d, s := k.w[lo:hi], k.x[lo:hi]
	for i, v := range s {
		d[i] = k.f(v)
	}
}

// AddRowVector adds v to every row of m (a bias).
func AddRowVector[T Float](m *Dense[T], v []T) {
	checkLen("AddRowVector", m.Cols, len(v))
	if m.Rows == 0 {
		return
	}
	k := kernel[T]{kind: kAddRowVecRows}
	k.dst, k.x = m, v
	k.launch(m.Rows, max(m.Cols, 1))
}

// addRowVecRows uses dst, x (= v).
func addRowVecRows[T Float](k *kernel[T], lo, hi int) {
	c := k.dst.Cols
	for i := lo; i < hi; i++ {
		addTo(k.x, k.dst.Data[i*c:(i+1)*c])
	}
}

// SumRows sets dst[j] = Σ_i m[i][j] (adds with accumulate): the column sums,
// i.e. the gradient of a bias added to every row.
func SumRows[T Float](dst []T, m *Dense[T], accumulate bool) {
	checkLen("SumRows", m.Cols, len(dst))
	if !accumulate {
		clear(dst)
	}
	if m.Cols == 0 {
		return
	}
	bw := columnBlock(m.Cols)
	k := kernel[T]{kind: kSumRowsBlocks}
	k.a, k.w, k.width = m, dst, bw
	k.launch((m.Cols+bw-1)/bw, m.Rows*bw)
}

// sumRowsBlocks runs column blocks [lo, hi); uses a (= m), w (= dst), width.
func sumRowsBlocks[T Float](k *kernel[T], lo, hi int) {
	n := k.a.Cols
	c0, c1 := lo*k.width, min(hi*k.width, n)
	for i := 0; i < k.a.Rows; i++ {
		addTo(k.a.Data[i*n+c0:i*n+c1], k.w[c0:c1])
	}
}

// RowDot sets dst[i] = ⟨a_i, b_i⟩ for the rows of a and b (same shape).
func RowDot[T Float](dst []T, a, b *Dense[T]) {
	if !a.SameShape(b) || len(dst) != a.Rows {
		panic(fmt.Sprintf("tensor: RowDot shape mismatch: a %d×%d, b %d×%d, dst %d", a.Rows, a.Cols, b.Rows, b.Cols, len(dst)))
	}
	k := kernel[T]{kind: kRowDots}
	k.w, k.a, k.b = dst, a, b
	k.launch(a.Rows, max(a.Cols, 1))
}

// rowDots uses w (= dst), a, b.
func rowDots[T Float](k *kernel[T], lo, hi int) {
	c := k.a.Cols
	for i := lo; i < hi; i++ {
		k.w[i] = dot(k.a.Data[i*c:(i+1)*c], k.b.Data[i*c:(i+1)*c])
	}
}

// RowNorm sets dst[i] = ‖m_i‖₂, accumulating in float64.
func RowNorm[T Float](dst []T, m *Dense[T]) {
	if len(dst) != m.Rows {
		panic(fmt.Sprintf("tensor: RowNorm: %d outputs for %d rows", len(dst), m.Rows))
	}
	k := kernel[T]{kind: kRowNorms}
	k.w, k.a = dst, m
	k.launch(m.Rows, max(m.Cols, 1))
}

// rowNorms uses w (= dst), a.
func rowNorms[T Float](k *kernel[T], lo, hi int) {
	c := k.a.Cols
	for i := lo; i < hi; i++ {
		var s float64
		for _, v := range k.a.Data[i*c : (i+1)*c] {
			s += float64(v) * float64(v)
		}
		k.w[i] = T(math.Sqrt(s))
	}
}

// EdgeDot sets dst[e] = ⟨a[v], b[src[e]]⟩ for every arc e = src[e]→v of a
// graph stored as CSR by target (ptr over targets): the sampled dense-dense
// product behind the gradient of edge weights in Aggregate.
func EdgeDot[T Float](dst []T, ptr, src []int32, a, b *Dense[T]) {
	if len(ptr) == 0 || len(dst) != len(src) || a.Rows != len(ptr)-1 || a.Cols != b.Cols {
		panic(fmt.Sprintf("tensor: EdgeDot shape mismatch: %d targets, %d arcs, dst %d, a %d×%d, b %d×%d", len(ptr)-1, len(src), len(dst), a.Rows, a.Cols, b.Rows, b.Cols))
	}
	if a.Rows == 0 {
		return
	}
	k := kernel[T]{kind: kEdgeDots}
	k.w, k.ptr, k.idx, k.a, k.b = dst, ptr, src, a, b
	k.launch(a.Rows, (len(src)/a.Rows+1)*max(a.Cols, 1))
}

// edgeDots uses w (= dst), ptr, idx (= src), a, b.
func edgeDots[T Float](k *kernel[T], lo, hi int) {
	c := k.a.Cols
	for v := lo; v < hi; v++ {
		av := k.a.Data[v*c : (v+1)*c]
		for e := k.ptr[v]; e < k.ptr[v+1]; e++ {
			s := int(k.idx[e]) * c
			k.w[e] = dot(av, k.b.Data[s:s+c])
		}
	}
}
