//go:build !purego

package tensor

// The AVX2 kernels of vec.go; n must be a multiple of 8 and haveAVX2FMA true.

//go:noescape
func vecAdd32(dst, a, b *float32, n int)

//go:noescape
func vecMul32(dst, a, b *float32, n int)

//go:noescape
func vecMulAdd32(dst, a, b *float32, n int)

//go:noescape
func vecReLU32(dst, x *float32, n int)

// vecReLUGradScaled32 adds grad·s to dst where y > 0 (+0 elsewhere), n a
// multiple of 8; with s = 1 it is ReLU's backward pass (grad·1 is grad).
//
//go:noescape
func vecReLUGradScaled32(dst, grad, y *float32, s float32, n int)

// maxIndex32 is the largest of n int32 read as uint32, n a multiple of 16.
//
//go:noescape
func maxIndex32(src *int32, n int) uint32

// gather32 sets dst[i] = src[idx[i]] for n indices, n a multiple of 8.
//
//go:noescape
func gather32(dst, src *float32, idx *int32, n int)

// expFloat32Vec sets dst[i] = expFloat32(x[i]) for n values, n a multiple
// of 4.
//
//go:noescape
func expFloat32Vec(dst, x *float64, n int)

// sumRowsWiden32 adds the rows of x (rows × cols, cols a positive multiple
// of 4) to acc, widened to float64, row after row.
//
//go:noescape
func sumRowsWiden32(acc *float64, x *float32, rows, cols int)

// addScaledRowsWiden32 is AddScaledRowsWiden's kernel for m pairs and
// rows of d ≥ 1 values.
//
//go:noescape
func addScaledRowsWiden32(acc, pw *float64, w, z *float32, cls *int32, ks *float64, m, d int)

// The batch-norm row kernels of batchnorm.go; the widening ones need cols
// a positive multiple of 4, the float32 ones of 8.

//go:noescape
func sumSqDevRowsWiden32(acc *float64, x *float32, mu *float64, rows, cols int)

//go:noescape
func sumProdRowsWiden32(acc *float64, a, b *float32, rows, cols int)

//go:noescape
func normalizeRows32(y, xhat, x, mu, rstd, gamma, beta *float32, rows, cols int)

//go:noescape
func normalizeGradRows32(dx, grad, xhat, c1, c2, c3 *float32, rows, cols int)

// dropoutMask32 is DropoutMask's kernel for n float32 elements, n a
// multiple of 8, the uniforms read as the uint32 halves of words in memory
// order (low half first on amd64); src nil writes the mask.
//
//go:noescape
func dropoutMask32(dst, src *float32, words *uint64, n int, thr uint32, scale, val float32)
