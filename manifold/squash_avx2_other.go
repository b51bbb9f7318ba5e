//go:build !amd64 || purego

package manifold

// haveSquashVec is false off amd64 (or with the purego tag): squash runs
// the Go loops, and the functions below are never called.
const haveSquashVec = false

func squashFwdVec(x, y *float32, c, rows int, offs *int32) (left uint64) {
	panic("manifold: squashFwdVec without AVX2")
}

func squashBackVec(x, gr, gx *float32, c, rows int, offs *int32) (left uint64) {
	panic("manifold: squashBackVec without AVX2")
}
