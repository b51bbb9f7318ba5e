package main

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// Issue 51, class 6: graph models skipped the memory check, so DGCNN with
// its 1-D convolutions and head at 65536 tried an 86 GB block and GIN of
// 32 layers of 65536 17 GB. Every model now goes through the one estimate
// (model.EstimateBytes) before it is built: these command lines end with
// exit 1 and "would need about N GiB", at once and without allocating.
// The widths are the largest the flags accept; each case needs hundreds of
// GiB at least, more than any machine that runs the tests.
func TestHostileMemory(t *testing.T) {
	graph := []string{"train", "--task", "graph", "--data", "", "--quiet"}
	for _, args := range [][]string{
		{"--model", "dgcnn", "--conv1", "65536", "--conv2", "65536", "--dense", "65536"},
		{"--model", "dgcnn", "--sort-k", "65536", "--dense", "65536"},
		{"--model", "gin", "--hidden", "65536", "--layers", "32"},
		{"--model", "gin", "--hidden", "65536"},
		{"--model", "graphgps", "--hidden", "65536"},
		{"--model", "grdl", "--hidden", "65536"},
		{"--model", "gratin", "--hidden", "65536"},
		{"--model", "gratin", "--hidden", "65536", "--backbone", "gin"},
		{"--model", "dgcnn", "--conv1", "65536", "--conv2", "65536", "--dense", "65536", "--json"},
	} {
		all := append(append([]string(nil), graph...), args...)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		code, out, errOut := runCLI(all...)
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if code != 1 || !strings.Contains(out+errOut, "would need about") || !strings.Contains(out+errOut, "GiB") {
			t.Errorf("prcaps %s: exit %d, output %.300q; want exit 1 and \"would need about N GiB\"", strings.Join(all, " "), code, out+errOut)
		}
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 256<<20 || elapsed > 10*time.Second {
			t.Errorf("prcaps %s: allocated %d MiB in %v before refusing", strings.Join(all, " "), grown>>20, elapsed)
		}
	}
}
