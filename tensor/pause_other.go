//go:build !amd64

package tensor

// cpuPause is a no-op off amd64.
func cpuPause(n int) {}
