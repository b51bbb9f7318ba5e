//go:build !purego

package optim

import "github.com/prcaps/prcaps/internal/kernels"

// haveAVX2 reports whether adam32 runs: the kernel set (internal/kernels,
// PRCAPS_KERNELS) is avx2 or avx512.
var haveAVX2 = kernels.Current() >= kernels.AVX2

// adam32 is torchAdam's plain (not AMSGrad) float32 loop on AVX2 for n a
// multiple of 8; k is l2, b1, c1, b2, c2, inv, eps, step size, lr·wd.
//
//go:noescape
func adam32(p, grad, m, v *float32, n int, k *[9]float32)

// geoopt32 is geooptEuclidean's plain (not AMSGrad) float32 loop on AVX2
// for n a multiple of 8; k is l2, b1, c1, b2, c2, 1/bc1, 1/bc2, eps, −lr.
//
//go:noescape
func geoopt32(p, grad, m, v *float32, n int, k *[9]float32)
