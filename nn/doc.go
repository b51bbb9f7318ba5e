// Package nn holds the generic layers that every model shares: Linear,
// LayerNorm, sparse inputs with dropout on their non-zeros, GCNConv with its
// propagation operators, and the initialisers. Capsule routing and the
// pseudo-Riemannian classifier live in package capsule.
//
// A layer owns its parameters (autodiff leaf Vars with dotted names) and
// records its forward computation on a caller's Tape. Per-step workspaces
// live in the tape's op records (and, for sparse inputs, in structures
// rebuilt in place), so a steady-state step allocates nothing. Initialisers
// take an explicit *rand.Rand, so a model is reproducible from a seed and no
// global random state exists.
package nn
