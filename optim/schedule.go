package optim

import "math"

// Schedule maps a 0-based epoch (or step) count to a learning rate. A
// training loop calls opt.SetLR(s(epoch)) before each epoch; the closed
// forms below match PyTorch's schedulers evaluated at that epoch.
type Schedule func(epoch int) float64

// Constant is the default schedule: lr at every epoch.
func Constant(lr float64) Schedule {
	return func(int) float64 { return lr }
}

// StepDecay multiplies lr by gamma every `every` epochs (torch StepLR).
// every < 1 is treated as 1.
func StepDecay(lr float64, every int, gamma float64) Schedule {
	every = max(every, 1)
	return func(epoch int) float64 {
		return lr * math.Pow(gamma, float64(epoch/every))
	}
}

// Cosine anneals from lr to minLR over tMax epochs along half a cosine
// (the closed form of torch CosineAnnealingLR), then stays at minLR.
// tMax < 1 is treated as 1.
func Cosine(lr, minLR float64, tMax int) Schedule {
	tMax = max(tMax, 1)
	return func(epoch int) float64 {
		if epoch >= tMax {
			return minLR
		}
		return minLR + (lr-minLR)*(1+math.Cos(math.Pi*float64(epoch)/float64(tMax)))/2
	}
}

// Warmup scales s linearly from 1/(warmup+1) of its value at epoch 0 up to
// its full value at epoch warmup (as torch LinearLR with start_factor
// 1/(warmup+1) chained with s). warmup < 1 returns s unchanged.
func Warmup(s Schedule, warmup int) Schedule {
	if warmup < 1 {
		return s
	}
	return func(epoch int) float64 {
		if epoch >= warmup {
			return s(epoch)
		}
		return s(epoch) * float64(epoch+1) / float64(warmup+1)
	}
}
