//go:build !amd64 || purego

package capsule

func cosBackAVX2(a *cosBackArgs) { panic("capsule: cosBackAVX2 without AVX2") }
