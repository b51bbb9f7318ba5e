//go:build !amd64 || purego

package manifold

const haveSquashAVX512 = false

func squashFwdAVX512(x, y *float32, c, rows int, offs *int32) (left uint64) {
	panic("manifold: squashFwdAVX512 without AVX-512")
}

func squashBackAVX512(x, gr, gx *float32, c, rows int, offs *int32) (left uint64) {
	panic("manifold: squashBackAVX512 without AVX-512")
}
