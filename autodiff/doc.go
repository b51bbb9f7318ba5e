// Package autodiff is prcaps' reverse-mode differentiation engine: a tape of
// coarse ops, each with a hand-written backward.
//
// A Tape records the ops of one forward pass. Reset rewinds it; the next pass
// reuses the nodes, buffers and op records of the previous one position by
// position, so a training step whose sequence of ops does not change allocates
// nothing once warm. Parameters are leaf Vars that live outside the tape; their
// gradients accumulate across Backward calls until the optimiser zeroes them.
//
// An op records its output with Tape.Node, naming its inputs, and its backward
// pass with OpOf. Knowing each node's inputs lets Backward under ReleaseGrads
// keep a gradient only from its last consumer's step to its own, in buffers
// pooled by the tape; GradCheck checks every op both ways, bit for bit.
//
// The engine is generic over the element type: models train in float32 and the
// gradient checks (see GradCheck) run the same code in float64.
package autodiff
