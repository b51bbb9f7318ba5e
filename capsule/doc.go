// Package capsule holds the capsule layers of PR-CapsNet (DESIGN §5): the
// child→parent Links that routing runs over, adaptive curvature routing
// (ACR, paper Algorithm 1) and its one-perspective PCR variant, graph-level
// routing of node capsules to one capsule per class, classic Euclidean
// dynamic routing (the "Caps only" ablation), the tangent-space GCN layer
// (the "PR only" ablation), and the pseudo-Riemannian capsule classifier
// PRCC with its linear alternative.
//
// Capsules are points of the pseudo-hyperboloid of package manifold, passed
// between layers either as points or as their tangent coordinates at the
// origin (the Forward and ForwardTangent forms). Every layer records its
// forward pass on a caller's autodiff Tape as a few fused ops with
// hand-written backward passes; the assembly kernels of the gate (amd64)
// have a portable Go path, selected with -tags purego or PRCAPS_KERNELS=go
// (internal/kernels), that tests compare against.
package capsule
