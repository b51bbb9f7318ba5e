package figure

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Band is one curve over epochs across runs: the mean and population
// standard deviation of a quantity at each epoch, over the runs that
// reached that epoch (early stopping ends runs at different epochs).
type Band struct {
	Label     string
	Epochs    []int
	Mean, Std []float64
	Runs      []int // how many runs reached each epoch
}

// bands gathers the quantities value(r) of recs into one Band per key,
// keys in first-seen order.
func bands(recs []record.EpochRecord, keys []string, value func(record.EpochRecord, int) (float64, bool)) []Band {
	out := make([]Band, len(keys))
	for k, key := range keys {
		sums := map[int][]float64{}
		for _, r := range recs {
			if v, ok := value(r, k); ok {
				sums[r.Epoch] = append(sums[r.Epoch], v)
			}
		}
		b := Band{Label: key}
		for e := range sums {
			b.Epochs = append(b.Epochs, e)
		}
		slices.Sort(b.Epochs)
		for _, e := range b.Epochs {
			m, s := stats.MeanStd(sums[e])
			b.Mean, b.Std, b.Runs = append(b.Mean, m), append(b.Std, s), append(b.Runs, len(sums[e]))
		}
		out[k] = b
	}
	return out
}

// TrainingBands returns the loss, training accuracy and validation
// accuracy of recs as bands over the runs.
func TrainingBands(recs []record.EpochRecord) (loss Band, acc []Band) {
	loss = bands(recs, []string{"training loss"}, func(r record.EpochRecord, _ int) (float64, bool) { return r.Loss, true })[0]
	acc = bands(recs, []string{"train accuracy (training pass)", "validation accuracy"}, func(r record.EpochRecord, k int) (float64, bool) {
		if k == 0 {
			return r.TrainAcc, true
		}
		return r.ValAcc, true
	})
	return loss, acc
}

