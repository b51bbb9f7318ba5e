//go:build !amd64 || purego

package tensor

func scaleGroups4Z(dst, x, s *float32, n int, acc bool) {
	panic("tensor: scaleGroups4Z without AVX-512")
}

func scaleGroups4Y(dst, x, s *float32, n int, acc bool) {
	panic("tensor: scaleGroups4Y without AVX2")
}
