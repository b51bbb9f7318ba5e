package capsule

import (
	"fmt"
	"slices"
	"sync"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// linkIndex is the derived structure of a Links that the routing ops need
// besides the parent-major CSR: the parent of every link, and the links
// grouped by child (child-major), so that gradients flowing into child rows
// are accumulated in parallel over children without atomics, and so that
// CouplingOverParents can normalise over the parents of each child.
type linkIndex struct {
	links *Links
	// parent[e] is the parent of link e.
	parent []int32
	// childPtr/childLink group the link ids by child: the links of child i
	// are childLink[childPtr[i]:childPtr[i+1]], in increasing order.
	childPtr, childLink []int32
	// inv[e] is the position of link e in childLink (childLink[inv[e]] = e),
	// for CouplingOverParents only: built on first use (capsules), under
	// pairMu; invSet is false until then.
	inv    []int32
	invSet bool
	// childParent[q] is the parent of link childLink[q]. On symmetric links
	// (children and parents the same nodes, child i's parents in increasing
	// order being Child[Ptr[i]:Ptr[i+1]], as on an undirected graph's node
	// links) it is links.Child itself; otherwise ownParent, the index's own
	// storage.
	childParent, ownParent []int32
	// capPtr, capLink and capInv group the links as childPtr, childLink
	// and inv do, but by capsule, for Links.Copies > 1: the copies c·n + i
	// of capsule i form one group. CouplingOverParents normalises over
	// these groups (capsules). Built on first use, under pairMu; capSet is
	// false until then.
	capPtr, capLink, capInv []int32
	capSet                  bool
	// self is the identity linking of the children (parent i has the single
	// child i), for per-child terms of the first routing iteration.
	self *linkIndex
	// gen is links.gen when the index was built (see Links.Changed).
	gen  uint64
	fill []int32 // scratch of the build
	// pairs is the (link, perspective) layout for pairK perspectives, built
	// on first use (see pairIndex); pairK is 0 until then. pairMu guards
	// the build: forward passes on different tapes may share the index.
	pairMu sync.Mutex
	pairs  pairIndex
	pairK  int
	// pairs1 is the layout for one perspective: the links themselves
	// (slices of links and of the index), its groups checked on first use
	// (pairs1Set).
	pairs1    pairIndex
	pairs1Set bool
}

// pairIndex lays the E·K (link, perspective) pairs of a linkIndex out as
// sparse matrices over rows of K·d-wide per-child matrices seen as (C·K)×d
// (row i·K+k is ξ_{i,k}), so that the per-link sums of the routing ops are
// tensor.Aggregate calls (vector kernels, parallel over rows):
//
//   - by parent: the pairs of parent j are ptr[j]:ptr[j+1] (ptr = Ptr·K) in
//     link order, pair e·K+k reading row child[e·K+k] = Child[e]·K+k; an
//     E×K weight matrix needs no reordering. Where the kernels read the
//     links themselves (direct: tensor.LinkKernels, the default K = 4 and
//     d = 18 in float32), ptr and child are not built: pairSum and
//     pairDots pass the links' Ptr and Child with K instead.
//   - by child row: row i·K+k of a child-side result sums the links of
//     child i, reading their parents in the order of the child grouping
//     (childParent[childPtr[i]:childPtr[i+1]]). The K rows of a child read
//     the same parents, so they form a group of tensor.AggregateGroups
//     whose sources are stored once: groups, over the link index's own
//     childPtr and childParent, with the links' ids (childLink): the
//     E×K weights stay in link order, and tensor.AggregateGroupedLinked
//     reads each term's K weights through its link id.
type pairIndex struct {
	ptr, child []int32
	direct     bool // ptr and child unbuilt: the kernels read the links
	// groups is childPtr and childParent checked once as groups of K rows,
	// for the child-side sums (tensor.AggregateGrouped).
	groups tensor.Groups
}

// setGroups checks the child grouping as groups of K rows; the grouping is
// built that way, so a failure is a bug.
func (pi *pairIndex) setGroups(x *linkIndex, K int) {
	l := x.links
	if err := pi.groups.Set(x.childPtr[:l.Children+1], x.childParent[:l.NumLinks()], K); err != nil {
		panic(fmt.Sprintf("capsule: routing pair layout: %v", err))
	}
	if err := pi.groups.SetLinks(x.childLink[:l.NumLinks()]); err != nil {
		panic(fmt.Sprintf("capsule: routing pair layout: %v", err))
	}
}

// pairsFor returns the pair layout for K perspectives, building it when K,
// direct or the links changed since the last call. Layers of one K share
// it. direct says that the by-parent kernels read the links themselves
// (tensor.LinkKernels for the routing's element type and d), so that the
// layout needs no pair index.
func (x *linkIndex) pairsFor(K int, direct bool) *pairIndex {
	x.pairMu.Lock()
	defer x.pairMu.Unlock()
	if K == 1 {
		if !x.pairs1Set {
			x.pairs1.setGroups(x, 1)
			x.pairs1Set = true
		}
		return &x.pairs1
	}
	l, pi := x.links, &x.pairs
	if x.pairK == K && pi.direct == direct {
		return pi
	}
	pi.direct = direct
	if direct {
		pi.ptr, pi.child = nil, nil
		pi.setGroups(x, K)
		x.pairK = K
		return pi
	}
	E := l.NumLinks()
	pi.ptr = grow(pi.ptr, l.Parents+1)
	for j, v := range l.Ptr[:l.Parents+1] {
		pi.ptr[j] = v * int32(K)
	}
	pi.child = grow(pi.child, E*K)
	for e, c := range l.Child[:E] {
		for k := 0; k < K; k++ {
			pi.child[e*K+k] = c*int32(K) + int32(k)
		}
	}
	pi.setGroups(x, K)
	x.pairK = K
	return pi
}

// identityIndex returns the index of n parents each with the single child
// of the same number.
func identityIndex(n int) *linkIndex {
	return identityInto(nil, n)
}

// identityInto is identityIndex rebuilding x (nil: a new one) in place.
func identityInto(x *linkIndex, n int) *linkIndex {
	var l *Links
	if x != nil {
		l = x.links
	} else {
		l = &Links{}
	}
	l.Parents, l.Children = n, n
	l.Ptr = grow(l.Ptr, n+1)
	l.Child = grow(l.Child, n)
	l.Ptr[0] = 0
	for i := 0; i < n; i++ {
		l.Ptr[i+1] = int32(i + 1)
		l.Child[i] = int32(i)
	}
	if x == nil {
		x = &linkIndex{}
	}
	if err := x.build(l); err != nil {
		panic(err)
	}
	return x
}

func newLinkIndex(l *Links) (*linkIndex, error) {
	x := &linkIndex{}
	if err := x.build(l); err != nil {
		return nil, err
	}
	return x, nil
}

// build (re)computes x for l, reusing x's slices.
func (x *linkIndex) build(l *Links) error {
	if err := l.Validate(); err != nil {
		return err
	}
	E := l.NumLinks()
	x.links, x.gen = l, l.gen
	x.pairMu.Lock()
	x.pairK, x.pairs1Set, x.capSet, x.invSet = 0, false, false, false
	x.pairMu.Unlock()
	x.parent = grow(x.parent, E)
	for j := 0; j < l.Parents; j++ {
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			x.parent[e] = int32(j)
		}
	}
	x.fill = grow(x.fill, l.Children)
	x.childPtr, x.childLink = groupLinks(x.childPtr, x.childLink, x.fill, l.Child[:E], int32(l.Children))
	if symmetricLinks(l, x.childPtr, x.childLink[:E], x.parent) {
		x.childParent = l.Child[:E]
	} else {
		x.ownParent = grow(x.ownParent, E)
		for q, e := range x.childLink[:E] {
			x.ownParent[q] = x.parent[e]
		}
		x.childParent = x.ownParent
	}
	x.pairs1 = pairIndex{ptr: l.Ptr[:l.Parents+1], child: l.Child[:E]}
	return nil
}

