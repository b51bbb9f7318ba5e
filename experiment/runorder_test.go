package experiment

import (
	"slices"
	"testing"

	"github.com/prcaps/prcaps/train"
)

// InRunOrder emits in run order whatever the order of arrival, and flush
// emits what waits behind a run that never finished.
func TestInRunOrder(t *testing.T) {
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
		onRun, flush := InRunOrder(func(run int, r train.Result) {
			if int(r.Seed) != run {
				t.Errorf("run %d emitted with the result of seed %d", run, r.Seed)
			}
			got = append(got, run)
		})
		for _, i := range tc.arrive {
			onRun(i, train.Result{Seed: uint64(i)})
		}
		if !slices.Equal(got, tc.before) {
			t.Errorf("arrivals %v: emitted %v before flush, want %v", tc.arrive, got, tc.before)
		}
		flush()
		flush() // nothing left
		if !slices.Equal(got, tc.after) {
			t.Errorf("arrivals %v: emitted %v, want %v", tc.arrive, got, tc.after)
		}
	}
}
