//go:build !purego

package kernels

import "golang.org/x/sys/cpu"

// best is what the CPU has: the AVX2 kernels need AVX2 and FMA, the
// AVX-512 ones AVX-512F besides.
var best = func() Set {
	switch {
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX512F:
		return AVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return AVX2
	}
	return Go
}()
