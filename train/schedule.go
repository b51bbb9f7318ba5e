package train

import (
	"fmt"

	"github.com/prcaps/prcaps/optim"
)

// Learning-rate schedules of Config.LRSchedule.
const (
	ScheduleConstant = "constant" // LR at every epoch (also the empty string)
	ScheduleCosine   = "cosine"   // LR annealed to 0 along half a cosine over Epochs
	ScheduleStep     = "step"     // LR halved every 50 epochs, as GIN trains on the TU benchmarks
)

// schedule returns cfg's learning rate per 0-based epoch.
func (cfg Config) schedule() (optim.Schedule, error) {
	switch cfg.LRSchedule {
	case "", ScheduleConstant:
		return optim.Constant(cfg.LR), nil
	case ScheduleCosine:
		return optim.Cosine(cfg.LR, 0, cfg.Epochs), nil
	case ScheduleStep:
		return optim.StepDecay(cfg.LR, 50, 0.5), nil
	}
	return nil, fmt.Errorf("train: unknown learning-rate schedule %q (want %s, %s or %s)",
		cfg.LRSchedule, ScheduleConstant, ScheduleCosine, ScheduleStep)
}
