package capsule

import (
	"github.com/prcaps/prcaps/autodiff"
)

// eucIndex is the derived structure of a Links that Euclidean routing needs
// besides the parent-major CSR: the parent of every link, and the links
// grouped by child, so that gradients into child rows accumulate in parallel
// over children without atomics, and couplings can be normalised over the
// parents of each child.
type eucIndex struct {
	links *Links
	gen   uint64 // links.gen when built
	// parent[e] is the parent of link e.
	parent []int32
	// The links of child i are childLink[childPtr[i]:childPtr[i+1]], in
	// increasing order; inv[e] is the position of link e there.
	childPtr, childLink, inv []int32
}

// build fills x from l (the slices must have the right lengths).
func (x *eucIndex) build(l *Links) {
	x.links, x.gen = l, l.gen
	for j := 0; j < l.Parents; j++ {
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			x.parent[e] = int32(j)
		}
	}
	clear(x.childPtr)
	for _, i := range l.Child {
		x.childPtr[i+1]++
	}
	for i := 0; i < l.Children; i++ {
		x.childPtr[i+1] += x.childPtr[i]
	}
	// Counting sort, stable: each child's links stay in parent order. The
	// pointer is advanced while filling and shifted back afterwards.
	for e, i := range l.Child {
		pos := x.childPtr[i]
		x.childLink[pos], x.inv[e] = int32(e), pos
		x.childPtr[i]++
	}
	for i := l.Children; i > 0; i-- {
		x.childPtr[i] = x.childPtr[i-1]
	}
	x.childPtr[0] = 0
}

// eucCost is the ParallelFor cost of a pass over n rows that together touch
// every link once with work w per link.
func eucCost(x *eucIndex, n, w int) int {
	return (x.links.NumLinks()*w)/max(n, 1) + w
}

func eucDot[T autodiff.Float](a, b []T) T {
	var s T
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func eucAxpy[T autodiff.Float](alpha T, x, y []T) {
	for i, v := range x {
		y[i] += alpha * v
	}
}
