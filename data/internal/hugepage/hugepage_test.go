package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestAdvise: after Advise, the kernel's map of this process marks the
// array's whole 2 MB pages for huge pages ("hg"), and the array is intact.
// Smaller slices and empty ones are left alone.
func TestAdvise(t *testing.T) {
	Advise([]int64(nil))
	Advise(make([]byte, 100))
	type row struct {
		a, b string
		c    *float64
	}
	s := make([]row, 200000) // 6.4 MB
	Advise(s)
	for i := range s {
		s[i].a = "x"
	}
	for i := range s {
		if s[i].a != "x" || s[i].b != "" || s[i].c != nil {
			t.Fatalf("row %d changed: %+v", i, s[i])
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages: the hint is refused, and nothing is marked")
	}
	p := uintptr(unsafe.Pointer(&s[0]))
	mid := (p + size - 1) &^ (size - 1) // the first whole huge page
	flags, err := vmFlags(mid)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the array's mapping is not marked for huge pages: VmFlags %q", flags)
	}
}

// vmFlags reads the VmFlags of the mapping that holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		// A mapping's first line starts with its range; its details with
		// "Name:".
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(addr) >= a && uint64(addr) < b
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}
