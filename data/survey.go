package data

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// SurveyEntry is one dataset of a Survey: its statistics and load time, or
// why it was not loaded.
type SurveyEntry struct {
	Name    string
	Stats   Stats   // when Err is nil and not Skipped
	Seconds float64 // the load time
	Err     error   // the load failed
	// Skipped: the dataset needs files, no data directory was given and the
	// dataset was not named: not shown, and not an error.
	Skipped bool
}

// Survey loads the named datasets (every known one when names is empty)
// with opt, one at a time, and returns each one's statistics and load time
// or its error, in order. Without a data directory (opt.Root empty) the
// known datasets that need files are skipped unless names asks for them.
func Survey(names []string, opt Options) []SurveyEntry {
	explicit := len(names) > 0
	if !explicit {
		names = KnownNames()
	}
	out := make([]SurveyEntry, 0, len(names))
	for _, name := range names {
		e := SurveyEntry{Name: strings.TrimSpace(name)}
		start := time.Now()
		ds, err := Load(e.Name, opt)
		e.Seconds = time.Since(start).Seconds()
		switch {
		case err == nil:
			e.Stats = ds.Stats()
		case !explicit && opt.Root == "" && errors.Is(err, ErrNeedsData):
			e.Skipped = true
		default:
			e.Err = err
		}
		out = append(out, e)
	}
	return out
}

// FormatCounts writes class counts as "name:count" pairs in name order,
// separated by spaces.
func FormatCounts(counts map[string]int) string {
	parts := make([]string, 0, len(counts))
	for k, v := range counts {
		parts = append(parts, fmt.Sprintf("%s:%d", k, v))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}
