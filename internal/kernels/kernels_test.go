package kernels

import (
	"os"
	"strings"
	"testing"
)

// PRCAPS_KERNELS caps the set: unset gives the best, a named set at or
// below the best is taken, and an unknown name or a set above the best is
// an error that names the variable.
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		best Set
		env  string
		want Set
		err  string
	}{
		{AVX512, "", AVX512, ""},
		{AVX512, "avx512", AVX512, ""},
		{AVX512, "avx2", AVX2, ""},
		{AVX512, "go", Go, ""},
		{AVX2, "", AVX2, ""},
		{AVX2, "avx2", AVX2, ""},
		{AVX2, "go", Go, ""},
		{AVX2, "avx512", Go, "PRCAPS_KERNELS=avx512: this CPU and build cannot run it (available: avx2, go)"},
		{Go, "", Go, ""},
		{Go, "go", Go, ""},
		{Go, "avx2", Go, "PRCAPS_KERNELS=avx2: this CPU and build cannot run it (available: go)"},
		{NEON, "", NEON, ""},
		{NEON, "neon", NEON, ""},
		{NEON, "go", Go, ""},
		{NEON, "avx2", Go, "PRCAPS_KERNELS=avx2: this CPU and build cannot run it (available: neon, go)"},
		{AVX512, "neon", Go, "PRCAPS_KERNELS=neon: this CPU and build cannot run it (available: avx512, avx2, go)"},
		{Go, "neon", Go, "PRCAPS_KERNELS=neon: this CPU and build cannot run it (available: go)"},
		{AVX512, "AVX2", Go, `PRCAPS_KERNELS=AVX2: unknown kernel set "AVX2" (want avx512, avx2, neon or go)`},
		{AVX512, "purego", Go, `PRCAPS_KERNELS=purego: unknown kernel set`},
		{AVX512, " avx2", Go, `unknown kernel set`},
	} {
		got, err := Decide(c.best, c.env)
		if c.err == "" {
			if err != nil || got != c.want {
				t.Errorf("Decide(%v, %q) = %v, %v; want %v", c.best, c.env, got, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Decide(%v, %q) = %v, %v; want the error %q", c.best, c.env, got, err, c.err)
		}
	}
}

// The process's set is the one Decide gives for this CPU and the
// environment it started with, and its name round-trips through Parse.
func TestCurrent(t *testing.T) {
	want, err := Decide(Best(), os.Getenv(EnvVar))
	if err != nil {
		t.Fatal(err) // unreachable: initialisation would have panicked
	}
	if Current() != want {
		t.Fatalf("Current() = %v, Decide gives %v", Current(), want)
	}
	if s, err := Parse(Name()); err != nil || s != Current() {
		t.Fatalf("Parse(%q) = %v, %v", Name(), s, err)
	}
	av := Available()
	if len(av) == 0 || av[0] != Best() || av[len(av)-1] != Go {
		t.Fatalf("Available() = %v, best %v", av, Best())
	}
	t.Logf("CPU %q, kernels %s (available %v)", CPU(), Name(), av)
}

func TestParseModelName(t *testing.T) {
	const info = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC  9555 64-Core Processor \nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: other\n"
	if got := parseModelName(info); got != "AMD EPYC 9555 64-Core Processor" {
		t.Fatalf("got %q", got)
	}
	// arm64's /proc/cpuinfo has no model name.
	if got := parseModelName("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"); got != "unknown" {
		t.Fatalf("got %q", got)
	}
	if CPU() == "" {
		t.Fatal("CPU() is empty")
	}
}
