//go:build !purego

package capsule

import "golang.org/x/sys/cpu"

// Which of capsule's assembly kernels can run: the AVX-512 ones (the
// prediction wrap, routing_predict_amd64.s; linkCos's backward loops,
// routing_cos_amd64.s; the float32 gate, routing_gate32_amd64.s) and the
// AVX2 ones (the float32 gate, routing_gate32_avx2_amd64.s).
var (
	haveAVX512 = cpu.X86.HasAVX512F
	haveAVX2   = cpu.X86.HasAVX2
)
