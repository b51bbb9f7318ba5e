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

// gate32VecOff keeps the float32 gate on its Go kernels (for the tests
// that compare the two).
var gate32VecOff bool

// gate32Vec reports whether the float32 gate's AVX-512 kernels run.
func gate32Vec() bool { return haveAVX512 && !gate32VecOff }
