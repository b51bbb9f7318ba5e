package optim

import (
	"math"
	"testing"
)

func TestSchedules(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Schedule
		want map[int]float64
	}{
		{"constant", Constant(0.005), map[int]float64{0: 0.005, 199: 0.005}},
		{"step", StepDecay(1, 10, 0.5), map[int]float64{0: 1, 9: 1, 10: 0.5, 25: 0.25}},
		{"cosine", Cosine(1, 0.1, 10), map[int]float64{0: 1, 5: 0.55, 10: 0.1, 50: 0.1}},
		{"warmup", Warmup(Constant(1), 4), map[int]float64{0: 0.2, 1: 0.4, 3: 0.8, 4: 1, 9: 1}},
		{"no-warmup", Warmup(Constant(2), 0), map[int]float64{0: 2}},
	} {
		for epoch, want := range tc.want {
			if got := tc.s(epoch); math.Abs(got-want) > 1e-12 {
				t.Errorf("%s(%d) = %v, want %v", tc.name, epoch, got, want)
			}
		}
	}
}
