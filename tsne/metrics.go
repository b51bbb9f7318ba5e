package tsne

import (
	"fmt"
	"math"
	"runtime"
	"slices"
)

// sqDist returns the squared Euclidean distance between a and b, which
// must have the same length.
func sqDist[P, Q Point](a P, b Q) float64 {
	var s float64
	for j := 0; j < len(a); j++ {
		d := a[j] - b[j]
		s += d * d
	}
	return s
}

// nearest fills q with the q.k nearest points of y to point i (excluding
// i), by Euclidean distance with ties broken by index, and returns them in
// increasing order. The distances are squared.
func nearest[P Point](y []P, i int, q *knnHeap) []neighbour {
	q.reset()
	for j := range y {
		if j != i {
			q.push(neighbour{dist: sqDist(y[i], y[j]), idx: j})
		}
	}
	return q.sorted()
}

// Trustworthiness returns the trustworthiness T(k) of the map y of the
// points x (Venna & Kaski 2001), with the normalisation of scikit-learn's
// sklearn.manifold.trustworthiness:
//
//	T(k) = 1 − 2/(N·k·(2N − 3k − 1)) · Σ_i Σ_{j ∈ N_k(i)} max(0, r(i, j) − k),
//
// where N_k(i) are the k nearest neighbours of point i in y and r(i, j) is
// the rank of j among the neighbours of i in x (1 for the nearest). It is 1
// when every map neighbourhood is a true neighbourhood and penalises
// intruders by how far they are in x. Distances are Euclidean; ties are
// broken by index, in both spaces.
//
// x and y must hold the same number N of points; k must satisfy
// 1 ≤ k < N/2. The computation is exact, O(N²·(D + k)) time and O(N)
// extra memory per goroutine, running on runtime.GOMAXPROCS(0) goroutines.
func Trustworthiness[X, Y Point](x []X, y []Y, k int) (float64, error) {
	if _, err := checkPoints("x", x); err != nil {
		return 0, err
	}
	if _, err := checkPoints("y", y); err != nil {
		return 0, err
	}
	n := len(x)
	if len(y) != n {
		return 0, fmt.Errorf("tsne: x has %d points but y has %d", n, len(y))
	}
	if k < 1 || 2*k >= n {
		return 0, fmt.Errorf("tsne: k is %d, want 1 ≤ k < N/2 = %v", k, float64(n)/2)
	}
	pl := newPool(runtime.GOMAXPROCS(0))
	defer pl.close()
	heaps := make([]*knnHeap, pl.workers)
	dist := make([][]float64, pl.workers)
	for w := range heaps {
		heaps[w] = newKNNHeap(k)
		dist[w] = make([]float64, n)
	}
	penalty := make([]int64, n)
	pl.run(n, func(w, lo, hi int) {
		dx := dist[w]
		for i := lo; i < hi; i++ {
			for l := range x {
				dx[l] = sqDist(x[i], x[l])
			}
			var s int64
			for _, c := range nearest(y, i, heaps[w]) {
				// Rank of c.idx among the neighbours of i in x.
				j, dj := c.idx, dx[c.idx]
				r := 1
				for l, dl := range dx {
					if l != i && (dl < dj || (dl == dj && l < j)) {
						r++
					}
				}
				if r > k {
					s += int64(r - k)
				}
			}
			penalty[i] = s
		}
	})
	var t int64
	for _, s := range penalty {
		t += s
	}
	nf, kf := float64(n), float64(k)
	return 1 - float64(t)*2/(nf*kf*(2*nf-3*kf-1)), nil
}

// labelIndex maps labels to 0, 1, …, L−1 in increasing order of label and
// returns the mapped labels and L.
func labelIndex(labels []int) ([]int, int) {
	u := slices.Clone(labels)
	slices.Sort(u)
	u = slices.Compact(u)
	out := make([]int, len(labels))
	for i, l := range labels {
		out[i], _ = slices.BinarySearch(u, l)
	}
	return out, len(u)
}

