//go:build !amd64 || purego

package tensor

import "unsafe"

func prefetchSpan(p unsafe.Pointer, n int) {}
