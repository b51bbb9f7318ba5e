//go:build arm64 && !purego

package kernels

// best is NEON on arm64: Advanced SIMD is part of every ARMv8-A CPU.
const best = NEON
