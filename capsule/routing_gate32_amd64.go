//go:build !purego

package capsule

// gate32FwdAVX512 is gate32Forward for the first n &^ 3 links of a, four
// links a vector (routing_gate32_amd64.s).
//
//go:noescape
func gate32FwdAVX512(a *gate32Args)

// gate32BackAVX512 is gate32Backward for the first n &^ 3 links of a.
//
//go:noescape
func gate32BackAVX512(a *gate32Args)

// gate32FwdAVX2 and gate32BackAVX2 are the same kernels on AVX2, two links
// a vector (routing_gate32_avx2_amd64.s), with the same bits.
//
//go:noescape
func gate32FwdAVX2(a *gate32Args)

//go:noescape
func gate32BackAVX2(a *gate32Args)

// gate32VecOff keeps the float32 gate on its Go kernels, and gate32AVX2Only
// off its AVX-512 ones (for the tests that compare them).
var gate32VecOff, gate32AVX2Only bool

// gate32Vec reports whether one of the float32 gate's vector kernels runs.
func gate32Vec() bool { return !gate32VecOff && (haveAVX512 || haveAVX2) }

// gate32FwdVec runs the forward kernel that the machine has (gate32Vec).
func gate32FwdVec(a *gate32Args) {
	if haveAVX512 && !gate32AVX2Only {
		gate32FwdAVX512(a)
		return
	}
	gate32FwdAVX2(a)
}

// gate32BackVec runs the backward kernel that the machine has (gate32Vec).
func gate32BackVec(a *gate32Args) {
	if haveAVX512 && !gate32AVX2Only {
		gate32BackAVX512(a)
		return
	}
	gate32BackAVX2(a)
}
