package record

import (
	"math"
	"testing"
)

func TestSummarise(t *testing.T) {
	s := Summary{Results: []Result{{TestAcc: 0.8, ValAcc: 0.7, Seconds: 1}, {TestAcc: 0.9, ValAcc: 0.9, Seconds: 3}}}
	s.Summarise()
	if s.Runs != 2 || math.Abs(s.MeanAcc-0.85) > 1e-15 || math.Abs(s.StdAcc-0.05) > 1e-15 ||
		math.Abs(s.MeanValAcc-0.8) > 1e-15 || s.TrainSeconds != 4 || s.SecondsPerRun != 2 {
		t.Errorf("Summarise: %+v", s)
	}
	empty := Summary{SecondsPerRun: 5, TrainSeconds: 5}
	empty.Summarise()
	if empty.Runs != 0 || !math.IsNaN(empty.MeanAcc) || empty.TrainSeconds != 0 {
		t.Errorf("Summarise of no runs: %+v, want NaN means and no seconds", empty)
	}
}
