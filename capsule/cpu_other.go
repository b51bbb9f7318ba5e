//go:build !amd64 || purego

package capsule

// Off amd64 (or with the purego tag) capsule's kernels run in Go.
const (
	haveAVX512 = false
	haveAVX2   = false
)
