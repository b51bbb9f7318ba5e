package tensor

import (
	"fmt"
	"math"
)

// Segments are given by a pointer array like a CSR's Indptr: segment s is
// the items [segPtr[s], segPtr[s+1]). Segments may be empty. For a graph
// stored as CSR by target, the segments of Ptr are the in-arcs of each node,
// so segment kernels parallelise over targets without atomics.

func checkSegPtr(segPtr []int32, items int, name string) {
	if len(segPtr) == 0 || segPtr[0] != 0 || int(segPtr[len(segPtr)-1]) != items {
		last := int32(-1)
		if len(segPtr) > 0 {
			last = segPtr[len(segPtr)-1]
		}
		panic(fmt.Sprintf("tensor: %s: segment pointer of length %d ends at %d, want a pointer from 0 to %d", name, len(segPtr), last, items))
	}
}

// checkSegments panics unless the segments [lo, hi) of the pointer ptr
// over items entries (ptr[lo … hi]) are non-decreasing within [0, items].
func checkSegments(op string, ptr []int32, lo, hi, items int) {
	if ptr[lo] < 0 || int(ptr[hi]) > items {
		panic(fmt.Sprintf("tensor: %s: segments [%d, %d) span entries %d-%d of %d", op, lo, hi, ptr[lo], ptr[hi], items))
	}
	for j := lo; j < hi; j++ {
		if ptr[j] > ptr[j+1] {
			panic(fmt.Sprintf("tensor: %s: segment %d ends at %d before it starts at %d", op, j, ptr[j+1], ptr[j]))
		}
	}
}

// GatherRows sets dst[i] = src[idx[i]] (dst[i] += … with accumulate). dst
// must be len(idx)×src.Cols. Indices may repeat.
func GatherRows[T Float](dst, src *Dense[T], idx []int32, accumulate bool) {
	if dst.Rows != len(idx) || dst.Cols != src.Cols {
		panic(fmt.Sprintf("tensor: GatherRows shape mismatch: %d indices, src %d×%d, dst %d×%d", len(idx), src.Rows, src.Cols, dst.Rows, dst.Cols))
	}
	if len(idx) == 0 {
		return
	}
	k := kernel[T]{kind: kGatherRows}
	k.dst, k.a, k.idx, k.acc = dst, src, idx, accumulate
	k.launch(len(idx), max(src.Cols, 1))
}

// gatherRows uses dst, a (= src), idx, acc.
func gatherRows[T Float](k *kernel[T], lo, hi int) {
	c := k.dst.Cols
	for i := lo; i < hi; i++ {
		s := int(k.idx[i]) * c
		if k.acc {
			addTo(k.a.Data[s:s+c], k.dst.Data[i*c:(i+1)*c])
		} else {
			copy(k.dst.Data[i*c:(i+1)*c], k.a.Data[s:s+c])
		}
	}
}

// IndexAddRows adds src[i] into dst[idx[i]] for every i (dst is zeroed
// first unless accumulate): the adjoint of GatherRows. Indices may repeat,
// so goroutines cannot split dst by rows: with many indices per row of dst
// each takes a slice of the indices and a private copy of dst (summed at
// the end, as in SpMMT); otherwise they split dst by column blocks.
func IndexAddRows[T Float](dst, src *Dense[T], idx []int32, accumulate bool) {
	if src.Rows != len(idx) || dst.Cols != src.Cols {
		panic(fmt.Sprintf("tensor: IndexAddRows shape mismatch: %d indices, src %d×%d, dst %d×%d", len(idx), src.Rows, src.Cols, dst.Rows, dst.Cols))
	}
	if !accumulate {
		clear(dst.Data)
	}
	if len(idx) == 0 || dst.Cols == 0 {
		return
	}
	scatterRows(dst, src, nil, idx, nil)
}

