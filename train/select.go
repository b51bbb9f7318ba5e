package train

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/model"
)

// selector takes a node run's evaluated epochs into its result in order:
// the best-validation rule (improvedBy), the parameters of the
// selected epoch for onModel, the progress report and the patience rule.
// The full-batch and the mini-batch loops share it.
type selector struct {
	res       *Result
	m         model.NodeModel
	l         *learner
	patience  int
	sinceBest int
	progress  func(Epoch)
	keep      bool      // keep the selected epoch's parameters (onModel)
	selected  []float32 // the parameters of the selected epoch
}

// take takes an evaluated epoch into the result and reports whether the
// run stops there (patience).
func (s *selector) take(ep Epoch, valLoss float64) bool {
	res := s.res
	if improvedBy(res, ep.ValAcc, valLoss) {
		ep.Best = true
		res.BestEpoch, res.TrainAcc, res.ValAcc, res.TestAcc, res.ValLoss = ep.Epoch, ep.TrainAcc, ep.ValAcc, ep.TestAcc, valLoss
		s.sinceBest = 0
		if s.keep {
			s.selected = s.selected[:0]
			for _, p := range s.l.state {
				s.selected = append(s.selected, p.Value.Data...)
			}
		}
	} else {
		s.sinceBest++
	}
	res.Epochs = ep.Epoch
	if s.progress != nil {
		if cr, ok := s.m.(model.CurvatureReporter); ok {
			s.l.curv = cr.AppendCurvatures(s.l.curv[:0])
			ep.Curvatures = s.l.curv
		}
		s.progress(ep)
	}
	return s.patience > 0 && s.sinceBest >= s.patience
}

// report calls onModel with the model holding the selected epoch's
// parameters, then puts the last ones back.
func (s *selector) report(state []*autodiff.Var[float32], onModel func(Result)) {
	if onModel != nil && s.res.BestEpoch > 0 {
		swapParams(state, s.selected)
		onModel(*s.res)
		swapParams(state, s.selected)
	}
}
