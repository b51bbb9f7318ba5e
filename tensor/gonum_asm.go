//go:build amd64 && !noasm && !gccgo && !safe

package tensor

// gonumAsm reports whether gonum's float32 kernels (axpy, dot, the gemm
// they build) run in its SSE assembly: on amd64 unless gonum's noasm or
// safe tag is set. The Go kernel set picks between them and its own loops
// by this (useAxpyTermsGo).
const gonumAsm = true