// ScatterAddRows sums the rows of each segment: dst[s] = Σ src[segPtr[s]:
// segPtr[s+1]] (dst[s] += … with accumulate); empty segments give zero rows.
// dst must be (len(segPtr)−1)×src.Cols.
func ScatterAddRows[T Float](dst, src *Dense[T], segPtr []int32, accumulate bool) {
	checkSegPtr(segPtr, src.Rows, "ScatterAddRows")
	if dst.Rows != len(segPtr)-1 || dst.Cols != src.Cols {
		panic(fmt.Sprintf("tensor: ScatterAddRows shape mismatch: %d segments, src %d×%d, dst %d×%d", len(segPtr)-1, src.Rows, src.Cols, dst.Rows, dst.Cols))
	}
	if dst.Rows == 0 {
		return
	}
	k := kernel[T]{kind: kScatterAddSegs}
	k.dst, k.a, k.ptr, k.acc = dst, src, segPtr, accumulate
	k.launch(dst.Rows, (src.Rows/dst.Rows+1)*max(src.Cols, 1))
}

// scatterAddSegs uses dst, a (= src), ptr, acc.
func scatterAddSegs[T Float](k *kernel[T], lo, hi int) {
	c := k.dst.Cols
	for s := lo; s < hi; s++ {
		row := k.dst.Data[s*c : (s+1)*c]
		if !k.acc {
			clear(row)
		}
		for r := int(k.ptr[s]); r < int(k.ptr[s+1]); r++ {
			addTo(k.a.Data[r*c:(r+1)*c], row)
		}
	}
}

// BroadcastSegmentRows copies row s of src to every row of segment s of dst
// (adds with accumulate): the adjoint of ScatterAddRows. dst must be
// segPtr[last]×src.Cols and src (len(segPtr)−1)×src.Cols.
func BroadcastSegmentRows[T Float](dst, src *Dense[T], segPtr []int32, accumulate bool) {
	checkSegPtr(segPtr, dst.Rows, "BroadcastSegmentRows")
	if src.Rows != len(segPtr)-1 || dst.Cols != src.Cols {
		panic(fmt.Sprintf("tensor: BroadcastSegmentRows shape mismatch: %d segments, src %d×%d, dst %d×%d", len(segPtr)-1, src.Rows, src.Cols, dst.Rows, dst.Cols))
	}
	if src.Rows == 0 {
		return
	}
	k := kernel[T]{kind: kBroadcastSegs}
	k.dst, k.a, k.ptr, k.acc = dst, src, segPtr, accumulate
	k.launch(src.Rows, (dst.Rows/src.Rows+1)*max(src.Cols, 1))
}

// broadcastSegs uses dst, a (= src), ptr, acc.
func broadcastSegs[T Float](k *kernel[T], lo, hi int) {
	c := k.dst.Cols
	for s := lo; s < hi; s++ {
		x := k.a.Data[s*c : (s+1)*c]
		for r := int(k.ptr[s]); r < int(k.ptr[s+1]); r++ {
			if k.acc {
				addTo(x, k.dst.Data[r*c:(r+1)*c])
			} else {
				copy(k.dst.Data[r*c:(r+1)*c], x)
			}
		}
	}
}

// SegmentSum sets dst[s] = Σ x[segPtr[s]:segPtr[s+1]] (0 for an empty
// segment), summing in float64. len(dst) = len(segPtr)−1.
func SegmentSum[T Float](dst, x []T, segPtr []int32) {
	checkSegPtr(segPtr, len(x), "SegmentSum")
	if len(dst) != len(segPtr)-1 {
		panic(fmt.Sprintf("tensor: SegmentSum: %d outputs for %d segments", len(dst), len(segPtr)-1))
	}
	if len(dst) == 0 {
		return
	}
	k := kernel[T]{kind: kSegmentSums}
	k.w, k.x, k.ptr = dst, x, segPtr
	k.launch(len(dst), len(x)/len(dst)+1)
}

// segmentSums uses w (= dst), x, ptr.
func segmentSums[T Float](k *kernel[T], lo, hi int) {
	for s := lo; s < hi; s++ {
		var sum float64
		for _, v := range k.x[k.ptr[s]:k.ptr[s+1]] {
			sum += float64(v)
		}
		k.w[s] = T(sum)
	}
}

