package tensor

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that
// holds address p.
func vmFlags(t *testing.T, p uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(strings.Fields(line)[0], "-") {
			in = p >= lo && p < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping holds %#x", p)
	return nil
}

// A large buffer from Make is advised for huge pages: its mapping carries
// the "hg" flag of MADV_HUGEPAGE.
func TestMakeAdvisesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("the kernel has no transparent huge pages")
	}
	has := func(flags []string, f string) bool {
		for _, x := range flags {
			if x == f {
				return true
			}
		}
		return false
	}
	b := Make[float32](3 * hugeMin / 4) // 3·hugeMin bytes: at least one whole huge page inside
	p := uintptr(unsafe.Pointer(&b[0]))
	mid := (p + hugePage - 1) / hugePage * hugePage // the first huge page inside b
	if !has(vmFlags(t, mid), "hg") {
		t.Fatalf("the huge page at %#x inside a %d-byte buffer is not advised (VmFlags %v)", mid, 4*len(b), vmFlags(t, mid))
	}
}
