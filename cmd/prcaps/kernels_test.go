package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/prcaps/prcaps/internal/kernels"
)

// kernelRuns are short trainings whose curves (every epoch's loss and
// accuracies, written exactly) TestKernelSetsAgree compares across sets.
var kernelRuns = map[string][]string{
	"cora":  {"train", "--data", "", "--quiet", "--epochs", "12"},
	"mutag": {"train", "--dataset", "mutag", "--data", "", "--quiet", "--folds", "2", "--epochs", "4"},
}

// The AVX-512 kernels give the AVX2 kernels' bits, kernel by kernel
// (tensor's and capsule's tests), so whole trainings do too: a Cora run and
// two MUTAG folds with the best set here and, in a child process, with
// PRCAPS_KERNELS=avx2 write the same curves file to the byte. (The Go set
// rounds some sums in another order; the purego build gives its bits.)
func TestKernelSetsAgree(t *testing.T) {
	if os.Getenv("PRCAPS_TEST_CURVES") != "" {
		t.Skip("the child of TestKernelSetsAgree")
	}
	if kernels.Current() != kernels.AVX512 {
		t.Skipf("kernel set %s: the AVX-512 and AVX2 sets are compared where both run", kernels.Name())
	}
	if testing.Short() {
		t.Skip("trains twice in -short mode")
	}
	dir := t.TempDir()
	for name, args := range kernelRuns {
		mine := filepath.Join(dir, name+"-avx512.jsonl")
		if code, _, errOut := runCLI(append(args, "--curves", mine)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		theirs := filepath.Join(dir, name+"-avx2.jsonl")
		cmd := exec.Command(os.Args[0], "-test.run=^TestKernelSetsChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), kernels.EnvVar+"=avx2", "PRCAPS_TEST_CURVES="+theirs, "PRCAPS_TEST_RUN="+name)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s with avx2: %v\n%s", name, err, out)
		}
		a, err := os.ReadFile(mine)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(theirs)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: the curves differ between the avx512 and avx2 sets:\n%s\n%s", name, a, b)
		}
	}
}

// TestKernelSetsChild is TestKernelSetsAgree's run in a child process.
func TestKernelSetsChild(t *testing.T) {
	path := os.Getenv("PRCAPS_TEST_CURVES")
	if path == "" {
		t.Skip("run by TestKernelSetsAgree")
	}
	if kernels.Name() != os.Getenv(kernels.EnvVar) {
		t.Fatalf("kernel set %s, want %s", kernels.Name(), os.Getenv(kernels.EnvVar))
	}
	args := kernelRuns[os.Getenv("PRCAPS_TEST_RUN")]
	if code, _, errOut := runCLI(append(args, "--curves", path)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
