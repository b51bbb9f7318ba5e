//go:build unix

package data

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the regular file f of size bytes privately (copy on write:
// a write to the slice never reaches the file) and read-write, so that
// the arrays that alias it behave as ordinary memory. The mapping is never
// unmapped: a loaded dataset lives as long as the process.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size == 0 {
		return []byte{}, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%d bytes do not fit in the address space", size)
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
}

// canMap reports whether mapFile maps files on this platform.
const canMap = true