// KNNAccuracy returns the leave-one-out accuracy of k-nearest-neighbour
// classification in y: the fraction of points whose label equals the
// majority label of their k nearest other points. Distances are Euclidean
// with ties broken by index; a tied vote goes to the smallest label (as
// scikit-learn's KNeighborsClassifier with uniform weights does).
//
// labels must have one entry per point and 1 ≤ k ≤ N−1. The computation is
// exact, O(N²·D) time, on runtime.GOMAXPROCS(0) goroutines.
func KNNAccuracy[P Point](y []P, labels []int, k int) (float64, error) {
	if _, err := checkPoints("y", y); err != nil {
		return 0, err
	}
	n := len(y)
	if len(labels) != n {
		return 0, fmt.Errorf("tsne: %d labels for %d points", len(labels), n)
	}
	if k < 1 || k > n-1 {
		return 0, fmt.Errorf("tsne: k is %d, want 1 ≤ k ≤ N−1 = %d", k, n-1)
	}
	lab, nl := labelIndex(labels)
	pl := newPool(runtime.GOMAXPROCS(0))
	defer pl.close()
	heaps := make([]*knnHeap, pl.workers)
	votes := make([][]int, pl.workers)
	for w := range heaps {
		heaps[w] = newKNNHeap(k)
		votes[w] = make([]int, nl)
	}
	correct := make([]bool, n)
	pl.run(n, func(w, lo, hi int) {
		v := votes[w]
		for i := lo; i < hi; i++ {
			nb := nearest(y, i, heaps[w])
			best := -1
			for _, c := range nb {
				v[lab[c.idx]]++
			}
			for _, c := range nb {
				l := lab[c.idx]
				if best < 0 || v[l] > v[best] || (v[l] == v[best] && l < best) {
					best = l
				}
			}
			for _, c := range nb {
				v[lab[c.idx]] = 0
			}
			correct[i] = best == lab[i]
		}
	})
	var m int
	for _, c := range correct {
		if c {
			m++
		}
	}
	return float64(m) / float64(n), nil
}

// Silhouette returns the mean silhouette coefficient (Rousseeuw 1987) of
// the clustering of points given by labels, with Euclidean distances:
//
//	s(i) = (b(i) − a(i)) / max(a(i), b(i)),
//
// where a(i) is the mean distance from point i to the other points of its
// cluster and b(i) the smallest mean distance from i to the points of
// another cluster. As in scikit-learn, s(i) = 0 for a point alone in its
// cluster (and for a(i) = b(i) = 0). The result lies in [−1, 1]; higher
// means tighter, better separated clusters.
//
// labels must have one entry per point and take between 2 and N−1 distinct
// values. The computation is exact, O(N²·D) time, on
// runtime.GOMAXPROCS(0) goroutines.
func Silhouette[P Point](points []P, labels []int) (float64, error) {
	if _, err := checkPoints("points", points); err != nil {
		return 0, err
	}
	n := len(points)
	if len(labels) != n {
		return 0, fmt.Errorf("tsne: %d labels for %d points", len(labels), n)
	}
	lab, nl := labelIndex(labels)
	if nl < 2 || nl > n-1 {
		return 0, fmt.Errorf("tsne: labels have %d distinct values, want 2 to N−1 = %d", nl, n-1)
	}
	size := make([]int, nl)
	for _, l := range lab {
		size[l]++
	}
	pl := newPool(runtime.GOMAXPROCS(0))
	defer pl.close()
	sums := make([][]float64, pl.workers)
	for w := range sums {
		sums[w] = make([]float64, nl)
	}
	s := make([]float64, n)
	pl.run(n, func(w, lo, hi int) {
		sum := sums[w]
		for i := lo; i < hi; i++ {
			clear(sum)
			for j := range points {
				if j != i {
					sum[lab[j]] += math.Sqrt(sqDist(points[i], points[j]))
				}
			}
			own := lab[i]
			if size[own] == 1 {
				s[i] = 0
				continue
			}
			a := sum[own] / float64(size[own]-1)
			b := math.Inf(1)
			for l, v := range sum {
				if l != own {
					b = math.Min(b, v/float64(size[l]))
				}
			}
			if m := math.Max(a, b); m > 0 {
				s[i] = (b - a) / m
			} else {
				s[i] = 0
			}
		}
	})
	var mean float64
	for _, v := range s {
		mean += v
	}
	return mean / float64(n), nil
}
