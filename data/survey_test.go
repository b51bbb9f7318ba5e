package data

import (
	"errors"
	"testing"
)

// Without a data directory a survey of every dataset loads the embedded
// ones and skips the rest; a named dataset that needs files is an error,
// and so is an unknown one.
func TestSurvey(t *testing.T) {
	all := Survey(nil, Options{})
	if len(all) != len(KnownNames()) {
		t.Fatalf("%d entries for %d known datasets", len(all), len(KnownNames()))
	}
	loaded := map[string]Stats{}
	for _, e := range all {
		switch {
		case e.Err != nil:
			t.Errorf("%s: %v (should be loaded or skipped)", e.Name, e.Err)
		case !e.Skipped:
			loaded[e.Stats.Dataset] = e.Stats
		}
	}
	if loaded["Cora"].Nodes != 2708 || loaded["MUTAG"].Graphs != 188 {
		t.Errorf("embedded datasets: %+v", loaded)
	}
	named := Survey([]string{"citeseer", " nosuchset "}, Options{})
	if !errors.Is(named[0].Err, ErrNeedsData) || named[0].Skipped {
		t.Errorf("citeseer named without data: %+v", named[0])
	}
	if named[1].Err == nil || named[1].Name != "nosuchset" {
		t.Errorf("unknown dataset: %+v", named[1])
	}
	if got := FormatCounts(map[string]int{"b": 2, "a": 1}); got != "a:1 b:2" {
		t.Errorf("FormatCounts = %q", got)
	}
}
