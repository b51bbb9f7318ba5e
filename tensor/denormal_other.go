//go:build !amd64 || purego

package tensor

// Off amd64 (or with the purego tag) FlushDenormals leaves the
// floating-point mode as it is.
func setFlushDenormals() uint32 { return 0 }

func restoreFPMode(uint32) {}

func flushingDenormals() bool { return false }
