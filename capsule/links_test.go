package capsule

import (
	"slices"
	"testing"
)

// path4 is the undirected path 0-1-2-3 plus an isolated node 4 and a
// self-loop on 3, as CSR by target (in-neighbours 0:{1} 1:{0,2} 2:{1,3}
// 3:{2,3} 4:{}).
func path4() (n int, ptr, src []int32) {
	return 5, []int32{0, 1, 3, 5, 7, 7}, []int32{1, 0, 2, 1, 3, 2, 3}
}

func TestNodeLinksAddsSelfLoops(t *testing.T) {
	n, ptr, src := path4() // 3 already has a self-loop, 4 is isolated
	l := NodeLinks(n, ptr, src)
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	want := [][]int32{{0, 1}, {0, 1, 2}, {1, 2, 3}, {2, 3}, {4}}
	for j, w := range want {
		if got := l.Child[l.Ptr[j]:l.Ptr[j+1]]; !slices.Equal(got, w) {
			t.Errorf("parent %d children %v, want %v", j, got, w)
		}
	}
	if l.NumLinks() != 11 {
		t.Errorf("%d links, want 11", l.NumLinks())
	}
	bad := &Links{Parents: 1, Children: 1, Ptr: []int32{0, 1}, Child: []int32{1}}
	if bad.Validate() == nil {
		t.Error("child out of range: no error")
	}
	for _, copies := range []int{-1, 2} {
		odd := &Links{Parents: 1, Children: 3, Ptr: []int32{0, 1}, Child: []int32{0}, Copies: copies}
		if odd.Validate() == nil {
			t.Errorf("3 children as %d copies: no error", copies)
		}
	}
	if ok := (&Links{Parents: 1, Children: 4, Ptr: []int32{0, 1}, Child: []int32{3}, Copies: 2}); ok.Validate() != nil {
		t.Errorf("4 children as 2 copies: %v", ok.Validate())
	}
}

// TestPairLayout checks the (link, perspective) layout against its
// definition (pairIndex) on links where children have no link, one link
// (the fast path of graph-level routing) and several, for K = 1, 3 and 4.
func TestPairLayout(t *testing.T) {
	// Parent j's children; child 5 has no link, children 0 and 4 one.
	kids := [][]int32{{1, 2, 3}, {2, 0}, {3, 1, 2, 6}, {4}, {6, 1}}
	l := &Links{Parents: len(kids), Children: 7, Ptr: []int32{0}}
	for _, c := range kids {
		l.Child = append(l.Child, c...)
		l.Ptr = append(l.Ptr, int32(len(l.Child)))
	}
	for _, K := range []int{1, 3, 4} {
		x, err := newLinkIndex(l)
		if err != nil {
			t.Fatal(err)
		}
		pi := x.pairsFor(K, false)
		for j := 0; j < l.Parents; j++ {
			if pi.ptr[j] != l.Ptr[j]*int32(K) {
				t.Errorf("K = %d: ptr[%d] = %d, want %d", K, j, pi.ptr[j], l.Ptr[j]*int32(K))
			}
		}
		for e, c := range l.Child {
			for k := 0; k < K; k++ {
				if got, want := pi.child[e*K+k], c*int32(K)+int32(k); got != want {
					t.Errorf("K = %d: child[%d] = %d, want %d", K, e*K+k, got, want)
				}
			}
		}
		// Child i's group lists its links in increasing order, as their
		// parents (the sources) and their ids (through which the child-side
		// sums read the links' weights).
		for i := 0; i < l.Children; i++ {
			lo := int(x.childPtr[i])
			var es []int32
			for e, c := range l.Child {
				if c == int32(i) {
					es = append(es, int32(e))
				}
			}
			if n := int(x.childPtr[i+1]) - lo; n != len(es) {
				t.Fatalf("K = %d: child %d has %d links in the grouping, want %d", K, i, n, len(es))
			}
			for tt, e := range es {
				if got, want := x.childParent[lo+tt], x.parent[e]; got != want {
					t.Errorf("K = %d, child %d: source %d is parent %d, want %d", K, i, tt, got, want)
				}
				if got := x.childLink[lo+tt]; got != e {
					t.Errorf("K = %d, child %d: term %d is link %d, want %d", K, i, tt, got, e)
				}
			}
		}
		if err := pi.groups.Set(x.childPtr[:l.Children+1], x.childParent[:len(l.Child)], K); err != nil {
			t.Errorf("K = %d: %v", K, err)
		}
		// With kernels that read the links, no pair index; back without
		// them, the index again.
		if K > 1 {
			if d := x.pairsFor(K, true); !d.direct || d.ptr != nil || d.child != nil {
				t.Errorf("K = %d: the direct layout has a pair index (%d, %d entries)", K, len(d.ptr), len(d.child))
			}
			if again := x.pairsFor(K, false); again.direct || len(again.child) != len(l.Child)*K {
				t.Errorf("K = %d: the layout after a direct one has %d pair entries, want %d", K, len(again.child), len(l.Child)*K)
			}
		}
	}
}

// The capsule grouping's inverse maps every link to its position, with and
// without copies, and is built on first use.
func TestCapsuleGroupingInverse(t *testing.T) {
	for _, l := range []*Links{
		{Parents: 3, Children: 4, Ptr: []int32{0, 2, 3, 5}, Child: []int32{1, 3, 0, 3, 2}},
		{Parents: 2, Children: 4, Ptr: []int32{0, 2, 4}, Child: []int32{0, 3, 1, 2}, Copies: 2},
	} {
		x, err := newLinkIndex(l)
		if err != nil {
			t.Fatal(err)
		}
		if x.invSet {
			t.Error("the inverse was built before its first use")
		}
		ptr, link, inv := x.capsules()
		if len(inv) != len(l.Child) || int(ptr[len(ptr)-1]) != len(l.Child) {
			t.Fatalf("copies %d: %d inverse entries, %d grouped links, want %d", l.Copies, len(inv), ptr[len(ptr)-1], len(l.Child))
		}
		for e := range l.Child {
			if link[inv[e]] != int32(e) {
				t.Errorf("copies %d: link %d sits at %d, which holds %d", l.Copies, e, inv[e], link[inv[e]])
			}
		}
	}
}

// On symmetric links the child grouping's parents are the links' own Child
// array; on others the index keeps its own, and each is right.
func TestChildParentsOfSymmetricLinks(t *testing.T) {
	// A path 0-1-2 with self-loops (symmetric), and a directed triangle.
	sym := NodeLinks(3, []int32{0, 1, 3, 4}, []int32{1, 0, 2, 1})
	dir := &Links{Parents: 3, Children: 3, Ptr: []int32{0, 1, 2, 3}, Child: []int32{1, 2, 0}}
	for name, tc := range map[string]struct {
		l      *Links
		shared bool
	}{"symmetric": {sym, true}, "directed": {dir, false}} {
		x, err := newLinkIndex(tc.l)
		if err != nil {
			t.Fatal(err)
		}
		if shared := &x.childParent[0] == &tc.l.Child[0]; shared != tc.shared {
			t.Errorf("%s: child grouping's parents shared with the links: %v, want %v", name, shared, tc.shared)
		}
		for q, e := range x.childLink {
			if x.childParent[q] != x.parent[e] {
				t.Errorf("%s: grouped link %d (link %d) has parent %d, want %d", name, q, e, x.childParent[q], x.parent[e])
			}
		}
	}
}
