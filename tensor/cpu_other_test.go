//go:build !unix

package tensor

import "testing"

// startCPU reports nothing where getrusage is not available.
func startCPU(b *testing.B) func() { return func() {} }
