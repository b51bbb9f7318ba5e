package tsne

import (
	"math"
	"math/rand/v2"
	"slices"
)

// neighbour is a candidate neighbour: an index and its distance (Euclidean
// or squared Euclidean, depending on the caller).
type neighbour struct {
	dist float64
	idx  int
}

// less orders candidates by distance, then by index, so that the k nearest
// neighbours of a point are unique even when distances tie.
func (a neighbour) less(b neighbour) bool {
	return a.dist < b.dist || (a.dist == b.dist && a.idx < b.idx)
}

// knnHeap keeps the k smallest candidates (in the order of less) seen so
// far, as a max-heap in a fixed buffer.
type knnHeap struct {
	k int
	h []neighbour
}

func newKNNHeap(k int) *knnHeap { return &knnHeap{k: k, h: make([]neighbour, 0, k)} }

func (q *knnHeap) reset() { q.h = q.h[:0] }

// full reports whether the heap holds k candidates.
func (q *knnHeap) full() bool { return len(q.h) == q.k }

// worst returns the largest kept candidate; the heap must be non-empty.
func (q *knnHeap) worst() neighbour { return q.h[0] }

// push offers c to the heap.
func (q *knnHeap) push(c neighbour) {
	if len(q.h) < q.k {
		q.h = append(q.h, c)
		for i := len(q.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !q.h[p].less(q.h[i]) {
				break
			}
			q.h[p], q.h[i] = q.h[i], q.h[p]
			i = p
		}
		return
	}
	if !c.less(q.h[0]) {
		return
	}
	q.h[0] = c
	n := len(q.h)
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && q.h[m].less(q.h[l]) {
			m = l
		}
		if r < n && q.h[m].less(q.h[r]) {
			m = r
		}
		if m == i {
			break
		}
		q.h[m], q.h[i] = q.h[i], q.h[m]
		i = m
	}
}

// sorted sorts the kept candidates in increasing order (destroying the heap
// order) and returns them.
func (q *knnHeap) sorted() []neighbour {
	slices.SortFunc(q.h, func(a, b neighbour) int {
		if a.less(b) {
			return -1
		}
		if b.less(a) {
			return 1
		}
		return 0
	})
	return q.h
}

// euclidean returns the Euclidean distance between a and b (equal lengths).
func euclidean(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// vpLeaf is the largest subtree of a vpTree that is scanned linearly.
const vpLeaf = 8

// vpTree is a vantage-point tree (Yianilos 1993) over the rows of x, for
// exact k-nearest-neighbour queries in the Euclidean metric. It is
// implicit: a subtree is a range [lo, hi) of items; when hi−lo > vpLeaf,
// items[lo] is its vantage point, the "inside" child is [lo+1, mid) with
// distances ≤ mu[lo] to the vantage point and the "outside" child is
// [mid, hi) with distances ≥ mu[lo], where mid = lo+1+(hi−lo−1)/2.
// Smaller ranges are leaves.
type vpTree struct {
	x     [][]float64
	items []int
	mu    []float64
}

// newVPTree builds the tree, choosing vantage points with rng.
func newVPTree(x [][]float64, rng *rand.Rand) *vpTree {
	t := &vpTree{x: x, items: make([]int, len(x)), mu: make([]float64, len(x))}
	for i := range t.items {
		t.items[i] = i
	}
	scratch := make([]neighbour, len(x))
	t.build(0, len(x), rng, scratch)
	return t
}

func (t *vpTree) build(lo, hi int, rng *rand.Rand, scratch []neighbour) {
	if hi-lo <= vpLeaf {
		return
	}
	v := lo + rng.IntN(hi-lo)
	t.items[lo], t.items[v] = t.items[v], t.items[lo]
	vp := t.x[t.items[lo]]
	s := scratch[lo+1 : hi]
	for i := range s {
		j := t.items[lo+1+i]
		s[i] = neighbour{dist: euclidean(vp, t.x[j]), idx: j}
	}
	// A full sort is simpler than a selection and deterministic; the
	// distance computations dominate the cost anyway.
	slices.SortFunc(s, func(a, b neighbour) int {
		if a.less(b) {
			return -1
		}
		if b.less(a) {
			return 1
		}
		return 0
	})
	for i, c := range s {
		t.items[lo+1+i] = c.idx
	}
	mid := lo + 1 + (hi-lo-1)/2
	t.mu[lo] = s[mid-lo-1].dist
	t.build(lo+1, mid, rng, scratch)
	t.build(mid, hi, rng, scratch)
}

// vpSlack is the relative slack added to the triangle-inequality pruning
// tests, so that rounding in the distances can never prune a true
// neighbour.
const vpSlack = 1e-10

// search fills q with the q.k nearest rows to row i of x, excluding i
// itself, by Euclidean distance with ties broken by index.
func (t *vpTree) search(i int, q *knnHeap) {
	q.reset()
	t.searchRange(0, len(t.items), i, q)
}

func (t *vpTree) searchRange(lo, hi, i int, q *knnHeap) {
	xi := t.x[i]
	if hi-lo <= vpLeaf {
		for _, j := range t.items[lo:hi] {
			if j != i {
				q.push(neighbour{dist: euclidean(xi, t.x[j]), idx: j})
			}
		}
		return
	}
	v := t.items[lo]
	d := euclidean(xi, t.x[v])
	if v != i {
		q.push(neighbour{dist: d, idx: v})
	}
	mu := t.mu[lo]
	mid := lo + 1 + (hi-lo-1)/2
	tau := func() float64 {
		if !q.full() {
			return math.Inf(1)
		}
		return q.worst().dist
	}
	slack := vpSlack * (d + mu)
	// Visit the side holding i first: it shrinks tau soonest.
	if d < mu {
		if d-tau() <= mu+slack {
			t.searchRange(lo+1, mid, i, q)
		}
		if d+tau() >= mu-slack {
			t.searchRange(mid, hi, i, q)
		}
	} else {
		if d+tau() >= mu-slack {
			t.searchRange(mid, hi, i, q)
		}
		if d-tau() <= mu+slack {
			t.searchRange(lo+1, mid, i, q)
		}
	}
}
