package main

import (
	"slices"
	"testing"
)

// inOrder emits in index order whatever the order of arrival, and flush
// emits what waits behind a missing index.
func TestInOrder(t *testing.T) {
	for _, tc := range []struct {
		arrive []int
		before []int // emitted before flush
		after  []int // emitted in all
	}{
		{[]int{0, 1, 2}, []int{0, 1, 2}, []int{0, 1, 2}},
		{[]int{2, 0, 1}, []int{0, 1, 2}, []int{0, 1, 2}},
		{[]int{1, 3, 0}, []int{0, 1}, []int{0, 1, 3}},
		{[]int{4, 2}, nil, []int{2, 4}},
	} {
		var got []int
		o := inOrder[int]{emit: func(v int) { got = append(got, v) }}
		for _, i := range tc.arrive {
			o.add(i, i)
		}
		if !slices.Equal(got, tc.before) {
			t.Errorf("arrivals %v: emitted %v before flush, want %v", tc.arrive, got, tc.before)
		}
		o.flush()
		o.flush() // nothing left
		if !slices.Equal(got, tc.after) {
			t.Errorf("arrivals %v: emitted %v, want %v", tc.arrive, got, tc.after)
		}
	}
}
