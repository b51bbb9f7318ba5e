package experiment

import (
	"bufio"
	"fmt"
	"slices"

	"github.com/prcaps/prcaps/internal/atomicfile"

	"github.com/prcaps/prcaps/train"
)

// TestCurves collects each fold's validation and test accuracy per epoch
// (--test-curve) and writes them to one TSV file: fold, epoch, val_acc,
// test_acc. It is a train.TestCurveObserver (Run adds it). The file is
// created when the run starts, so that a bad path fails before any
// training.
type TestCurves struct {
	f      *atomicfile.File
	points map[int][]train.CurvePoint
	sel    train.CurveSelection
}

// Selection is the epoch of best mean test accuracy over the folds, once
// Close has run.
func (c *TestCurves) Selection() train.CurveSelection { return c.sel }

// SelectionText is Selection as the line that reports it, naming the
// curves file path: not a result of the protocol (it selects on test
// labels), for comparison with papers that report it.
func (c *TestCurves) SelectionText(path string) string {
	sel := c.sel
	return fmt.Sprintf("test-curve reporting (selects on test labels; for comparison with papers only): %.2f ± %.2f %% at epoch %d, "+
		"the best mean test accuracy over %d fold(s); curves in %s", 100*sel.MeanAcc, 100*sel.StdAcc, sel.Epoch, sel.FoldCount, path)
}

// NewTestCurves starts the curves file at path, which Close writes whole
// (an interrupted run leaves an existing file as it was).
func NewTestCurves(path string) (*TestCurves, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("test curve: %w", err)
	}
	return &TestCurves{f: f, points: map[int][]train.CurvePoint{}}, nil
}

// Epoch does nothing: TestCurve gets the epoch's accuracies.
func (c *TestCurves) Epoch(int, train.Epoch) {}

// Run does nothing.
func (c *TestCurves) Run(int, train.Result) {}

// TestCurve keeps fold's point p.
func (c *TestCurves) TestCurve(fold int, p train.CurvePoint) {
	c.points[fold] = append(c.points[fold], p)
}

// Close writes the curves, commits the file and selects the epoch with the
// best mean test accuracy over the folds (Selection).
func (c *TestCurves) Close() error {
	folds := make([]int, 0, len(c.points))
	for f := range c.points {
		folds = append(folds, f)
	}
	slices.Sort(folds)
	w := bufio.NewWriter(c.f)
	fmt.Fprintln(w, "fold\tepoch\tval_acc\ttest_acc")
	curves := make([][]float64, 0, len(folds))
	for _, f := range folds {
		curve := make([]float64, 0, len(c.points[f]))
		for _, p := range c.points[f] {
			fmt.Fprintf(w, "%d\t%d\t%.6f\t%.6f\n", f, p.Epoch, p.ValAcc, p.TestAcc)
			curve = append(curve, p.TestAcc)
		}
		curves = append(curves, curve)
	}
	err := w.Flush()
	if err == nil {
		err = c.f.Commit()
	} else {
		c.f.Abort()
	}
	if err != nil {
		return fmt.Errorf("test curve: %w", err)
	}
	sel, err := train.SelectOnCurves(curves)
	if err != nil {
		return fmt.Errorf("test curve %s: %w", c.f.Path, err)
	}
	c.sel = sel
	return nil
}

// Abort discards the curves: an existing file keeps its content.
func (c *TestCurves) Abort() { c.f.Abort() }
