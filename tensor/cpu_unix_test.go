//go:build unix

package tensor

import (
	"runtime"
	"syscall"
	"testing"
)

// startCPU returns a function that reports the process CPU time spent since
// the call, per iteration, as "cpu-ns/op". On a machine shared with other
// work, wall-clock ns/op includes time spent waiting for a core; CPU time
// does not (it sums over threads, so with -cpu 2 it is the total work).
func startCPU(b *testing.B) func() {
	runtime.GC() // collect the set-up's garbage outside the measurement
	start := cpuNanos()
	return func() {
		b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
