//go:build !purego

package capsule

import "github.com/prcaps/prcaps/internal/kernels"

// Which of capsule's assembly kernels run, from the kernel set
// (internal/kernels, PRCAPS_KERNELS): the AVX-512 ones (the
// prediction wrap, routing_predict_amd64.s; linkCos's backward loops,
// routing_cos_amd64.s; the float32 gate, routing_gate32_amd64.s) and the
// AVX2 ones (the float32 gate, routing_gate32_avx2_amd64.s).
var (
	haveAVX512 = kernels.Current() >= kernels.AVX512
	haveAVX2   = kernels.Current() >= kernels.AVX2
)
