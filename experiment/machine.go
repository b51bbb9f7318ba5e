package experiment

import (
	"bufio"
	"os"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/cpu"
)

// machineCPU names the processor that runs the process, for fold records
// and runtime captions: its model name (from /proc/cpuinfo where there is
// one, else the architecture) and the widest vector extension the kernels
// may use (AVX-512, AVX2 or none), e.g. "AMD EPYC, AVX-512".
var machineCPU = sync.OnceValue(func() string {
	name := runtime.GOARCH
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && strings.TrimSpace(k) == "model name" {
				if v = strings.Join(strings.Fields(v), " "); v != "" {
					name = v
				}
				break
			}
		}
		f.Close()
	}
	switch {
	case cpu.X86.HasAVX512F:
		return name + ", AVX-512"
	case cpu.X86.HasAVX2:
		return name + ", AVX2"
	case runtime.GOARCH == "amd64":
		return name + ", no AVX2"
	}
	return name
})

// runOrigin is where a run's seconds were measured: the commit of the
// binary that trained it and its CPU. A fold record of a log written
// before records named the CPU has an unknown machine (the empty cpu).
func runOrigin(commit, cpu string) string {
	if commit == "" {
		commit = "unknown commit"
	}
	if cpu == "" {
		cpu = unrecordedCPU
	}
	return commit + " on " + cpu
}

// unrecordedCPU is the CPU of runOrigin for a record that names none.
const unrecordedCPU = "unrecorded CPU"

// hereOrigin is runOrigin of a run trained by this process.
func hereOrigin() string { return runOrigin(buildCommit(), machineCPU()) }
