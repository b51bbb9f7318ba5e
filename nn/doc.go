// Package nn holds the layers of prcaps' models: Linear, LayerNorm, Dropout,
// graph convolutions (GCNConv, ...) and, later, the capsule routing layers and
// the pseudo-Riemannian capsule classifier.
//
// A layer owns its parameters (autodiff leaf Vars) and records its forward
// computation on a caller's Tape. Layers hold no per-step state: everything a
// step needs lives on the tape, so a steady-state step allocates nothing.
// Initialisers take an explicit *rand.Rand, so a model is reproducible from a
// seed and no global random state exists.
package nn
