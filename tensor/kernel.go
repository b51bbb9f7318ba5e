package tensor

import (
	"sync"

	"gonum.org/v1/gonum/blas/gonum"
)

// kernel is the argument record of one kernel call. Handing a closure to
// other goroutines would heap-allocate it on every call. Instead a kernel
// fills a record on its own stack and calls launch: a call too small to
// split runs straight from the stack record, a parallel one copies it into a
// recycled heap record that the workers can see. The fields are a union:
// each chunk function documents which it uses.
type kernel[T Float] struct {
	kind kernelKind

	dst, a, b *Dense[T]
	ptr, idx  []int32
	link      []int32 // AggregateGroupedLinked: the sources' link ids
	w, x, y   []T
	width     int // column-block width; SpMMT partition count; Gemm tile width
	height    int // Gemm tile height
	f         func(T) T
	alpha     T
	beta      T
	acc       bool
	transA    bool
	transB    bool
	packed    bool // Gemm rows: b is in column panels (packPanels)
}

// freeList recycles heap records. Unlike sync.Pool it is never emptied by
// the garbage collector or (deliberately) by the race detector, so a warm
// training step allocates nothing in every build; it holds at most as many
// records as were ever in use at once.
type freeList[P any] struct {
	mu    sync.Mutex
	items []P
}

func (f *freeList[P]) get() (p P, ok bool) {
	f.mu.Lock()
	if n := len(f.items); n > 0 {
		p, ok = f.items[n-1], true
		var zero P
		f.items[n-1] = zero
		f.items = f.items[:n-1]
	}
	f.mu.Unlock()
	return p, ok
}

func (f *freeList[P]) put(p P) {
	f.mu.Lock()
	f.items = append(f.items, p)
	f.mu.Unlock()
}

var (
	kernels32 freeList[*kernel[float32]]
	kernels64 freeList[*kernel[float64]]
)

// kernelFree returns the free list of heap records for T, or nil for named
// element types (their records are allocated per parallel call).
func kernelFree[T Float]() *freeList[*kernel[T]] {
	var z T
	switch any(z).(type) {
	case float32:
		f, _ := any(&kernels32).(*freeList[*kernel[T]])
		return f
	case float64:
		f, _ := any(&kernels64).(*freeList[*kernel[T]])
		return f
	}
	return nil
}

var (
	scratch32 freeList[*Dense[float32]]
	scratch64 freeList[*Dense[float64]]
)

// getScratch returns a recycled r×c matrix with unspecified contents, for
// temporaries that a kernel needs during one call (Gemm's transposes).
func getScratch[T Float](r, c int) *Dense[T] {
	var m *Dense[T]
	if fl := scratchFree[T](); fl != nil {
		m, _ = fl.get()
	}
	if m == nil {
		m = new(Dense[T])
	}
	m.Reshape(r, c)
	return m
}

// putScratch recycles a matrix from getScratch.
func putScratch[T Float](m *Dense[T]) {
	if fl := scratchFree[T](); fl != nil {
		fl.put(m)
	}
}

func scratchFree[T Float]() *freeList[*Dense[T]] {
	var z T
	switch any(z).(type) {
	case float32:
		f, _ := any(&scratch32).(*freeList[*Dense[T]])
		return f
	case float64:
		f, _ := any(&scratch64).(*freeList[*Dense[T]])
		return f
	}
	return nil
}

// launch runs k over [0, n): on the calling goroutine when the work is too
// small to split, otherwise from a heap copy of k on ParallelRange.
func (k *kernel[T]) launch(n, cost int) {
	if n <= 0 {
		return
	}
	size, chunks, helpers, _ := split(n, cost)
	if chunks <= 1 {
		k.Range(0, n)
		return
	}
	if helpers <= 0 {
		// Every core is occupied: ParallelRange's chunks, in order, here,
		// without the heap record (whose free list two goroutines would
		// share); a loop of its own, since passing k as a Ranger would
		// move it to the heap.
		for lo := 0; lo < n; lo += size {
			k.Range(lo, min(lo+size, n))
		}
		return
	}
	fl := kernelFree[T]()
	var hk *kernel[T]
	if fl != nil {
		hk, _ = fl.get()
	}
	if hk == nil {
		hk = new(kernel[T])
	}
	*hk = *k
	ParallelRange(n, cost, hk)
	*hk = kernel[T]{} // drop references to the caller's data
	if fl != nil {
		fl.put(hk)
	}
}