// symmetricLinks reports whether the parents of the links grouped by child
// (parent[link[q]], child by child) are l.Child itself: children and
// parents are the same nodes, and child i's parents, in increasing order,
// are parent i's children.
func symmetricLinks(l *Links, ptr, link, parent []int32) bool {
	if l.Parents != l.Children || !slices.Equal(ptr[:l.Children+1], l.Ptr[:l.Parents+1]) {
		return false
	}
	for q, e := range link {
		if parent[e] != l.Child[q] {
			return false
		}
	}
	return true
}

// capsules returns the links grouped by capsule: the child grouping
// itself without copies, else capPtr, capLink and capInv, built when the
// links changed since the last call.
func (x *linkIndex) capsules() (ptr, link, inv []int32) {
	l := x.links
	x.pairMu.Lock()
	defer x.pairMu.Unlock()
	if l.Copies <= 1 {
		if !x.invSet {
			x.inv = invert(x.inv, x.childLink[:l.NumLinks()])
			x.invSet = true
		}
		return x.childPtr[:l.Children+1], x.childLink[:l.NumLinks()], x.inv
	}
	if !x.capSet {
		x.buildCapsules(l)
		x.capSet = true
	}
	return x.capPtr, x.capLink, x.capInv
}

// buildCapsules groups the links by capsule, child mod Children/Copies.
func (x *linkIndex) buildCapsules(l *Links) {
	x.capPtr, x.capLink = groupLinks(x.capPtr, x.capLink, x.fill, l.Child[:l.NumLinks()], int32(l.Children/l.Copies))
	x.capInv = invert(x.capInv, x.capLink)
}

