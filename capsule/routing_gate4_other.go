//go:build !amd64 || purego

package capsule

// haveGate4AVX is false off amd64 (or with the purego tag): the gate runs
// the Go kernels.
const haveGate4AVX = false

func gate4LogitsAVX(p *gate4Args) { panic("capsule: gate4LogitsAVX without AVX2") }
func gate4NormAVX(p *gate4Args)   { panic("capsule: gate4NormAVX without AVX2") }
func gate4BackAVX(p *gate4Args)   { panic("capsule: gate4BackAVX without AVX2") }
