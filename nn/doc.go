// Package nn holds the layers of prcaps' models: Linear, LayerNorm, sparse
// inputs with dropout, GCNConv, the capsule routing layers over child→parent
// Links (adaptive curvature routing and its PCR variant, graph-level routing
// to class capsules, Euclidean dynamic routing), the tangent-space GCN, and
// the pseudo-Riemannian capsule classifier PRCC.
//
// A layer owns its parameters (autodiff leaf Vars) and records its forward
// computation on a caller's Tape. Per-step workspaces live in the tape's op
// records (and, for links and sparse inputs, in structures rebuilt in place),
// so a steady-state step allocates nothing.
// Initialisers take an explicit *rand.Rand, so a model is reproducible from a
// seed and no global random state exists.
package nn
