package tensor

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
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
	if !madviseHonoured(t) {
		t.Skip("madvise(MADV_HUGEPAGE) leaves no mark in smaps here (an emulator such as qemu-user drops it)")
	}
	b := Make[float32](3 * hugeMin / 4) // 3·hugeMin bytes: at least one whole huge page inside
	p := uintptr(unsafe.Pointer(&b[0]))
	mid := (p + hugePage - 1) / hugePage * hugePage // the first huge page inside b
	if !has(vmFlags(t, mid), "hg") {
		t.Fatalf("the huge page at %#x inside a %d-byte buffer is not advised (VmFlags %v)", mid, 4*len(b), vmFlags(t, mid))
	}
}

// madviseHonoured reports whether a mapping advised MADV_HUGEPAGE
// directly shows the "hg" flag in smaps: the control that tells a Make
// that forgot its advice from a system that ignores advice (qemu-user,
// which runs the arm64 tests in CI, accepts madvise and does nothing).
func madviseHonoured(t *testing.T) bool {
	t.Helper()
	m, err := unix.Mmap(-1, 0, 2*hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Skipf("no anonymous mapping: %v", err)
	}
	defer unix.Munmap(m)
	p := uintptr(unsafe.Pointer(&m[0]))
	lo := (p+hugePage-1)/hugePage*hugePage - p
	if err := unix.Madvise(m[lo:lo+hugePage], unix.MADV_HUGEPAGE); err != nil {
		return false
	}
	for _, f := range vmFlags(t, p+lo) {
		if f == "hg" {
			return true
		}
	}
	return false
}
