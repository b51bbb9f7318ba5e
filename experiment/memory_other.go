//go:build !linux

package experiment

// totalMemory is the machine's physical memory in bytes, 0 if unknown.
func totalMemory() int64 { return 0 }

// resetPeakRSS cannot reset the high-water mark here.
func resetPeakRSS() bool { return false }

// peakRSS is unknown here.
func peakRSS() int64 { return 0 }

// currentRSS is unknown here.
func currentRSS() int64 { return 0 }

// cpuSeconds is unknown here.
func cpuSeconds() float64 { return 0 }