// invert returns, in inv's storage, the inverse of the permutation link:
// inv[link[q]] = q.
func invert(inv, link []int32) []int32 {
	inv = grow(inv, len(link))
	for q, e := range link {
		inv[e] = int32(q)
	}
	return inv
}

// groupLinks counting-sorts the links e = 0 … len(child)−1 into n groups by
// child[e] mod n, keeping link order within a group, into ptr (n+1 group
// starts) and link (the links group by group), reusing their storage; fill
// is scratch of at least n entries.
// Grouping by child takes n = Children (no child reaches n, so no division),
// by capsule n = Children/Copies.
func groupLinks(ptr, link, fill, child []int32, n int32) ([]int32, []int32) {
	key := func(c int32) int32 {
		if c >= n {
			c %= n
		}
		return c
	}
	ptr = grow(ptr, int(n)+1)
	clear(ptr)
	link = grow(link, len(child))
	for _, c := range child {
		ptr[key(c)+1]++
	}
	for i := range n {
		ptr[i+1] += ptr[i]
	}
	fill = fill[:n]
	copy(fill, ptr[:n])
	for e, c := range child {
		k := key(c)
		link[fill[k]] = int32(e)
		fill[k]++
	}
	return ptr, link
}

// linkCacheSize bounds the number of Links a layer keeps indices for: enough
// for every mini-batch of a graph-classification epoch to stay cached, while
// a stream of fresh Links (one per batch, never reused) cannot grow memory
// without bound.
const linkCacheSize = 4096

// linkCache maps a *Links to its index, built on the first use of that
// pointer and evicted first-in first-out beyond linkCacheSize entries. The
// Links must not be modified after their first use by a routing layer.
type linkCache struct {
	mu    sync.Mutex
	m     map[*Links]*linkIndex
	order []*Links // insertion order, for eviction
	last  *linkIndex
}

func (c *linkCache) get(l *Links) *linkIndex {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil && c.last.links == l && c.last.gen == l.gen {
		return c.last
	}
	if x, ok := c.m[l]; ok {
		if x.gen != l.gen { // rebuilt in place (Links.Changed): reuse the memory
			if err := x.build(l); err != nil {
				panic(fmt.Sprintf("capsule: routing: %v", err))
			}
			x.self = identityInto(x.self, l.Children)
		}
		c.last = x
		return x
	}
	x, err := newLinkIndex(l)
	if err != nil {
		panic(fmt.Sprintf("capsule: routing: %v", err))
	}
	x.self = identityIndex(l.Children)
	if c.m == nil {
		c.m = make(map[*Links]*linkIndex)
	}
	if len(c.order) >= linkCacheSize {
		delete(c.m, c.order[0])
		c.order = append(c.order[:0], c.order[1:]...)
	}
	c.m[l] = x
	c.order = append(c.order, l)
	c.last = x
	return x
}

// The per-link ops of the capsule routing layer (DESIGN §5), one a file
// (routing_cos.go, routing_inner.go, routing_sum.go, routing_agree.go,
// routing_align.go, routing_gate.go), share the helpers below. Each works
// on the links of a Links (CSR by parent): per-child quantities are rows of a
// C×… matrix (C = Links.Children), per-parent ones rows of a P×… matrix,
// per-link ones rows of an E×… matrix in the Links' storage order. Forward
// passes and parent-side gradients run in parallel over parents; child-side
// gradients run in parallel over children through the child-major grouping
// of linkIndex, so no two goroutines write the same row.

// linkCost estimates the work per parent (or child) for tensor.ParallelFor.
func linkCost(ix *linkIndex, perLink int) int {
	P := max(ix.links.Parents, 1)
	return (ix.links.NumLinks()/P + 1) * perLink
}

func checkRows[T autodiff.Float](op, name string, v *autodiff.Var[T], rows, cols int) {
	if v.Value.Rows != rows || v.Value.Cols != cols {
		panic(fmt.Sprintf("capsule: %s: %s is %d×%d, want %d×%d", op, name, v.Value.Rows, v.Value.Cols, rows, cols))
	}
}
