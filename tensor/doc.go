// Package tensor holds the numeric storage of prcaps and the kernels that run
// on it: row-major dense matrices, CSR sparse matrices, and parallel kernels
// (gemm, SpMM, gather/scatter of rows, segment reductions over CSR-by-target
// graphs), plus the vector kernels of capsule routing's per-link work
// (Aggregate, AggregateGroups, AggregateGroupedLinked, AggregateLinks,
// GatherDot, GatherDotLinks, Gather, ScaleGroups, TanhAddDotBlocks with
// TanhAddDotBack and TanhDotBack, Sigmoid64, Log64).
//
// On amd64 with AVX2 and FMA the float32 row kernels (and Sigmoid64 and Log64,
// the latter with math.Log's bits) run in
// assembly; where AVX-512 is present too, Gemm's row kernels, 64-column
// row sums, the grouped sums over links, ScaleGroups and the alignment's
// tanh passes use it, with the AVX2 kernels' (or the plain loops')
// arithmetic lane for lane. On arm64 Gemm's row kernel, the row
// aggregation (Aggregate's float32 rows), the alignment's tanh passes and
// GatherDot's float32 rows run in NEON.
// Elsewhere, with the purego build tag, or with PRCAPS_KERNELS=go, portable
// Go loops do the same work (the hot ones unrolled into independent
// register sums), and the tests hold them and the assembly to slow references;
// PRCAPS_KERNELS=avx2 keeps the AVX-512 kernels off (see internal/kernels,
// which decides the set for every package).
//
// The types and most kernels are generic over the element type (float32 for
// training, float64 for gradient checks and reference computations); the
// tanh kernels are float32 and Sigmoid64 and Log64 float64, the types their callers
// keep. Kernels
// never allocate their outputs implicitly when an output argument is given:
// callers own workspaces, so that a training step allocates nothing once warm.
package tensor