// kernelKind selects the chunk function of a kernel record. A switch rather
// than a func field: a generic function value such as f[T] taken inside
// generic code is a closure over the type dictionary, allocated per use.
type kernelKind uint8

const (
	kNone kernelKind = iota
	kGemmTiles
	kGemmRows
	kGemmTZ
	kAggregateRows
	kAggregateLinks
	kAggregateGroupsLinked
	kSpmmtParts
	kSumParts
	kGatherRows
	kScatterColBlocks
	kTransposedSpMM
	kScatterAddSegs
	kBroadcastSegs
	kSegmentSums
	kSegmentMaxes
	kSegmentSoftmaxes
	kSegmentSoftmaxBacks
	kAxpyChunk
	kScaleChunk
	kAddChunk
	kMulChunk
	kMapChunk
	kAddRowVecRows
	kSumRowsBlocks
	kRowDots
	kRowNorms
	kEdgeDots
)

// Range runs the kernel on [lo, hi).
func (k *kernel[T]) Range(lo, hi int) {
	switch k.kind {
	case kGemmTiles:
		gemmTiles(k, lo, hi)
	case kGemmRows:
		gemmRows(k, lo, hi)
	case kGemmTZ:
		gemmTZ(k, lo, hi)
	case kAggregateRows:
		aggregateRows(k, lo, hi)
	case kAggregateLinks:
		aggregateLinks4(k, lo, hi)
	case kAggregateGroupsLinked:
		aggregateGroupsLinked(k, lo, hi)
	case kSpmmtParts:
		spmmtParts(k, lo, hi)
	case kSumParts:
		sumParts(k, lo, hi)
	case kGatherRows:
		gatherRows(k, lo, hi)
	case kScatterColBlocks:
		scatterColBlocks(k, lo, hi)
	case kTransposedSpMM:
		transposedBlocks(k, lo, hi)
	case kScatterAddSegs:
		scatterAddSegs(k, lo, hi)
	case kBroadcastSegs:
		broadcastSegs(k, lo, hi)
	case kSegmentSums:
		segmentSums(k, lo, hi)
	case kSegmentMaxes:
		segmentMaxes(k, lo, hi)
	case kSegmentSoftmaxes:
		segmentSoftmaxes(k, lo, hi)
	case kSegmentSoftmaxBacks:
		segmentSoftmaxBacks(k, lo, hi)
	case kAxpyChunk:
		axpyChunk(k, lo, hi)
	case kScaleChunk:
		scaleChunk(k, lo, hi)
	case kAddChunk:
		addChunk(k, lo, hi)
	case kMulChunk:
		mulChunk(k, lo, hi)
	case kMapChunk:
		mapChunk(k, lo, hi)
	case kAddRowVecRows:
		addRowVecRows(k, lo, hi)
	case kSumRowsBlocks:
		sumRowsBlocks(k, lo, hi)
	case kRowDots:
		rowDots(k, lo, hi)
	case kRowNorms:
		rowNorms(k, lo, hi)
	case kEdgeDots:
		edgeDots(k, lo, hi)
	default:
		panic("tensor: kernel record without a kind")
	}
}

// axpy computes y += alpha·x over len(x) elements, with gonum's assembly
// kernels for float32 and float64 (2-3× a Go loop on short rows). The type
// switch on a non-escaping interface does not allocate.
func axpy[T Float](alpha T, x, y []T) {
	switch xs := any(x).(type) {
	case []float32:
		gonum.Implementation{}.Saxpy(len(xs), float32(alpha), xs, 1, any(y).([]float32), 1)
	case []float64:
		gonum.Implementation{}.Daxpy(len(xs), float64(alpha), xs, 1, any(y).([]float64), 1)
	default:
		y = y[:len(x)]
		for i, v := range x {
			y[i] += alpha * v
		}
	}
}

// dot returns Σ x_i·y_i over len(x) elements (assembly for float32/64).
func dot[T Float](x, y []T) T {
	switch xs := any(x).(type) {
	case []float32:
		return T(gonum.Implementation{}.Sdot(len(xs), xs, 1, any(y).([]float32), 1))
	case []float64:
		return T(gonum.Implementation{}.Ddot(len(xs), xs, 1, any(y).([]float64), 1))
	}
	y = y[:len(x)]
	var s T
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// addTo computes y += x.
func addTo[T Float](x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += v
	}
}
