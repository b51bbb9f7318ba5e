//go:build !amd64 || purego

package optim

const haveAVX2 = false

func adam32(p, g, m, v *float32, n int, k *[9]float32) { panic("optim: adam32 without AVX2") }

func geoopt32(p, g, m, v *float32, n int, k *[9]float32) { panic("optim: geoopt32 without AVX2") }
