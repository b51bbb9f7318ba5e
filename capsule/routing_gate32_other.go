//go:build !amd64 || purego

package capsule

func gate32FwdVec(a *gate32Args)  { panic("capsule: gate32FwdVec without AVX2") }
func gate32BackVec(a *gate32Args) { panic("capsule: gate32BackVec without AVX2") }

var gate32VecOff, gate32AVX2Only bool

func gate32Vec() bool { return false }
