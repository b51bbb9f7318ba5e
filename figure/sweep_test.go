package figure

import (
	"bytes"
	"testing"

	"github.com/prcaps/prcaps/record"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func rec(variant, dataset string, mean float64) record.BenchRecord {
	return record.BenchRecord{Table: "x", Variant: variant, Summary: record.Summary{Dataset: dataset, Runs: 10, MeanAcc: mean, StdAcc: 0.01}}
}

// Numeric sweeps, the (s, t) grid and categories each draw; a grid with a
// hole is an error; the figures render.
func TestSweepPlot(t *testing.T) {
	var grid, holed []record.BenchRecord
	for _, s := range []string{"3", "5"} {
		for _, u := range []string{"3", "5"} {
			grid = append(grid, rec("s="+s+",t="+u, "Cora", 0.8))
		}
	}
	holed = grid[:3]
	for name, tc := range map[string]struct {
		recs []record.BenchRecord
		ok   bool
	}{
		"numeric":  {[]record.BenchRecord{rec("T=1", "Cora", 0.8), rec("T=2", "Cora", 0.85), rec("T=1", "CiteSeer", 0.7)}, true},
		"grid":     {grid, true},
		"holed":    {holed, false},
		"category": {[]record.BenchRecord{rec("full", "Cora", 0.87), rec("no C", "Cora", 0.86)}, true},
		"empty":    {nil, false},
	} {
		p, err := SweepPlot(name, tc.recs)
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v", name, err)
			continue
		}
		if err == nil {
			var b bytes.Buffer
			if err := Write(&b, "png", [][]*plot.Plot{{p}}, 8*vg.Centimeter, 6*vg.Centimeter); err != nil || b.Len() == 0 {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}
