package stats

import "math"

// MeanStd returns the mean and the population standard deviation (numpy's
// default, ddof = 0, as most GNN papers report) of xs; NaN for both when
// xs is empty.
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}
