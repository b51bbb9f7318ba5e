package figure

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/prcaps/prcaps/record"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	numericLabel = regexp.MustCompile(`^([A-Za-z]+)=(-?\d+(?:\.\d+)?)$`)
	gridLabel    = regexp.MustCompile(`^s=(\d+),t=(\d+)$`)
)

// SweepPlot draws the accuracy of one bench table's variants (its records
// recs, all of one table): mean ± std over the runs (error bars), one
// series per dataset. Variants named NAME=number (T=3, K=4) give a line
// over the numbers; variants named s=…,t=… (the manifold dimensions) give
// a heat map of the first dataset's means; any other names are categories
// along the x axis (gate terms removed, fixed vs learnable curvature).
func SweepPlot(title string, recs []record.BenchRecord) (*plot.Plot, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("figure: no records")
	}
	var variants, datasets []string
	for _, r := range recs {
		if !slices.Contains(variants, r.Variant) {
			variants = append(variants, r.Variant)
		}
		if !slices.Contains(datasets, r.Dataset) {
			datasets = append(datasets, r.Dataset)
		}
	}
	if all(variants, gridLabel) {
		return heatMap(title, recs, datasets[0])
	}
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "test accuracy (mean ± std)"
	numeric := all(variants, numericLabel)
	if numeric {
		p.X.Label.Text = numericLabel.FindStringSubmatch(variants[0])[1]
	} else {
		ticks := make([]plot.Tick, len(variants))
		for i, v := range variants {
			ticks[i] = plot.Tick{Value: float64(i), Label: v}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.5, float64(len(variants))-0.5
		if len(variants) > 4 { // slanted, so that long names do not collide
			p.X.Tick.Label.Rotation = math.Pi / 6
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
		}
	}
	for d, ds := range datasets {
		var pts errPoints
		for i, v := range variants {
			for _, r := range recs {
				if r.Dataset != ds || r.Variant != v || r.Runs == 0 {
					continue
				}
				x := float64(i)
				if numeric {
					x, _ = strconv.ParseFloat(numericLabel.FindStringSubmatch(v)[2], 64)
				} else if len(datasets) > 1 { // side by side within a category
					x += 0.15 * (float64(d) - float64(len(datasets)-1)/2)
				}
				pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: r.MeanAcc})
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{r.StdAcc, r.StdAcc})
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		c := colour(d)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		bars.Color = c
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(bars, sc)
		if numeric {
			l, err := plotter.NewLine(pts.XYs)
			if err != nil {
				return nil, err
			}
			l.Color = c
			p.Add(l)
		}
		p.Legend.Add(ds, sc)
	}
	p.Legend.Top = true
	return p, nil
}

// errPoints are points with symmetric y errors, for plotter.YErrorBars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

func all(labels []string, re *regexp.Regexp) bool {
	for _, l := range labels {
		if !re.MatchString(l) {
			return false
		}
	}
	return len(labels) > 0
}

// grid is the (s, t) grid of means for plotter.HeatMap.
type grid struct {
	s, t []float64
	z    map[[2]float64]float64
}

func (g grid) Dims() (c, r int)   { return len(g.s), len(g.t) }
func (g grid) X(c int) float64    { return g.s[c] }
func (g grid) Y(r int) float64    { return g.t[r] }
func (g grid) Z(c, r int) float64 { return g.z[[2]float64{g.s[c], g.t[r]}] }

// heatMap draws dataset's mean accuracy over the (s, t) grid, each cell
// labelled with its value.
func heatMap(title string, recs []record.BenchRecord, dataset string) (*plot.Plot, error) {
	g := grid{z: map[[2]float64]float64{}}
	lo, hi := math.Inf(1), math.Inf(-1)
	var labels plotter.XYLabels
	for _, r := range recs {
		m := gridLabel.FindStringSubmatch(r.Variant)
		if r.Dataset != dataset || m == nil || r.Runs == 0 {
			continue
		}
		s, _ := strconv.ParseFloat(m[1], 64)
		t, _ := strconv.ParseFloat(m[2], 64)
		if !slices.Contains(g.s, s) {
			g.s = append(g.s, s)
		}
		if !slices.Contains(g.t, t) {
			g.t = append(g.t, t)
		}
		g.z[[2]float64{s, t}] = r.MeanAcc
		lo, hi = min(lo, r.MeanAcc), max(hi, r.MeanAcc)
		labels.XYs = append(labels.XYs, plotter.XY{X: s, Y: t})
		labels.Labels = append(labels.Labels, fmt.Sprintf("%.3f", r.MeanAcc))
	}
	slices.Sort(g.s)
	slices.Sort(g.t)
	if len(g.s) < 2 || len(g.t) < 2 || len(g.z) != len(g.s)*len(g.t) {
		return nil, fmt.Errorf("figure: the (s, t) records on %s do not fill a grid of at least 2 × 2", dataset)
	}
	h := plotter.NewHeatMap(g, palette.Heat(16, 1))
	h.Min, h.Max = lo, hi
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (%s, mean test accuracy)", title, dataset)
	p.X.Label.Text, p.Y.Label.Text = "s (space-like dimensions)", "t (time-like dimensions − 1)"
	p.Add(h)
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
	}
	p.Add(l)
	return p, nil
}