// SegmentMax sets dst[s] to the largest x in segment s and, when argmax is
// not nil, argmax[s] to its position in x (the first on ties). An empty
// segment gives dst[s] = 0 and argmax[s] = −1, as PyG's scatter max does.
// NaNs are ignored unless a segment holds only NaNs.
func SegmentMax[T Float](dst, x []T, segPtr []int32, argmax []int32) {
	checkSegPtr(segPtr, len(x), "SegmentMax")
	if len(dst) != len(segPtr)-1 || (argmax != nil && len(argmax) != len(dst)) {
		panic(fmt.Sprintf("tensor: SegmentMax: %d outputs, %d argmax for %d segments", len(dst), len(argmax), len(segPtr)-1))
	}
	if len(dst) == 0 {
		return
	}
	k := kernel[T]{kind: kSegmentMaxes}
	k.w, k.x, k.ptr, k.idx = dst, x, segPtr, argmax
	k.launch(len(dst), len(x)/len(dst)+1)
}

// segmentMaxes uses w (= dst), x, ptr, idx (= argmax, may be nil).
func segmentMaxes[T Float](k *kernel[T], lo, hi int) {
	for s := lo; s < hi; s++ {
		lo, hi := k.ptr[s], k.ptr[s+1]
		best, arg := T(0), int32(-1)
		for e := lo; e < hi; e++ {
			if v := k.x[e]; arg < 0 || v > best || (best != best && v == v) {
				best, arg = v, e
			}
		}
		k.w[s] = best
		if k.idx != nil {
			k.idx[s] = arg
		}
	}
}

// SegmentSoftmax sets dst = softmax of x within each segment (max-shifted,
// so large scores do not overflow). dst may alias x. len(dst) = len(x).
func SegmentSoftmax[T Float](dst, x []T, segPtr []int32) {
	checkSegPtr(segPtr, len(x), "SegmentSoftmax")
	if len(dst) != len(x) {
		panic(fmt.Sprintf("tensor: SegmentSoftmax: %d outputs for %d inputs", len(dst), len(x)))
	}
	if len(segPtr) < 2 {
		return
	}
	k := kernel[T]{kind: kSegmentSoftmaxes}
	k.w, k.x, k.ptr = dst, x, segPtr
	k.launch(len(segPtr)-1, 4*(len(x)/(len(segPtr)-1)+1))
}

// segmentSoftmaxes uses w (= dst), x, ptr.
func segmentSoftmaxes[T Float](k *kernel[T], lo, hi int) {
	var z T
	_, f32 := any(z).(float32)
	if f32 && haveAVX2FMA {
		segmentSoftmaxes32(any(k.w).([]float32), any(k.x).([]float32), k.ptr, lo, hi)
		return
	}
	for s := lo; s < hi; s++ {
		softmaxSegment(k.w[k.ptr[s]:k.ptr[s+1]], k.x[k.ptr[s]:k.ptr[s+1]])
	}
}

// softmaxSegment sets y to the softmax of one segment x: exponentials of
// x − max(x) (expFloat32 for float32), normalised by their float64 sum.
func softmaxSegment[T Float](y, x []T) {
	if len(x) == 0 {
		return
	}
	m := segmentMax(x)
	_, f32 := any(m).(float32)
	var sum float64
	for i, v := range x {
		var e float64
		if f32 {
			e = expFloat32(float64(v - m))
		} else {
			e = math.Exp(float64(v - m))
		}
		y[i] = T(e)
		sum += e
	}
	inv := 1 / sum
	for i := range y {
		y[i] = T(float64(y[i]) * inv)
	}
}

// segmentMax is the largest element of a non-empty x.
func segmentMax[T Float](x []T) T {
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v)
	}
	return m
}

// softmaxBatch is the stack scratch of segmentSoftmaxes32: segments of up
// to this many links take their exponentials in batches.
const softmaxBatch = 512

