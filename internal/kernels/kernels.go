// Package kernels decides, once per process, which set of numeric kernels
// the packages of prcaps run: on amd64 the AVX-512 assembly kernels or the
// AVX2+FMA ones, on arm64 the NEON ones, or the portable Go loops (what
// -tags purego builds, and what every other architecture runs). tensor, capsule, manifold and optim read
// this one decision, so a process never mixes sets by accident.
//
// The set is the best the CPU and the build can run, capped by the
// environment variable PRCAPS_KERNELS:
//
//	PRCAPS_KERNELS unset or empty  the best available set
//	PRCAPS_KERNELS=avx512          AVX-512 (needs AVX-512F, AVX2 and FMA)
//	PRCAPS_KERNELS=avx2            AVX2+FMA, never AVX-512
//	PRCAPS_KERNELS=neon            NEON (arm64; every arm64 CPU has it)
//	PRCAPS_KERNELS=go              the portable Go kernels only
//
// A value that is not one of these, or a set this CPU (or a purego build)
// cannot run, is a configuration error: the process panics while its
// packages initialise, with a message that names the variable and the sets
// available, before any work starts (a Go panic exits with status 2). The
// variable never raises the set above what the CPU has, and it is read only
// at start-up.
//
// Within one set the results are the same bits on every machine that runs
// it; the AVX-512 kernels are written to give the AVX2 kernels' bits, so
// those two sets agree with each other too, while the Go set rounds some
// sums in another order (see docs/performance.md).
package kernels

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// Set is a kernel set. A set may use the kernels of the sets below it on
// its architecture: AVX512 those of AVX2 and Go, AVX2 and NEON those of
// Go.
type Set int

const (
	// Go is the portable Go kernels.
	Go Set = iota
	// AVX2 is the AVX2+FMA assembly kernels (with Go for the rest).
	AVX2
	// AVX512 is the AVX-512 kernels (with AVX2 and Go for the rest).
	AVX512
	// NEON is the arm64 NEON assembly kernels (with Go for the rest).
	NEON
)

// EnvVar is the environment variable that caps the kernel set.
const EnvVar = "PRCAPS_KERNELS"

var names = [...]string{Go: "go", AVX2: "avx2", AVX512: "avx512", NEON: "neon"}

// String is the set's name as PRCAPS_KERNELS spells it.
func (s Set) String() string {
	if s < 0 || int(s) >= len(names) {
		return fmt.Sprintf("Set(%d)", int(s))
	}
	return names[s]
}

// Parse returns the set named name ("avx512", "avx2", "neon" or "go").
func Parse(name string) (Set, error) {
	for s, n := range names {
		if name == n {
			return Set(s), nil
		}
	}
	return Go, fmt.Errorf("unknown kernel set %q (want avx512, avx2, neon or go)", name)
}

// Decide returns the set for a CPU and build whose best set is best, capped
// by the value env of PRCAPS_KERNELS ("" for unset). It fails on an unknown
// name or on a set that best does not include (see Set).
func Decide(best Set, env string) (Set, error) {
	if env == "" {
		return best, nil
	}
	s, err := Parse(env)
	if err != nil {
		return Go, fmt.Errorf("%s=%s: %v", EnvVar, env, err)
	}
	if !slices.Contains(below(best), s) {
		return Go, fmt.Errorf("%s=%s: this CPU and build cannot run it (available: %s)", EnvVar, env, strings.Join(availableNames(best), ", "))
	}
	return s, nil
}

func availableNames(best Set) []string {
	var out []string
	for _, s := range below(best) {
		out = append(out, s.String())
	}
	return out
}

// below lists best and the sets it includes, best first: the sets a CPU
// and build whose best set is best can run.
func below(best Set) []Set {
	switch best {
	case AVX512:
		return []Set{AVX512, AVX2, Go}
	case AVX2:
		return []Set{AVX2, Go}
	case NEON:
		return []Set{NEON, Go}
	}
	return []Set{Go}
}

// current is decided at initialisation, before any package that imports
// kernels reads it.
var current = func() Set {
	s, err := Decide(Best(), os.Getenv(EnvVar))
	if err != nil {
		panic("prcaps: " + err.Error())
	}
	return s
}()

// Current is the kernel set in use.
func Current() Set { return current }

// Name is Current's name: "avx512", "avx2", "neon" or "go".
func Name() string { return current.String() }

// Best is the best set this CPU and build can run, whatever PRCAPS_KERNELS
// says.
func Best() Set { return best }

// Available lists the sets this CPU and build can run, best first: the
// values PRCAPS_KERNELS accepts here.
func Available() []Set { return below(best) }

// CPU is the processor's model name: /proc/cpuinfo's "model name" on
// Linux, "unknown" where it is not available.
func CPU() string { return cpuModel() }

var cpuModel = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	return parseModelName(string(b))
})

// parseModelName returns the first "model name" field of a /proc/cpuinfo
// text, or "unknown".
func parseModelName(info string) string {
	for line := range strings.SplitSeq(info, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(key) == "model name" {
			if v := strings.Join(strings.Fields(val), " "); v != "" {
				return v
			}
		}
	}
	return "unknown"
}

// Recheck reports an error unless the set in use is the one PRCAPS_KERNELS
// decides now. The set is read while packages initialise, before go test
// records which environment variables a test binary reads; a package's
// test that calls Recheck makes go test's cache keep one result per value
// of PRCAPS_KERNELS instead of replaying another set's.
func Recheck() error {
	s, err := Decide(Best(), os.Getenv(EnvVar))
	if err != nil {
		return err
	}
	if s != current {
		return fmt.Errorf("%s=%s now, but the kernel set in use is %s", EnvVar, os.Getenv(EnvVar), current)
	}
	return nil
}
