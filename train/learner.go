package train

import (
	"fmt"
	"math/rand/v2"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/optim"
)

// learner is what the node and graph trainers share: the configuration,
// the optimiser over the model's groups, the learning-rate schedule, the
// parameters it trains and the run's generator.
type learner struct {
	cfg    Config
	opt    optim.Optimizer
	lr     optim.Schedule
	params []*autodiff.Var[float32] // trained, and clipped together
	state  []*autodiff.Var[float32] // params and buffers: what a snapshot keeps
	curv   []model.Curvature        // Epoch.Curvatures, reused
	rng    *rand.Rand               // initialisation aside, every draw of the run
}

// newLearner builds cfg's optimiser and schedule over groups, with the
// run's generator from seed.
func newLearner(groups []optim.Group[float32], cfg Config, seed uint64) (learner, error) {
	opt, err := NewOptimizer(cfg, groups)
	if err != nil {
		return learner{}, err
	}
	lr, err := cfg.schedule()
	if err != nil {
		return learner{}, err
	}
	l := learner{cfg: cfg, opt: opt, lr: lr, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	for _, g := range groups {
		if !g.Frozen && !g.Buffer {
			l.params = append(l.params, g.Params...)
		}
		if !g.Frozen {
			l.state = append(l.state, g.Params...)
		}
	}
	return l, nil
}

// update clips the gradients and takes the optimiser step.
func (l *learner) update(epoch int) error {
	if l.cfg.Clip > 0 {
		if _, err := optim.ClipGradNorm(l.params, l.cfg.Clip); err != nil {
			return fmt.Errorf("train: epoch %d: %w: %w", epoch, ErrNonFinite, err)
		}
	}
	if err := l.opt.Step(); err != nil {
		return fmt.Errorf("train: epoch %d: %w", epoch, err)
	}
	return checkFinite(epoch, l.params)
}
