// Package manifold is the geometry of PR-CapsNet: the pseudo-hyperboloid
//
//	Q = {x ∈ R^(s,t+1) : ⟨x,x⟩ = β},  β < 0,
//
// its diffeomorphism ψ onto the product S^t(r) × R^s (r = √|β|), and the
// diffeomorphic logarithmic and exponential maps at the pole o = (r·e₀, 0)
// (DESIGN §4; paper §"Preliminary", Eqs. pseudo_inner_product,
// pseudo_hyperboloid_def, psi_inv_map, diffeo_log_map, diffeo_exp_map).
//
// # Conventions (DESIGN §4, authoritative)
//
// A point x ∈ R^D, D = s+t+1, is stored time block first: x = (x_T, x_S) with
// x_T = (x₀, x_⊥) ∈ R^(t+1) time-like (sign −) and x_S ∈ R^s space-like
// (sign +):
//
//	⟨x,y⟩ = −⟨x_T,y_T⟩ + ⟨x_S,y_S⟩,   x ∈ Q ⇔ ‖x_T‖² = |β| + ‖x_S‖².
//
// (The paper's Eq. 1 puts the minus on the space-like block; its ψ needs it
// on the time block, which DESIGN follows.) Tangent coordinates at o are
// ξ = (ξ_T, ξ_S) ∈ R^t × R^s, d = s+t, with the metric
// g(ξ,η) = −⟨ξ_T,η_T⟩ + ⟨ξ_S,η_S⟩ and pseudo-norm ‖ξ‖_ps = √|g(ξ,ξ)|. Dims
// holds (s, t); t ≥ 1 because the sphere block needs one.
//
// # Two layers
//
// The float64 reference functions on single vectors (Inner, TangentMetric,
// PseudoNorm, Psi, PsiInv, SphereLog, SphereExp, LogOVec, ExpOVec, ProjQVec,
// WrapVec, ActivateVec) follow the formulas literally and are the source of
// truth. The batched ops (LogO, ExpO, ProjQ, PsiInvUnit, Wrap,
// TangentActivation, RowTangentInner, RowInner, RowPseudoNorm, Beta,
// RadiusOp) work on [n × D] / [n × d] matrices of either float type, are
// recorded on an autodiff.Tape with hand-derived backward passes (including
// the gradient with respect to the curvature), run in parallel over rows
// (the curvature gradient is reduced over fixed row blocks, so it does not
// depend on the number of goroutines), compute every row in float64, and
// allocate nothing in steady state (op records, method values and reduction
// buffers are reused through autodiff.OpOf).
//
// # Curvature
//
// The learnable parameter is an unconstrained scalar ρ, with
//
//	β = −softplus(ρ) − 1e-4   (BetaFromRho; RhoFromBeta inverts it),
//
// so β < −1e-4 always; RhoInit gives β = −1. Geometry ops take β as a 1×1
// Var: a model records Beta(t, ρ) once per pass and hands its output to every
// op, so d/dρ = d/dβ · dβ/dρ is exact by the chain rule (each op returns
// ∂L/∂β, computed analytically through r = √|β|). Passing β rather than ρ
// lets many ops and the classifier's τ·r share one curvature node, and a
// frozen curvature is simply a β Var that does not require a gradient. Ops
// panic when β is not a finite negative number.
//
// # Singular points (forward and backward are finite everywhere)
//
//   - ξ_T = 0 (ExpO), ‖ξ‖ → 0 (squash): series for sin θ/θ and its
//     derivative; the squash Jacobian at 0 is 0.
//   - u_⊥ = 0 on the pole side (x on the pole's geodesic, x₀ > 0): loĝ uses
//     the limit ξ_T = r·x_⊥/x₀ and a series for the derivative.
//   - The antipode of the pole (x_⊥ = 0 up to AxisTol·‖x_T‖, x₀ < 0): the
//     spherical log is not unique (every direction is a minimising geodesic);
//     LogO returns ξ_T = π·r·e₁ (the first tangent direction), so that
//     exp̂_o(loĝ_o(x)) = x still holds, with zero gradient into x_T and
//     ∂ξ_T/∂r = π·e₁.
//   - x_T ≈ 0 (‖x_T‖ ≤ EpsNorm, not on Q and not in ψ's domain): ψ takes the
//     pole's direction e₀, so loĝ gives ξ_T = 0 and Proj_Q gives
//     (√(|β|+‖x_S‖²)·e₀, x_S), with zero gradient into x_T.
//   - Large norms (‖ξ‖ = 1e4 and beyond): closed forms with no cancellation;
//     squash uses ‖ξ‖/(1+‖ξ‖²) = 1/(‖ξ‖+1/‖ξ‖).
//   - Light-like tangent vectors (g(ξ,ξ) = 0, ξ ≠ 0): RowPseudoNorm is 0
//     there and passes no gradient while ‖ξ‖_ps ≤ EpsPseudoNorm.
//   - Near (not at) the antipode loĝ is finite but its Jacobian grows like
//     r/‖x_⊥‖ (loĝ is discontinuous at the antipode); it stays finite
//     because rows within AxisTol take the antipode branch.
//   - Wrap at ‖ξ‖ = π·r exactly follows atan2(sin θ, cos θ), i.e. the branch
//     that floating-point sin θ picks.
//
// # Manifold-valued parameters
//
// A parameter point on Q is stored through ψ as a row (û, v) with û on the
// UNIT sphere S^t ⊂ R^(t+1) and v ∈ R^s; PsiInvUnit maps it to
// x = (√(|β|+‖v‖²)·û, v) = ψ⁻¹(r·û, v) ∈ Q. Storing û on the unit sphere makes
// the parameter independent of β: when β is learned the stored rows stay
// valid and map to the current Q without re-projection. SphereEuclidean
// implements optim.Manifold for such rows (product of the unit sphere and
// R^s with the induced Euclidean metric).
package manifold
