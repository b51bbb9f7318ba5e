//go:build !purego

package manifold

import "golang.org/x/sys/cpu"

// haveSquashAVX512 reports whether the squash kernels of squash_amd64.s
// can run.
var haveSquashAVX512 = cpu.X86.HasAVX512F

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
