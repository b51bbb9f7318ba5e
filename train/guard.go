package train

import (
	"errors"
	"fmt"
	"math"

	"github.com/prcaps/prcaps/autodiff"
)

// The divergence rule (on unless Config.AllowDivergence): a run fails when
// its training loss (an epoch's mean) stays above divergeFactor times the
// loss of its first step, before any update (or 1, if larger), for
// divergeEpochs epochs in a row. Cross-entropy starts
// near ln(classes), so a loss a hundred times higher means logits that
// differ by hundreds: the optimiser has left the model's working range, and
// an accuracy reported from such a run would mislead.
const (
	divergeFactor = 100
	divergeEpochs = 3
)

// ErrDiverged is wrapped by the error of a run stopped by the divergence
// rule.
var ErrDiverged = errors.New("diverged")

// divergence applies the rule to a run's epoch losses.
type divergence struct {
	off   bool
	start float64
	over  int
}

// check applies the rule to the training loss of an epoch; first is the
// loss of the run's first step, before any update (the reference).
func (d *divergence) check(epoch int, loss, first float64) error {
	if d.off {
		return nil
	}
	if epoch == 1 {
		d.start = max(first, 1)
	}
	if loss > divergeFactor*d.start {
		d.over++
	} else {
		d.over = 0
	}
	if d.over >= divergeEpochs {
		return fmt.Errorf("train: epoch %d: training loss %.3g has been over %d times its initial value (%.3g) for %d epochs: the run %w (lower the learning rate, or allow it with --allow-divergence)",
			epoch, loss, divergeFactor, d.start, divergeEpochs, ErrDiverged)
	}
	return nil
}

// checkFinite reports the first parameter holding a NaN or an infinity,
// after an optimiser step, before it reaches the next forward pass. It
// runs after every step, so the common case is one pass of additions: v−v
// is 0 for every finite v and NaN otherwise, and the sum stays 0 exactly
// when all are finite.
func checkFinite(epoch int, params []*autodiff.Var[float32]) error {
	for _, p := range params {
		var acc float32
		for _, v := range p.Value.Data {
			acc += v - v
		}
		if acc == 0 {
			continue
		}
		for _, v := range p.Value.Data {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("train: epoch %d: parameter %s is %v after the optimiser step: %w", epoch, p.Name, v, ErrNonFinite)
			}
		}
	}
	return nil
}

// ErrInterrupted is wrapped by the error of a run stopped by its
// protocol's Stop channel (prcaps: SIGINT or SIGTERM).
var ErrInterrupted = errors.New("interrupted")

// stopped reports whether stop is closed.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}