// segmentSoftmaxes32 is segmentSoftmaxes for float32 on AVX2: the shifted
// inputs of consecutive segments are gathered until softmaxBatch values,
// their exponentials taken four at a time (expFloat32Vec, expFloat32's
// operations per lane), and each segment then summed and normalised in its
// order, so the results are softmaxSegment's bits. A longer segment runs
// softmaxSegment.
func segmentSoftmaxes32(w, x []float32, ptr []int32, lo, hi int) {
	var buf [softmaxBatch]float64
	for s := lo; s < hi; {
		// Segments [s, t) fill buf[:n].
		t, n := s, 0
		for t < hi {
			seg := x[ptr[t]:ptr[t+1]]
			if n+len(seg) > softmaxBatch {
				break
			}
			if len(seg) > 0 {
				m := segmentMax(seg)
				for i, v := range seg {
					buf[n+i] = float64(v - m)
				}
			}
			n += len(seg)
			t++
		}
		if t == s { // a segment longer than buf
			softmaxSegment(w[ptr[s]:ptr[s+1]], x[ptr[s]:ptr[s+1]])
			s++
			continue
		}
		n4 := n &^ 3
		if n4 > 0 {
			expFloat32Vec(&buf[0], &buf[0], n4)
		}
		for i := n4; i < n; i++ {
			buf[i] = expFloat32(buf[i])
		}
		off := 0
		for ; s < t; s++ {
			y := w[ptr[s]:ptr[s+1]]
			var sum float64
			for i, e := range buf[off : off+len(y)] {
				y[i] = float32(e)
				sum += e
			}
			inv := 1 / sum
			for i := range y {
				y[i] = float32(float64(y[i]) * inv)
			}
			off += len(y)
		}
	}
}

// SegmentSoftmaxBackward computes the gradient of a segment softmax: with
// y = SegmentSoftmax(x) and upstream gradient dy,
// dx_e = y_e·(dy_e − Σ_{e' in segment} y_e'·dy_e') (added to dx with
// accumulate). dx may alias dy when not accumulating.
func SegmentSoftmaxBackward[T Float](dx, y, dy []T, segPtr []int32, accumulate bool) {
	checkSegPtr(segPtr, len(y), "SegmentSoftmaxBackward")
	if len(dx) != len(y) || len(dy) != len(y) {
		panic(fmt.Sprintf("tensor: SegmentSoftmaxBackward: lengths dx %d, y %d, dy %d", len(dx), len(y), len(dy)))
	}
	if len(segPtr) < 2 {
		return
	}
	k := kernel[T]{kind: kSegmentSoftmaxBacks}
	k.w, k.x, k.y, k.ptr, k.acc = dx, y, dy, segPtr, accumulate
	k.launch(len(segPtr)-1, 2*(len(y)/(len(segPtr)-1)+1))
}

// segmentSoftmaxBacks uses w (= dx), x (= y), y (= dy), ptr, acc.
func segmentSoftmaxBacks[T Float](k *kernel[T], lo, hi int) {
	for s := lo; s < hi; s++ {
		a, b := k.ptr[s], k.ptr[s+1]
		y, dy, dx := k.x[a:b], k.y[a:b], k.w[a:b]
		var dotp float64
		for i, v := range y {
			dotp += float64(v) * float64(dy[i])
		}
		d := T(dotp)
		for i, v := range y {
			g := v * (dy[i] - d)
			if k.acc {
				dx[i] += g
			} else {
				dx[i] = g
			}
		}
	}
}

// expFloat32 is e^x for x ≤ 0, accurate to a relative 1e-8 — far below
// float32 resolution — and about three times faster than math.Exp, which
// dominates a segment softmax. e^x = 2^n·e^y with n = round(x/ln2) and
// |y| ≤ ln2/2, where a degree-7 Taylor polynomial leaves an error below
// (ln2/2)⁸/8! ≈ 5e-9. Results under float32's smallest subnormal are 0.
func expFloat32(x float64) float64 {
	if x != x {
		return x
	}
	if x < -104 {
		return 0
	}
	n := math.Floor(x*math.Log2E + 0.5)
	y := x - n*math.Ln2
	p := 1 + y*(1+y*(1.0/2+y*(1.0/6+y*(1.0/24+y*(1.0/120+y*(1.0/720+y*(1.0/5040)))))))
	return p * math.Float64frombits(uint64(int64(n)+1023)<<52)
}
