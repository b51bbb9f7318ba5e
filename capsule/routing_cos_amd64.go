//go:build !purego

package capsule

// cosBackAVX512 is linkCos's backward loop (backwardChildren or
// backwardParents) for segments a.lo … a.hi−1 on AVX-512; see cosBackArgs
// and routing_cos_amd64.s.
//
//go:noescape
func cosBackAVX512(a *cosBackArgs)
