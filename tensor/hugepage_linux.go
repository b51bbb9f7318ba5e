package tensor

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// adviseHuge marks the whole huge pages inside b's storage MADV_HUGEPAGE
// when b spans at least hugeMin bytes. Errors are ignored: the advice is
// an optimisation (a kernel without THP answers EINVAL).
func adviseHuge[E any](b []E) {
	if len(b) == 0 {
		return
	}
	var zero E
	size := uintptr(len(b)) * unsafe.Sizeof(zero)
	if size < hugeMin {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	lo := (hugePage - uintptr(p)%hugePage) % hugePage // bytes to the first huge page boundary
	if lo >= size {
		return
	}
	n := (size - lo) / hugePage * hugePage
	if n == 0 {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, lo)), n), unix.MADV_HUGEPAGE)
}
