package tensor

// cpuPause executes the PAUSE instruction n ≥ 1 times: a spin-wait hint
// that yields the core's execution resources to a sibling hardware thread.
//
//go:noescape
func cpuPause(n int)
