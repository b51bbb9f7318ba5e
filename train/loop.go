package train

import (
	"fmt"
	"time"

	"github.com/prcaps/prcaps/model"
)

// epochs is what one kind of training run (full-batch node, sampled node,
// graph) gives the epoch loop, runEpochs: how an epoch's training steps
// are taken and how the model is scored. The loop owns the rest, written
// once: the stop channel, the learning-rate schedule, the divergence rule,
// the epoch selection and patience, the selected epoch's parameters and
// the reports to the observer.
type epochs struct {
	*learner             // the run's optimiser, schedule and state
	m        model.Model // for curvature reports and ModelObserver
	rule     selectRule
	// train takes epoch's training passes at the rate the loop has set.
	// With update set, it only computes the gradients of the epoch's one
	// step, reading the parameters without changing them (so that bg may
	// still be scoring the previous epoch), and update takes the step.
	train  func(epoch int) (trained, error)
	update func(epoch int) error
	// evaluate scores the model as it is and fills e's ValAcc and TestAcc
	// (NaN if the test set is not scored every epoch); it returns the
	// validation loss.
	evaluate func(e *Epoch) (float64, error)
	// bg, if non-nil, scores each epoch on another goroutine, beside the
	// next epoch's train, instead of evaluate.
	bg *evaluator
	// test, if non-nil, scores the test set with the parameters as they
	// are. The loop then keeps the selected epoch's parameters and scores
	// them once, after the last epoch (the graph protocol's rule, DESIGN
	// §6); if nil, evaluate scores the test set every epoch.
	test func() (float64, error)
}

// trained is what an epoch's training passes report: its mean loss, the
// loss of the run's first step, before any update (the divergence rule's
// reference, read at epoch 1), and the accuracy on the training examples
// of its training passes (dropout on, each before its update).
type trained struct {
	loss, first, acc float64
}

// selectRule is how a run picks its epoch by validation accuracy; test
// labels never enter the choice.
type selectRule int

const (
	// selectNode takes a higher validation accuracy, ties broken by the
	// lower validation loss (improvedBy); patience counts the epochs
	// since the last one taken.
	selectNode selectRule = iota
	// selectGraph takes an accuracy at least as high, so ties go to the
	// later epoch (selectsGraphEpoch); patience counts the epochs since the
	// accuracy last rose: a tie moves the selection but does not reset it.
	selectGraph
)

// runEpochs trains k for cfg.Epochs epochs, scoring each, and returns the
// result at the selected epoch. A closed stop ends the run at the next
// epoch with ErrInterrupted. w gets every epoch and, for a ModelObserver,
// the model holding the selected epoch's parameters at the end (they are
// put back after); the caller reports the finished run (w.finished).
func runEpochs(k *epochs, cfg Config, seed uint64, w *watch, stop <-chan struct{}) (Result, error) {
	start := time.Now()
	res := Result{Seed: seed, ValAcc: -1}
	sel := selector{res: &res, k: k, w: w, patience: cfg.Patience, keep: k.test != nil || w.wantsModel()}
	// With bg, epoch e is scored on another goroutine while epoch e+1's
	// training passes run here; both only read the parameters, which
	// change in update, after settle has taken epoch e. Epochs are taken
	// in order, as without bg.
	pending := false
	settle := func() bool {
		if !pending {
			return false
		}
		pending = false
		return sel.take(k.bg.wait())
	}
	div := divergence{off: cfg.AllowDivergence}
	var ep Epoch // out of the loop: evaluate's pointer to it makes it escape, once
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		if stopped(stop) {
			if settle() {
				break
			}
			return res, fmt.Errorf("train: at epoch %d: %w", epoch, ErrInterrupted)
		}
		k.opt.SetLR(k.lr(epoch - 1))
		t, err := k.train(epoch)
		if settle() {
			break // the previous epoch ends the run: this one's gradients are dropped
		}
		if err == nil {
			err = div.check(epoch, t.loss, t.first)
		}
		if err == nil && k.update != nil {
			err = k.update(epoch)
		}
		if err != nil {
			return res, err
		}
		ep = Epoch{Epoch: epoch, Loss: t.loss, TrainAcc: t.acc, LR: k.opt.LR()}
		if k.bg != nil {
			k.bg.start(ep)
			pending = true
			continue
		}
		valLoss, err := k.evaluate(&ep)
		if err != nil {
			return res, err
		}
		if sel.take(ep, valLoss) {
			break
		}
	}
	settle()
	if k.test != nil && res.BestEpoch > 0 {
		swapParams(k.state, sel.selected)
		acc, err := k.test()
		swapParams(k.state, sel.selected)
		if err != nil {
			return res, err
		}
		res.TestAcc = acc
	}
	res.Seconds = time.Since(start).Seconds()
	if w.wantsModel() && res.BestEpoch > 0 {
		swapParams(k.state, sel.selected)
		w.selected(res, k.m)
		swapParams(k.state, sel.selected)
	}
	return res, nil
}

// selector takes a run's scored epochs into its result in order: the
// selection rule, the parameters of the selected epoch, the report to the
// observer and the patience rule.
type selector struct {
	res       *Result
	k         *epochs
	w         *watch
	patience  int
	sinceBest int
	keep      bool      // keep the selected epoch's parameters
	selected  []float32 // the parameters of the selected epoch, end to end
}

// take takes a scored epoch into the result and reports whether the run
// stops there (patience).
func (s *selector) take(ep Epoch, valLoss float64) bool {
	res := s.res
	var takes, rises bool
	switch s.k.rule {
	case selectGraph:
		takes, rises = selectsGraphEpoch(res.ValAcc, ep.ValAcc), ep.ValAcc > res.ValAcc
	default:
		takes = improvedBy(res, ep.ValAcc, valLoss)
		rises = takes
	}
	if rises {
		s.sinceBest = 0
	} else {
		s.sinceBest++
	}
	if takes {
		ep.Best = true
		res.BestEpoch, res.TrainAcc, res.ValAcc, res.TestAcc, res.ValLoss = ep.Epoch, ep.TrainAcc, ep.ValAcc, ep.TestAcc, valLoss
		if s.keep {
			// Copying the parameters costs far less than scoring the
			// test set at every epoch the selection moves to (24.6 of
			// 100 per MUTAG fold).
			s.selected = s.selected[:0]
			for _, p := range s.k.state {
				s.selected = append(s.selected, p.Value.Data...)
			}
		}
	}
	res.Epochs = ep.Epoch
	if s.w != nil {
		if cr, ok := s.k.m.(model.CurvatureReporter); ok {
			s.k.curv = cr.AppendCurvatures(s.k.curv[:0])
			ep.Curvatures = s.k.curv
		}
		s.w.epoch(ep)
	}
	return s.patience > 0 && s.sinceBest >= s.patience
}
