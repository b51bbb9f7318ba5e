package experiment

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// totalMemory is the memory this process may use in bytes, 0 if unknown:
// the machine's physical memory, or less where a control group (a
// container's limit) caps it, since Sysinfo reports the host's memory
// inside a container.
func totalMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	total := int64(si.Totalram) * int64(si.Unit)
	if limit := cgroupLimit("/"); limit > 0 && limit < total {
		return limit
	}
	return total
}

// cgroupLimit is the memory limit of the process's control group in bytes,
// 0 when there is none or it cannot be read, with the cgroup file systems
// under root (for tests): version 2's memory.max, or version 1's
// memory.limit_in_bytes (where "no limit" is a huge number).
func cgroupLimit(root string) int64 {
	b, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			file = filepath.Join(root, "sys/fs/cgroup", parts[2], "memory.max")
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			file = filepath.Join(root, "sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes")
			if _, err := os.Stat(file); err != nil { // the group's own directory not mounted: the root's
				file = filepath.Join(root, "sys/fs/cgroup/memory/memory.limit_in_bytes")
			}
		default:
			continue
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<62 { // "max", or v1's no-limit value
			continue
		}
		return n
	}
	return 0
}

// resetPeakRSS resets the process's resident-set high-water mark (Linux
// 4.0+: "5" to /proc/self/clear_refs) and reports whether it could.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS is the process's resident-set high-water mark in bytes (VmHWM),
// 0 if unknown.
func peakRSS() int64 { return statusBytes("VmHWM:") }

// currentRSS is the process's resident set in bytes (VmRSS), 0 if unknown.
func currentRSS() int64 { return statusBytes("VmRSS:") }

// statusBytes reads the kB field key of /proc/self/status, in bytes.
func statusBytes(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cpuSeconds is the CPU time the process has used, user and system, in
// seconds (0 if unknown): a cost that the other processes of a shared
// machine disturb far less than wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
