package train

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/optim"
)

// Learning-rate schedules of Config.LRSchedule.
const (
	ScheduleConstant = "constant" // LR at every epoch (also the empty string)
	ScheduleCosine   = "cosine"   // LR annealed to 0 along half a cosine over Epochs
	ScheduleStep     = "step"     // LR halved every StepEvery epochs, as GIN trains on the TU benchmarks
	// ScheduleExponential multiplies the LR by 0.95 after every epoch
	// (PyTorch's ExponentialLR(γ = 0.95), GRDL's schedule).
	ScheduleExponential = "exponential"
)

// Schedules lists the names that Config.LRSchedule accepts besides "".
func Schedules() []string {
	return []string{ScheduleConstant, ScheduleCosine, ScheduleStep, ScheduleExponential}
}

// CheckSchedule returns an error unless name is "" or one of Schedules.
func CheckSchedule(name string) error {
	if name == "" || slices.Contains(Schedules(), name) {
		return nil
	}
	return fmt.Errorf("unknown learning-rate schedule %q (want %s)", name, strings.Join(Schedules(), ", "))
}

// schedule returns cfg's learning rate per 0-based epoch.
func (cfg Config) schedule() (optim.Schedule, error) {
	if err := CheckSchedule(cfg.LRSchedule); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	switch cfg.LRSchedule {
	case ScheduleCosine:
		return optim.Cosine(cfg.LR, 0, cfg.Epochs), nil
	case ScheduleStep:
		if cfg.StepEvery < 1 {
			return nil, fmt.Errorf("train: the step schedule needs a period, got lr-step-every %d", cfg.StepEvery)
		}
		return optim.StepDecay(cfg.LR, cfg.StepEvery, 0.5), nil
	case ScheduleExponential:
		return optim.StepDecay(cfg.LR, 1, 0.95), nil
	}
	return optim.Constant(cfg.LR), nil
}
