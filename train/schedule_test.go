package train

import (
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
		if _, err := (Config{LR: 0.01, Epochs: 10, LRSchedule: name}).schedule(); err != nil {
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
