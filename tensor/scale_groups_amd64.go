//go:build !purego

package tensor

// scaleGroups4Z is ScaleGroups for float32 groups of four on AVX-512, n
// groups (a multiple of 4).
//
//go:noescape
func scaleGroups4Z(dst, x, s *float32, n int, acc bool)

// scaleGroups4Y is scaleGroups4Z on AVX2+FMA machines (no FMA in it: one
// product and one sum, as the loop), with the same bits.
//
//go:noescape
func scaleGroups4Y(dst, x, s *float32, n int, acc bool)
