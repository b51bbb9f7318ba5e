package experiment

import (
	"strings"
	"testing"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/report"
)

// A runtime column is shown only when every run of it was measured at one
// commit on one recorded CPU; a column that mixes them, or whose log
// records no CPU, loses our rows' runtimes, with a note that says why and
// points to docs/performance.md; a kept column's note names its origin.
func TestRuntimeOrigins(t *testing.T) {
	if o := machineCPU(); o == "" || strings.Contains(o, unrecordedCPU) {
		t.Errorf("machineCPU %q", o)
	}
	at := func(c cellResult, origins ...string) cellResult {
		c.origins = map[string]bool{}
		for _, o := range origins {
			c.origins[o] = true
		}
		c.sum.SecondsPerRun = 1.5
		return c
	}
	one, other := runOrigin("aaaa", "Xeon, AVX-512"), runOrigin("bbbb", "EPYC, AVX-512")
	old := runOrigin("cccc", "")
	tab := Table{Name: "x", Title: "X", Variants: []Variant{{Label: "A"}, {Label: "B"}}}
	dss := []benchDataset{{"p", &data.Dataset{Name: "P"}}, {"q", &data.Dataset{Name: "Q"}}, {"r", &data.Dataset{Name: "R"}}}
	res := [][]cellResult{
		{at(cell(0, .8, .9), one), at(cell(0, .8, .9), one), at(cell(0, .8, .9), old)},
		{at(cell(0, .7, .9), one), at(cell(0, .7, .9), one, other), {skipped: true}},
	}
	out := renderBench(tab, dss, res, "proto", nil)
	// Columns: Model, then Param, Runtime, ACC per dataset.
	for vi, row := range out.Rows {
		for di, want := range []bool{true, false, false} {
			got := row[1+3*di+1] != report.Missing
			if res[vi][di].skipped {
				continue
			}
			if got != want {
				t.Errorf("row %d, %s: runtime %q shown %v, want %v", vi, dss[di].ds.Name, row[1+3*di+1], got, want)
			}
		}
	}
	notes := strings.Join(out.Notes, "\n")
	for _, want := range []string{
		"Runtime (s) of P: every run of the column measured at aaaa on Xeon, AVX-512",
		"Runtime (s) is left out of Q, R: the column's runs were measured at aaaa on Xeon, AVX-512; bbbb on EPYC, AVX-512; cccc on unrecorded CPU",
		"docs/performance.md",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}
