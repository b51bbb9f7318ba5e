package nn

import (
	"slices"
	"testing"
)

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
}
