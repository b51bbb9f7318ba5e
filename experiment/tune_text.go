package experiment

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// TiedText says which trials the paired tests over the seeds' validation
// accuracies cannot tell from the chosen one (TrialStats), and
// which were not compared.
func (res TuneResult) TiedText() string {
	var tied []string
	compared, untested := 0, 0
	for i, st := range res.Stats {
		switch {
		case i == res.Best:
		case !st.Paired:
			untested++
		default:
			compared++
			if st.TiedBest {
				tied = append(tied, fmt.Sprintf("%s (val %.4f, Wilcoxon p %.3g, Holm %.3g)", FlagsText(res.Trials[i].Options), res.Trials[i].ValMean, *st.PVsBest, *st.PHolm))
			}
		}
	}
	s := fmt.Sprintf("tied with the chosen on validation (two-sided Wilcoxon signed-rank over the seeds, Holm-corrected, %g%%): %d of %d compared",
		100*TiedLevel, len(tied), compared)
	if len(tied) > 0 {
		s += ": " + strings.Join(tied, "; ")
	}
	if untested > 0 {
		s += fmt.Sprintf("; %d not compared (their log records have no per-seed validation accuracies)", untested)
	}
	return s
}

// FlagsText is an assignment as the command-line flags that reproduce it.
func FlagsText(a map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		parts = append(parts, "--"+k+" "+a[k])
	}
	return strings.Join(parts, " ")
}
