package capsule

import (
	"fmt"

	"github.com/prcaps/prcaps/nn"
	"github.com/prcaps/prcaps/tensor"
)

// Links are the child→parent connections of a capsule routing layer, stored
// parent-major (CSR by parent): the children of parent j are
// Child[Ptr[j]:Ptr[j+1]], indices into the rows of the child capsules.
// Routing normalises coupling coefficients over each parent's children
// (DESIGN §5 step 3), so this layout lets every per-parent reduction run in
// parallel over parents without atomics.
type Links struct {
	Parents  int
	Children int
	Ptr      []int32 // len Parents+1
	Child    []int32 // len Ptr[Parents], each in [0, Children)
	// Copies, when above 1, says that the children are Copies copies of
	// Children/Copies capsules, child c·n + i being copy c of capsule i
	// (graph-level routing's one virtual child per class, ClassLinksInto).
	// CouplingOverParents then normalises over all the parents of a
	// capsule, across its copies. 0 and 1 mean no copies.
	Copies int

	gen uint64 // bumped by Changed: routing layers rebuild their cached index
}

// Changed tells the routing layers that l was rebuilt in place (a reused
// mini-batch buffer, see NodeLinksInto and ClassLinksInto): their cached
// index of l is rebuilt, reusing its memory, on the next use. l must not be
// rebuilt while a pass that uses it is in flight (forward or backward).
func (l *Links) Changed() { l.gen++ }

// NumLinks is the number of child→parent links.
func (l *Links) NumLinks() int { return len(l.Child) }

// Validate checks the structure of l.
func (l *Links) Validate() error {
	if len(l.Ptr) != l.Parents+1 || l.Ptr[0] != 0 || int(l.Ptr[l.Parents]) != len(l.Child) {
		return fmt.Errorf("capsule: links have %d parents but ptr of length %d ending at %d for %d children entries",
			l.Parents, len(l.Ptr), l.Ptr[len(l.Ptr)-1], len(l.Child))
	}
	if l.Copies < 0 || l.Copies > 1 && l.Children%l.Copies != 0 {
		return fmt.Errorf("capsule: links have %d children, not %d copies of the same capsules", l.Children, l.Copies)
	}
	for j := 0; j < l.Parents; j++ {
		if l.Ptr[j+1] < l.Ptr[j] {
			return fmt.Errorf("capsule: links ptr decreases at parent %d", j)
		}
	}
	for e, c := range l.Child {
		if c < 0 || int(c) >= l.Children {
			return fmt.Errorf("capsule: link %d has child %d outside [0, %d)", e, c, l.Children)
		}
	}
	return nil
}

// NodeLinks are the links of node-level routing on a graph of n nodes whose
// in-neighbours of v are src[ptr[v]:ptr[v+1]] (CSR by target, sorted): each
// node is a parent capsule whose children are its in-neighbours and itself
// (the self-loop is added where missing, keeping each row sorted).
func NodeLinks(n int, ptr, src []int32) *Links {
	l := &Links{Ptr: make([]int32, 0, n+1), Child: make([]int32, 0, len(src)+n)}
	return NodeLinksInto(l, n, ptr, src)
}

// NodeLinksInto is NodeLinks building into dst, reusing its slices (no
// allocation once they are large enough); it calls dst.Changed and returns
// dst.
func NodeLinksInto(dst *Links, n int, ptr, src []int32) *Links {
	l := dst
	l.Parents, l.Children = n, n
	l.Ptr, l.Child = nn.AppendSelfLoops(l.Ptr[:0], l.Child[:0], n, ptr, src)
	l.Changed()
	return l
}

// grow returns b with length n, reallocated only when too short (contents
// undefined): the per-batch buffers of links and ops reuse their storage.
func grow[E any](b []E, n int) []E {
	if cap(b) < n {
		return tensor.Regrow(b, n)
	}
	return b[:n]
}
