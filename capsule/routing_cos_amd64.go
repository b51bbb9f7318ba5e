//go:build !purego

package capsule

// cosBackAVX512 is linkCos's backward loop (backwardChildren or
// backwardParents) for segments a.lo … a.hi−1 on AVX-512; see cosBackArgs
// and routing_cos_amd64.s.
//
//go:noescape
func cosBackAVX512(a *cosBackArgs)

// cosBackAVX2 is cosBackAVX512 on AVX2, with the same results.
//
//go:noescape
func cosBackAVX2(a *cosBackArgs)
