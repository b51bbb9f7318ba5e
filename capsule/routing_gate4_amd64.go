//go:build !purego

package capsule

import "golang.org/x/sys/cpu"

// haveGate4AVX reports whether the float32 gate kernels of
// routing_gate4_amd64.s can run.
var haveGate4AVX = cpu.X86.HasAVX2

// gate4LogitsAVX writes the links' logits to sig (logits4 for p.n links).
//
//go:noescape
func gate4LogitsAVX(p *gate4Args)

// gate4NormAVX writes γ = σ/Σσ to out from the σ in sig.
//
//go:noescape
func gate4NormAVX(p *gate4Args)

// gate4BackAVX is backwardBlocks4 for the p.n links of one block, its
// partial parameter gradients written to p.part.
//
//go:noescape
func gate4BackAVX(p *gate4Args)
