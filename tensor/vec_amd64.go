//go:build !purego

package tensor

// The AVX2 kernels of vec.go; n must be a multiple of 8 and haveAVX2FMA true.

//go:noescape
func vecAdd32(dst, a, b *float32, n int)

//go:noescape
func vecMul32(dst, a, b *float32, n int)

//go:noescape
func vecMulAdd32(dst, a, b *float32, n int)

//go:noescape
func vecReLU32(dst, x *float32, n int)

//go:noescape
func vecReLUGrad32(dst, grad, x *float32, n int)
