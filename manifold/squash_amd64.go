//go:build !purego

package manifold

import "github.com/prcaps/prcaps/internal/kernels"

// haveSquashAVX512 reports whether the squash kernels of squash_amd64.s
// run: the kernel set (internal/kernels, PRCAPS_KERNELS) is avx512.
var haveSquashAVX512 = kernels.Current() >= kernels.AVX512

// squashFwdAVX512 writes squash's values for up to 64 rows of c values and
// returns a bit for each row left to the Go code (see the assembly).
//
//go:noescape
func squashFwdAVX512(x, y *float32, c, rows int, offs *int32) (left uint64)

// squashBackAVX512 adds squash's backward pass for up to 64 rows and
// returns a bit for each row left to the Go code.
//
//go:noescape
func squashBackAVX512(x, gr, gx *float32, c, rows int, offs *int32) (left uint64)
