package train

import (
	"fmt"

	"github.com/prcaps/prcaps/stats"
)

// CurveSelection is the test-curve reporting of Xu et al. (2019, the GIN
// paper) and of many TU benchmark papers since: the one epoch whose test
// accuracy, averaged over the folds, is highest, with that mean and the
// population standard deviation of the folds' test accuracies there.
//
// It selects on test labels, so it is optimistic (Errica et al., 2020,
// measured the gap for GIN). It is for comparing with papers that report
// it, never a result of the graph protocol, whose selection reads only
// validation accuracy (TestCurveObserver).
type CurveSelection struct {
	Epoch     int // 1-based
	MeanAcc   float64
	StdAcc    float64
	FoldCount int
}

// SelectOnCurves returns the CurveSelection of the folds' test curves:
// curves[f][e] is fold f's test accuracy after epoch e+1. Every fold must
// have the same number of epochs (no early stopping); ties go to the
// earlier epoch.
func SelectOnCurves(curves [][]float64) (CurveSelection, error) {
	if len(curves) == 0 || len(curves[0]) == 0 {
		return CurveSelection{}, fmt.Errorf("train: no test curves")
	}
	epochs := len(curves[0])
	for f, c := range curves {
		if len(c) != epochs {
			return CurveSelection{}, fmt.Errorf("train: test curve of fold %d has %d epochs, fold 0's %d", f, len(c), epochs)
		}
	}
	best := CurveSelection{MeanAcc: -1, FoldCount: len(curves)}
	accs := make([]float64, len(curves))
	for e := range epochs {
		for f, c := range curves {
			accs[f] = c[e]
		}
		// Means of equal accuracies summed in another order may differ in
		// the last bit; such a difference is not an improvement.
		if mean, std := stats.MeanStd(accs); mean > best.MeanAcc+1e-12 {
			best.Epoch, best.MeanAcc, best.StdAcc = e+1, mean, std
		}
	}
	return best, nil
}
