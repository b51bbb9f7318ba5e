//go:build !unix

package main

import "testing"

// mkfifo: no named pipes here, so the tests of special files are skipped.
func mkfifo(t *testing.T, path string) { t.Skip("no named pipes on this system") }
