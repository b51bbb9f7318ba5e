package nn

import (
	"fmt"
	"sync"
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
	// inv[e] is the position of link e in childLink (childLink[inv[e]] = e).
	inv []int32
	// self is the identity linking of the children (parent i has the single
	// child i), for per-child terms of the first routing iteration.
	self *linkIndex
	// gen is links.gen when the index was built (see Links.Changed).
	gen  uint64
	fill []int32 // scratch of the build
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
	l.Ptr = growI32(l.Ptr, n+1)
	l.Child = growI32(l.Child, n)
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
	x.parent = growI32(x.parent, E)
	x.childPtr = growI32(x.childPtr, l.Children+1)
	clear(x.childPtr)
	x.childLink = growI32(x.childLink, E)
	x.inv = growI32(x.inv, E)
	for j := 0; j < l.Parents; j++ {
		for e := l.Ptr[j]; e < l.Ptr[j+1]; e++ {
			x.parent[e] = int32(j)
		}
	}
	for _, c := range l.Child {
		x.childPtr[c+1]++
	}
	for i := 0; i < l.Children; i++ {
		x.childPtr[i+1] += x.childPtr[i]
	}
	x.fill = growI32(x.fill, l.Children)
	fill := x.fill
	copy(fill, x.childPtr[:l.Children])
	for e, c := range l.Child {
		p := fill[c]
		fill[c]++
		x.childLink[p] = int32(e)
		x.inv[e] = p
	}
	return nil
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
				panic(fmt.Sprintf("nn: routing: %v", err))
			}
			x.self = identityInto(x.self, l.Children)
		}
		c.last = x
		return x
	}
	x, err := newLinkIndex(l)
	if err != nil {
		panic(fmt.Sprintf("nn: routing: %v", err))
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
