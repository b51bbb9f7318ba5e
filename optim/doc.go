// Package optim holds prcaps' optimisers: Adam and AdamW with PyTorch's
// semantics, RiemannianAdam with geoopt's, global gradient-norm clipping with
// torch.nn.utils.clip_grad_norm_'s, and learning-rate schedules.
//
// # Parameter groups
//
// Parameters come in Groups, like PyTorch's param_groups: each group can scale
// the learning rate (LRScale), opt out of weight decay (NoWeightDecay, for
// biases, norms and curvatures), be Frozen (the fixed-curvature ablation), and
// carry a Manifold whose rows are points of a Riemannian manifold (only
// RiemannianAdam accepts those). A parameter may appear in one group only.
//
// # Numerics and state
//
// Optimiser state (first and second moments, AMSGrad maxima) is stored in the
// parameter's element type T, as PyTorch stores it in the parameter's dtype;
// this also lets a manifold transport the first moment in place through the
// Manifold interface, which works on tensor.Dense[T]. The Euclidean update
// loops compute in T too, like PyTorch (in float32 their division and square
// root run at twice the float64 rate), with the per-step scalars (bias
// corrections, step size) computed in float64; the update of manifold
// parameters computes each element in float64 and rounds once. The float64
// instantiation is the textbook formula the tests compare with.
//
// State is allocated on a parameter's first Step; after that Step allocates
// nothing (provided the Manifold implementations do not), in line with the
// engine's rule that a warm training step makes no garbage. Step counts are
// kept per parameter, as in PyTorch and geoopt, so a parameter whose group was
// frozen for a while resumes with its own bias corrections.
//
// # Usage
//
//	opt, err := optim.NewAdamW(optim.Config{LR: 0.005, WeightDecay: 5e-4},
//		optim.Group[float32]{Name: "weights", Params: weights},
//		optim.Group[float32]{Name: "curvature", Params: curv, NoWeightDecay: true, Frozen: fixedCurvature})
//	...
//	for epoch := range epochs {
//		opt.SetLR(schedule(epoch))
//		opt.ZeroGrad()
//		// forward, tape.Backward(loss)
//		if _, err := optim.ClipGradNorm(opt.Params(), 1.0); err != nil { ... } // non-finite gradients
//		if err := opt.Step(); err != nil { ... }
//	}
package optim
