//go:build !amd64 || purego

package capsule

func cosBackAVX512(a *cosBackArgs) { panic("capsule: cosBackAVX512 without AVX-512") }
