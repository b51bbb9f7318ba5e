package train

import (
	"math"
	"strings"
	"testing"
)

// CheckSchedule accepts the empty name and every listed schedule, and names
// them all when it refuses one; a Config with an unknown schedule fails.
func TestCheckSchedule(t *testing.T) {
	for _, name := range append(Schedules(), "") {
		if err := CheckSchedule(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
		if _, err := (Config{LR: 0.01, Epochs: 10, LRSchedule: name, StepEvery: 50}).schedule(); err != nil {
			t.Errorf("schedule %q: %v", name, err)
		}
	}
	err := CheckSchedule("linear")
	if err == nil || !strings.Contains(err.Error(), `"linear"`) || !strings.Contains(err.Error(), strings.Join(Schedules(), ", ")) {
		t.Errorf("linear: %v", err)
	}
	if _, err := (Config{LR: 0.01, Epochs: 10, LRSchedule: "linear"}).schedule(); err == nil {
		t.Error("schedule linear accepted")
	}
}

// The step schedule halves every StepEvery epochs, which it needs (a zero
// period is an error, not a default); the exponential one multiplies by
// 0.95 every epoch.
func TestScheduleValues(t *testing.T) {
	for _, tc := range []struct {
		cfg   Config
		epoch int
		want  float64
	}{
		{Config{LR: 0.01, LRSchedule: ScheduleStep, StepEvery: 50}, 49, 0.01},
		{Config{LR: 0.01, LRSchedule: ScheduleStep, StepEvery: 50}, 50, 0.005},
		{Config{LR: 0.01, LRSchedule: ScheduleStep, StepEvery: 100}, 99, 0.01},
		{Config{LR: 0.01, LRSchedule: ScheduleStep, StepEvery: 100}, 250, 0.0025},
		{Config{LR: 0.001, LRSchedule: ScheduleExponential}, 2, 0.001 * 0.95 * 0.95},
	} {
		tc.cfg.Epochs = 300
		s, err := tc.cfg.schedule()
		if err != nil {
			t.Fatal(err)
		}
		if got := s(tc.epoch); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%+v at epoch %d: %v, want %v", tc.cfg, tc.epoch, got, tc.want)
		}
	}
	if (Config{Epochs: 1, LR: 1, StepEvery: -1}).Validate() == nil {
		t.Error("lr-step-every −1 accepted")
	}
	zero := Config{Epochs: 1, LR: 1, LRSchedule: ScheduleStep}
	if zero.Validate() == nil {
		t.Error("the step schedule without a period accepted")
	}
	if _, err := zero.schedule(); err == nil {
		t.Error("schedule: the step schedule without a period accepted")
	}
}

func TestProtocolChecks(t *testing.T) {
	for s, ok := range map[string]bool{"random": true, "public": true, "": false, "Random": false, "weird": false} {
		if err := CheckSplit(s); (err == nil) != ok {
			t.Errorf("CheckSplit(%q) = %v", s, err)
		}
	}
	for _, c := range []struct {
		folds, only int
		ok          bool
	}{{10, 0, true}, {10, 10, true}, {10, 11, false}, {10, -1, false}, {0, 10, true}, {0, 11, false}, {5, 5, true}} {
		if err := (GraphProtocol{Folds: c.folds, OnlyFolds: c.only}).CheckOnlyFolds(); (err == nil) != c.ok {
			t.Errorf("folds %d, only %d: %v", c.folds, c.only, err)
		}
	}
}
