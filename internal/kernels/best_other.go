//go:build (!amd64 && !arm64) || purego

package kernels

// best is the portable Go set off amd64 and arm64, or in a purego build,
// which holds no assembly.
const best = Go
