// Package tsne implements Barnes-Hut t-SNE (van der Maaten 2014) for 2-D
// maps of high-dimensional points, and three measures of a map's quality:
// Trustworthiness, KNNAccuracy and Silhouette.
//
// # Algorithm
//
// Embed minimises the Kullback-Leibler divergence KL(P‖Q) between input
// affinities P and the Student-t affinities Q of the map
// (van der Maaten & Hinton 2008):
//
//	q_ij = w_ij / Σ_{k≠l} w_kl,  w_ij = 1 / (1 + ‖y_i − y_j‖²).
//
// Input affinities. For each point, its ⌊3·perplexity⌋ nearest neighbours
// (Euclidean) are found exactly with a vantage-point tree, and the
// precision of a Gaussian kernel over their squared distances is found by
// bisection so that the entropy of the conditional distribution p_{·|i}
// equals ln(perplexity) (to within 1e-6; within 200 steps). The
// conditional matrix is symmetrised as P = (P + Pᵀ)/(2N) and kept sparse,
// with O(N·perplexity) entries.
//
// Gradient. The gradient
//
//	∂C/∂y_i = 4 Σ_j (p_ij − q_ij) w_ij (y_i − y_j)
//
// is split into attractive forces, summed exactly over the sparse P, and
// repulsive forces, estimated with a quadtree rebuilt every iteration: a
// cell of side s whose centre of mass lies at distance d from y_i stands
// for all its points when s/d < Config.Theta (the full side length, as in
// scikit-learn; van der Maaten's code compares the half side, so its θ
// corresponds to 2θ here). Theta = 0 gives the exact O(N²) gradient.
//
// Optimisation. Gradient descent with momentum and delta-bar-delta gains
// (a gain grows by 0.2 when the gradient's sign differs from the previous
// update's and shrinks by a factor 0.8 otherwise, never below 0.01), as in
// van der Maaten's reference implementation. During the first 250
// iterations P is multiplied by the early exaggeration (12) and the
// momentum is 0.5; afterwards the momentum is 0.8. The map is re-centred at
// the origin after every iteration. The default learning rate is the
// "auto" rate of openTSNE and scikit-learn ≥ 1.2, max(N/12/4, 50).
//
// Initialisation. The initial map is drawn from an isotropic Gaussian with
// standard deviation 1e-4, seeded by Config.Seed (van der Maaten's
// choice). A PCA initialisation, which better preserves global structure,
// is not provided.
//
// # Determinism and parallelism
//
// Embed runs the neighbour search, the bandwidth calibration and the force
// computations on runtime.GOMAXPROCS(0) goroutines. Each point's forces are
// computed by one goroutine into that point's own slots, and every sum over
// points is then taken in a fixed order, so the result depends only on the
// input, the Config and the platform: runs with the same Seed are
// bit-identical whatever the number of goroutines or their scheduling.
// The gradient-descent iterations allocate no memory.
//
// # Cost
//
// The neighbour search costs O(N log N · D) for data of low intrinsic
// dimension and degrades towards O(N² · D) otherwise; the affinities
// O(N · perplexity); each iteration O(N · perplexity) for the attractive
// forces and O(N log N) for the repulsive ones. Memory is O(N · (D +
// perplexity)). The quality measures are exact and cost O(N²) distance
// evaluations each; they are meant for maps of up to a few tens of
// thousands of points.
//
// Measured (`go test ./tsne -bench Embed/20000 -benchtime 1x`, 20,000
// points in 64 dimensions, 10 clusters, 1,000 iterations, the 2-core
// development VM, idle, one run, the code of 1da2a02): 54 s.
//
// # References
//
//   - L. van der Maaten. Accelerating t-SNE using tree-based algorithms.
//     JMLR 15, 2014.
//   - L. van der Maaten, G. Hinton. Visualizing data using t-SNE. JMLR 9,
//     2008.
//   - J. Venna, S. Kaski. Neighborhood preservation in nonlinear
//     projection methods: an experimental study. ICANN 2001.
//   - P. J. Rousseeuw. Silhouettes: a graphical aid to the interpretation
//     and validation of cluster analysis. J. Comput. Appl. Math. 20, 1987.
//   - A. C. Belkina et al. Automated optimized parameters for
//     t-distributed stochastic neighbor embedding improve visualization
//     and analysis of large datasets. Nat. Commun. 10, 2019 (the learning
//     rate N/exaggeration, which openTSNE uses and scikit-learn divides by
//     the 4 its gradient includes).
package tsne
