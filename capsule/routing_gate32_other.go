//go:build !amd64 || purego

package capsule

func gate32FwdAVX512(a *gate32Args)  { panic("capsule: gate32FwdAVX512 without AVX-512") }
func gate32BackAVX512(a *gate32Args) { panic("capsule: gate32BackAVX512 without AVX-512") }

var gate32VecOff bool

func gate32Vec() bool { return false }
