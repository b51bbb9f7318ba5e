package manifold

import (
	"testing"

	"github.com/prcaps/prcaps/internal/kernels"
)

// TestKernelSet names the kernel set the package's tests run with
// (PRCAPS_KERNELS, see internal/kernels) and reads the variable while the
// tests run, so that go test caches one result per set.
func TestKernelSet(t *testing.T) {
	if err := kernels.Recheck(); err != nil {
		t.Fatal(err)
	}
	t.Logf("kernels %s on %s", kernels.Name(), kernels.CPU())
}
