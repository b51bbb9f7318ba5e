package tensor

import "unsafe"

// Prefetch hints the processor to bring the memory of s into its caches
// ahead of use, as kernels that gather rows in a data-dependent order do
// for the rows a few steps ahead (a row of a large table is then a random
// memory access, whose latency a prefetch overlaps with the work on the
// rows before it). It has no effect on results, and none at all off amd64
// or with the purego tag.
func Prefetch[T any](s []T) {
	if len(s) == 0 {
		return
	}
	var z T
	prefetchSpan(unsafe.Pointer(&s[0]), len(s)*int(unsafe.Sizeof(z)))
}
