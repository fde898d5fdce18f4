// Package peakmem is for tests that hold a child process's memory under a
// bound: the child reports its own high-water mark (Linux's VmHWM), which
// the parent reads from its output. The rusage a parent gets for a child
// (wait4's ru_maxrss) also counts the parent's memory, which the child
// shares between Go's vfork and its exec: a parent that held the demo made
// a child that peaked at 560 MiB read as 1,093 MiB.
package peakmem

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

const prefix = "peakmem VmHWM:"

// Report writes the process's peak resident memory to w, a line of its
// own; nothing where /proc is not there.
func Report(w io.Writer) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			fmt.Fprintln(w, prefix+v)
		}
	}
}

var line = regexp.MustCompile(`(?m)^` + prefix + `\s+(\d+) kB\n?`)

// Read finds a child's report in its output: the peak in bytes, and the
// output without the report's line.
func Read(out []byte) (peak int64, rest string, err error) {
	m := line.FindSubmatchIndex(out)
	if m == nil {
		return 0, string(out), errors.New("the child did not report its peak memory")
	}
	kb, err := strconv.ParseInt(string(out[m[2]:m[3]]), 10, 64)
	return kb << 10, string(out[:m[0]]) + string(out[m[1]:]), err
}
