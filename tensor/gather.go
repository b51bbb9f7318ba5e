package tensor

import "fmt"

// Gather sets dst[i] = src[idx[i]] for every i: the elements of src in the
// order idx gives, as when a per-link matrix is read in another order of
// its links. len(dst) must be len(idx), and every index an element of src.
// Float32 runs in an AVX2 gather kernel where available.
func Gather[T Float](dst, src []T, idx []int32) {
	if len(dst) != len(idx) {
		panic(fmt.Sprintf("tensor: Gather of %d indices into %d elements", len(idx), len(dst)))
	}
	checkSources(idx, len(src))
	n := 0
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA {
		if n = len(idx) &^ 7; n > 0 {
			gather32(&d[0], &any(src).([]float32)[0], &idx[0], n)
		}
	}
	for i, e := range idx[n:] {
		dst[n+i] = src[e]
	}
}
