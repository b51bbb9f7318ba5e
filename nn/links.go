package nn

import "fmt"

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
}

// NumLinks is the number of child→parent links.
func (l *Links) NumLinks() int { return len(l.Child) }

// Validate checks the structure of l.
func (l *Links) Validate() error {
	if len(l.Ptr) != l.Parents+1 || l.Ptr[0] != 0 || int(l.Ptr[l.Parents]) != len(l.Child) {
		return fmt.Errorf("nn: links have %d parents but ptr of length %d ending at %d for %d children entries",
			l.Parents, len(l.Ptr), l.Ptr[len(l.Ptr)-1], len(l.Child))
	}
	for j := 0; j < l.Parents; j++ {
		if l.Ptr[j+1] < l.Ptr[j] {
			return fmt.Errorf("nn: links ptr decreases at parent %d", j)
		}
	}
	for e, c := range l.Child {
		if c < 0 || int(c) >= l.Children {
			return fmt.Errorf("nn: link %d has child %d outside [0, %d)", e, c, l.Children)
		}
	}
	return nil
}

// NodeLinks are the links of node-level routing on a graph of n nodes whose
// in-neighbours of v are src[ptr[v]:ptr[v+1]] (CSR by target, sorted): each
// node is a parent capsule whose children are its in-neighbours and itself
// (the self-loop is added where missing, keeping each row sorted).
func NodeLinks(n int, ptr, src []int32) *Links {
	l := &Links{Parents: n, Children: n, Ptr: make([]int32, n+1), Child: make([]int32, 0, len(src)+n)}
	for v := 0; v < n; v++ {
		self := false
		for _, u := range src[ptr[v]:ptr[v+1]] {
			if !self && u >= int32(v) {
				if u != int32(v) {
					l.Child = append(l.Child, int32(v))
				}
				self = true
			}
			l.Child = append(l.Child, u)
		}
		if !self {
			l.Child = append(l.Child, int32(v))
		}
		l.Ptr[v+1] = int32(len(l.Child))
	}
	return l
}
