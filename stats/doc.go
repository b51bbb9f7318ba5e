// Package stats holds the paired tests behind the benchmark tables'
// comparisons: two models trained on the same seeds or folds give paired
// accuracies, and their differences d_i are what the tests see.
//
//   - PairedT: the paired two-sided t-test (Student's t with n−1 degrees
//     of freedom, gonum's distuv.StudentsT).
//   - Wilcoxon: the Wilcoxon signed-rank test, two-sided. Zero differences
//     are dropped (SciPy's default zero_method="wilcox"); ties among |d_i|
//     get mid-ranks. For n ≤ ExactMax non-zero differences the p-value is
//     exact: the permutation distribution of the positive-rank sum over all
//     2^n sign patterns of the observed ranks, counted by dynamic
//     programming over rank sums. Without ties this is the classical exact
//     distribution and equals SciPy's method="exact" p-value; with ties it is
//     the exact conditional distribution given the mid-ranks, the one R's
//     coin::wilcoxsign_test(distribution = "exact", zero.method = "Wilcoxon")
//     computes (SciPy ≥ 1.9 switches to the normal approximation when there
//     are ties, which this package does only past ExactMax). For n > ExactMax
//     it is the normal approximation with the tie correction of the variance
//     and no continuity correction (SciPy's method="approx", correction=False).
//   - Sign: the sign test's counts and its exact two-sided binomial p-value.
//   - Holm: Holm's step-down adjustment of a family of p-values.
//
// Every function takes the two samples in pair order (a[i] with b[i]) and
// returns an error for unequal lengths or non-finite values.
package stats
