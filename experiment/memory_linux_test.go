package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A control group's memory limit caps what the memory check counts on,
// under cgroup v2 and v1; no limit ("max", v1's huge value) is no cap.
func TestCgroupLimit(t *testing.T) {
	for _, tc := range []struct {
		name, cgroup, file, value string
		want                      int64
	}{
		{"v2", "0::/box\n", "sys/fs/cgroup/box/memory.max", "1073741824\n", 1 << 30},
		{"v2 unlimited", "0::/box\n", "sys/fs/cgroup/box/memory.max", "max\n", 0},
		{"v1", "4:memory:/box\n1:cpu:/\n", "sys/fs/cgroup/memory/box/memory.limit_in_bytes", "2147483648\n", 2 << 30},
		{"v1 unlimited", "4:memory:/box\n", "sys/fs/cgroup/memory/box/memory.limit_in_bytes", "9223372036854771712\n", 0},
		{"v1 root mounted", "4:memory:/elsewhere\n", "sys/fs/cgroup/memory/memory.limit_in_bytes", "536870912\n", 512 << 20},
		{"none", "1:cpu:/\n", "sys/fs/cgroup/cpu/x", "1\n", 0},
	} {
		root := t.TempDir()
		write := func(name, content string) {
			p := filepath.Join(root, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(content), 0o644)
		}
		write("proc/self/cgroup", tc.cgroup)
		write(tc.file, tc.value)
		if got := cgroupLimit(root); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	if total := totalMemory(); total <= 0 {
		t.Errorf("totalMemory() = %d on this machine", total)
	}
}

// CheckMemory refuses what needs more than 80 % of the machine, saying
// what and how much, and checks nothing on a machine of unknown size.
func TestCheckMemory(t *testing.T) {
	saved := machineMemory
	defer func() { machineMemory = saved }()
	machineMemory = func() int64 { return 10 << 30 }
	if err := CheckMemory("classifying X with m", 9<<30); err == nil || !strings.Contains(err.Error(), "classifying X with m would need about 9.0 GiB; this machine has 10.0 GiB") {
		t.Errorf("9 of 10 GiB: %v", err)
	}
	if err := CheckMemory("x", 7<<30); err != nil {
		t.Errorf("7 of 10 GiB: %v", err)
	}
	machineMemory = func() int64 { return 0 }
	if err := CheckMemory("x", 1<<60); err != nil {
		t.Errorf("unknown machine: %v", err)
	}
}
