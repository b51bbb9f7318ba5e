//go:build !purego

package tensor

import "unsafe"

// prefetchSpan prefetches the cache lines of the n > 0 bytes at p.
//
//go:noescape
func prefetchSpan(p unsafe.Pointer, n int)
