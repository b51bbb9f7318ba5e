package figure

import (
	"bytes"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prcaps/prcaps/record"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Two runs, the second stopped early: each epoch's band is over the runs
// that reached it; the selected epochs are each run's last best one.
func TestBandsAndSelection(t *testing.T) {
	recs := []record.EpochRecord{
		{Run: 0, Epoch: 1, Loss: 2, TrainAcc: 0.5, ValAcc: 0.4, Best: true, Curvatures: []record.Curvature{{Name: "beta", Beta: -1}}},
		{Run: 0, Epoch: 2, Loss: 1, TrainAcc: 0.7, ValAcc: 0.6, Best: true, Curvatures: []record.Curvature{{Name: "beta", Beta: -1.5}}},
		{Run: 0, Epoch: 3, Loss: 0.5, TrainAcc: 0.9, ValAcc: 0.5, Curvatures: []record.Curvature{{Name: "beta", Beta: -2}}},
		{Run: 1, Epoch: 1, Loss: 4, TrainAcc: 0.3, ValAcc: 0.2, Best: true, Curvatures: []record.Curvature{{Name: "beta", Beta: -3}}},
	}
	loss, acc := TrainingBands(recs)
	if len(loss.Epochs) != 3 || loss.Mean[0] != 3 || loss.Std[0] != 1 || loss.Runs[0] != 2 || loss.Runs[2] != 1 || loss.Mean[2] != 0.5 {
		t.Errorf("loss band %+v", loss)
	}
	if len(acc) != 2 || math.Abs(acc[1].Mean[0]-0.3) > 1e-15 || acc[0].Label != "train accuracy (training pass)" {
		t.Errorf("accuracy bands %+v", acc)
	}
	if sel := SelectedEpochs(recs); len(sel) != 2 || sel[0] != 2 || sel[1] != 1 {
		t.Errorf("selected epochs %v, want [2 1]", sel)
	}
	cb := CurvatureBands(recs)
	if len(cb) != 1 || cb[0].Label != "β (network)" || cb[0].Mean[0] != -2 || cb[0].Std[0] != 1 {
		t.Errorf("curvature bands %+v", cb)
	}
	if got := curvatureLabel("routing1.rho3"); got != "β_4 (routing layer 2)" {
		t.Errorf("label %q", got)
	}
}

// The figures come out as PNG and SVG; an unknown format or no panel is an
// error.
func TestWrite(t *testing.T) {
	recs := []record.EpochRecord{{Run: 0, Epoch: 1, Loss: 1, Best: true}, {Run: 0, Epoch: 2, Loss: 0.5}}
	loss, acc, err := TrainingPlots(recs, "x")
	if err != nil {
		t.Fatal(err)
	}
	for format, magic := range map[string]string{"png": "\x89PNG", "svg": "<?xml"} {
		var b bytes.Buffer
		if err := Write(&b, format, [][]*plot.Plot{{loss, acc}}, 8*vg.Centimeter, 6*vg.Centimeter); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), magic) {
			t.Errorf("%s output starts %q", format, b.String()[:min(8, b.Len())])
		}
	}
	if err := Write(&bytes.Buffer{}, "gif", [][]*plot.Plot{{loss}}, vg.Centimeter, vg.Centimeter); err == nil {
		t.Error("gif accepted")
	}
	if err := Write(&bytes.Buffer{}, "png", nil, vg.Centimeter, vg.Centimeter); err == nil {
		t.Error("no panels accepted")
	}
	if p, err := CurvaturePlot(recs, "x"); p != nil || err != nil {
		t.Errorf("curvature plot without curvatures: %v, %v", p, err)
	}
}

// Values whose range overflows (a loss of 1e308 then -1e308) once made
// the axis ticks loop forever: they are an error naming the curve and the
// epoch, at once. Large but drawable values still draw.
func TestCurvesTooWideToDraw(t *testing.T) {
	recs := func(a, b float64) []record.EpochRecord {
		return []record.EpochRecord{
			{Run: 0, Epoch: 1, Loss: a, Curvatures: []record.Curvature{{Name: "beta", Beta: -a}}},
			{Run: 0, Epoch: 2, Loss: b, Curvatures: []record.Curvature{{Name: "beta", Beta: -b}}},
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, _, err := TrainingPlots(recs(1e308, -1e308), "t"); err == nil || !strings.Contains(err.Error(), "training loss at epoch 1: 1e+308") {
			t.Errorf("TrainingPlots: %v", err)
		}
		if _, err := CurvaturePlot(recs(1e308, -1e308), "t"); err == nil || !strings.Contains(err.Error(), "cannot be drawn") {
			t.Errorf("CurvaturePlot: %v", err)
		}
		// Two runs at 1e308 overflow the mean.
		two := append(recs(1e308, 0), record.EpochRecord{Run: 1, Epoch: 1, Loss: 1e308})
		if _, _, err := TrainingPlots(two, "t"); err == nil || !strings.Contains(err.Error(), "+Inf") {
			t.Errorf("TrainingPlots of an overflowing mean: %v", err)
		}
		lp, ap, err := TrainingPlots(recs(3e38, -3e38), "t")
		if err != nil {
			t.Errorf("float32-sized losses: %v", err)
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, "svg", [][]*plot.Plot{{lp, ap}}, 8*vg.Centimeter, 6*vg.Centimeter); err != nil {
			t.Errorf("drawing float32-sized losses: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("plotting still running after 20 s")
	}
}

// Every figure, whatever drew it, is refused before drawing when an axis
// range is not finite or too wide to step through (a sweep's or a map's
// values from a corrupt file), instead of hanging in the tick loop.
func TestWriteRefusesUndrawableAxes(t *testing.T) {
	for _, r := range [][2]float64{{0, math.Inf(1)}, {-1e308, 1e308}, {math.NaN(), 1}, {0, 1e200}} {
		p := plot.New()
		p.Title.Text = "sweep"
		p.X.Min, p.X.Max = 0, 1
		p.Y.Min, p.Y.Max = r[0], r[1]
		done := make(chan error, 1)
		go func() { done <- Write(io.Discard, "png", [][]*plot.Plot{{p}}, 4*vg.Centimeter, 4*vg.Centimeter) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "y axis") {
				t.Errorf("y axis %v: %v", r, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("y axis %v: Write did not return", r)
		}
	}
}