// CurvatureBands returns one band per learned curvature of recs (β, then
// each β_k, by name), empty for a model without curvatures.
func CurvatureBands(recs []record.EpochRecord) []Band {
	var names []string
	for _, r := range recs {
		for _, c := range r.Curvatures {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
	}
	bs := bands(recs, names, func(r record.EpochRecord, k int) (float64, bool) {
		for _, c := range r.Curvatures {
			if c.Name == names[k] {
				return c.Beta, true
			}
		}
		return 0, false
	})
	for i := range bs {
		bs[i].Label = curvatureLabel(bs[i].Label)
	}
	return bs
}

// curvatureLabel names a curvature parameter for a legend: "beta" is the
// network's β, "routingL.rhoK" perspective K+1's β_k of routing layer L+1.
func curvatureLabel(name string) string {
	if name == "beta" {
		return "β (network)"
	}
	var l, k int
	if n, _ := fmt.Sscanf(name, "routing%d.rho%d", &l, &k); n == 2 {
		return fmt.Sprintf("β_%d (routing layer %d)", k+1, l+1)
	}
	return name
}

// SelectedEpochs returns each run's selected epoch: the last epoch that
// was the best so far on validation (the protocol's selection), in run
// order.
func SelectedEpochs(recs []record.EpochRecord) []int {
	sel := map[int]int{}
	for _, r := range recs {
		if r.Best && r.Epoch > sel[r.Run] {
			sel[r.Run] = r.Epoch
		}
	}
	runs := make([]int, 0, len(sel))
	for r := range sel {
		runs = append(runs, r)
	}
	slices.Sort(runs)
	out := make([]int, len(runs))
	for i, r := range runs {
		out[i] = sel[r]
	}
	return out
}

// colour is the colour of the i-th curve (Okabe-Ito, readable in colour
// blindness).
func colour(i int) color.Color {
	cs := []color.RGBA{{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
		{230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255}}
	return cs[i%len(cs)]
}

// addBands draws each band as its mean line over a shaded ± one std.
func addBands(p *plot.Plot, bs []Band) error {
	for i, b := range bs {
		if len(b.Epochs) == 0 {
			continue
		}
		c := colour(i)
		poly := make(plotter.XYs, 0, 2*len(b.Epochs))
		for j, e := range b.Epochs {
			poly = append(poly, plotter.XY{X: float64(e), Y: b.Mean[j] + b.Std[j]})
		}
		for j := len(b.Epochs) - 1; j >= 0; j-- {
			poly = append(poly, plotter.XY{X: float64(b.Epochs[j]), Y: b.Mean[j] - b.Std[j]})
		}
		shade, err := plotter.NewPolygon(poly)
		if err != nil {
			return err
		}
		r, g, bl, _ := c.RGBA()
		shade.Color = color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 60} // not premultiplied
		shade.LineStyle.Width = 0
		line := make(plotter.XYs, len(b.Epochs))
		for j, e := range b.Epochs {
			line[j] = plotter.XY{X: float64(e), Y: b.Mean[j]}
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return err
		}
		l.Color, l.Width = c, vg.Points(1.5)
		p.Add(shade, l)
		p.Legend.Add(b.Label, l)
	}
	return nil
}

// markEpochs draws a dashed vertical line at the mean selected epoch.
func markEpochs(p *plot.Plot, selected []int, lo, hi float64) error {
	if len(selected) == 0 {
		return nil
	}
	m := 0.0
	for _, e := range selected {
		m += float64(e)
	}
	m /= float64(len(selected))
	l, err := plotter.NewLine(plotter.XYs{{X: m, Y: lo}, {X: m, Y: hi}})
	if err != nil {
		return err
	}
	l.Color, l.Dashes = color.Gray{Y: 90}, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(fmt.Sprintf("selected epoch (mean %.0f)", m), l)
	return nil
}

// TrainingPlots draws the training curves of recs: the loss, and the
// training and validation accuracies, each as mean ± std over the runs,
// with the mean selected epoch marked.
func TrainingPlots(recs []record.EpochRecord, title string) (lossPlot, accPlot *plot.Plot, err error) {
	loss, acc := TrainingBands(recs)
	if err := drawable(append([]Band{loss}, acc...)); err != nil {
		return nil, nil, err
	}
	sel := SelectedEpochs(recs)
	lossPlot, accPlot = plot.New(), plot.New()
	lossPlot.Title.Text, accPlot.Title.Text = title+": training loss", title+": accuracy"
	lossPlot.X.Label.Text, accPlot.X.Label.Text = "epoch", "epoch"
	lossPlot.Y.Label.Text, accPlot.Y.Label.Text = "loss", "accuracy"
	if err := addBands(lossPlot, []Band{loss}); err != nil {
		return nil, nil, err
	}
	if err := addBands(accPlot, acc); err != nil {
		return nil, nil, err
	}
	lo, hi := bandRange([]Band{loss})
	if err := markEpochs(lossPlot, sel, lo, hi); err != nil {
		return nil, nil, err
	}
	lo, hi = bandRange(acc)
	if err := markEpochs(accPlot, sel, lo, hi); err != nil {
		return nil, nil, err
	}
	accPlot.Legend.Top, accPlot.Legend.Left = false, false
	lossPlot.Legend.Top = true
	return lossPlot, accPlot, nil
}

// CurvaturePlot draws the learned curvatures of recs per epoch, or nil
// when recs hold none.
func CurvaturePlot(recs []record.EpochRecord, title string) (*plot.Plot, error) {
	bs := CurvatureBands(recs)
	if len(bs) == 0 {
		return nil, nil
	}
	if err := drawable(bs); err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = title + ": learned curvatures"
	p.X.Label.Text, p.Y.Label.Text = "epoch", "curvature β"
	if err := addBands(p, bs); err != nil {
		return nil, err
	}
	// Room below the curves for the legend, one line per curvature.
	lo, hi := bandRange(bs)
	span := max(hi-lo, 0.1)
	p.Y.Min, p.Y.Max = lo-span*(0.12*float64(len(bs))+0.05), hi+0.05*span
	p.Legend.Top, p.Legend.Left = false, false
	return p, nil
}

// maxDrawable bounds the values a figure draws. The plot library's axis
// ticks step through the axis range, which never ends for a range that
// overflows (a loss of 1e308 then -1e308 spans +Inf: plot hung), and the
// margins added around a range multiply it. Every value the training loop
// records is a float32 (at most 3.4e38), so only a file not written by it
// reaches this bound.
const maxDrawable = 1e100

// drawable checks that every band's mean ± std is finite and within
// ±maxDrawable.
func drawable(bs []Band) error {
	for _, b := range bs {
		for j, e := range b.Epochs {
			for _, v := range []float64{b.Mean[j], b.Mean[j] - b.Std[j], b.Mean[j] + b.Std[j]} {
				if !(math.Abs(v) <= maxDrawable) {
					return fmt.Errorf("%s at epoch %d: %g (mean %g ± %g over the runs) cannot be drawn (values must lie within ±%g)",
						b.Label, e, v, b.Mean[j], b.Std[j], maxDrawable)
				}
			}
		}
	}
	return nil
}

// bandRange is the smallest and largest value of the bands' mean ± std.
func bandRange(bs []Band) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, b := range bs {
		for j := range b.Mean {
			lo, hi = min(lo, b.Mean[j]-b.Std[j]), max(hi, b.Mean[j]+b.Std[j])
		}
	}
	return lo, hi
}
