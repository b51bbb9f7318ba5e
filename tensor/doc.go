// Package tensor holds the numeric storage of prcaps and the kernels that run
// on it: row-major dense matrices, CSR sparse matrices, and parallel kernels
// (gemm, SpMM, gather/scatter of rows, segment reductions over CSR-by-target
// graphs).
//
// Every type and kernel is generic over the element type (float32 for
// training, float64 for gradient checks and reference computations). Kernels
// never allocate their outputs implicitly when an output argument is given:
// callers own workspaces, so that a training step allocates nothing once warm.
package tensor
