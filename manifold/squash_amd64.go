//go:build !purego

package manifold

import "github.com/prcaps/prcaps/internal/kernels"

// haveSquashAVX512 and haveSquashVec report whether the squash kernels of
// squash_amd64.s run: the AVX-512 ones when the kernel set
// (internal/kernels, PRCAPS_KERNELS) is avx512, else the AVX2 ones when it
// is avx2.
var (
	haveSquashAVX512 = kernels.Current() >= kernels.AVX512
	haveSquashVec    = kernels.Current() >= kernels.AVX2
)

// squashFwdVec is squashFwdAVX512 or, without AVX-512, squashFwdAVX2: the
// same results.
func squashFwdVec(x, y *float32, c, rows int, offs *int32) (left uint64) {
	if haveSquashAVX512 && !squashAVX2Only {
		return squashFwdAVX512(x, y, c, rows, offs)
	}
	return squashFwdAVX2(x, y, c, rows, offs)
}

// squashBackVec is squashBackAVX512 or, without AVX-512, squashBackAVX2.
func squashBackVec(x, gr, gx *float32, c, rows int, offs *int32) (left uint64) {
	if haveSquashAVX512 && !squashAVX2Only {
		return squashBackAVX512(x, gr, gx, c, rows, offs)
	}
	return squashBackAVX2(x, gr, gx, c, rows, offs)
}

// squashFwdAVX2 and squashBackAVX2 are squashFwdAVX512 and
// squashBackAVX512 on AVX2, four rows a vector, with the same results.
//
//go:noescape
func squashFwdAVX2(x, y *float32, c, rows int, offs *int32) (left uint64)

//go:noescape
func squashBackAVX2(x, gr, gx *float32, c, rows int, offs *int32) (left uint64)

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
