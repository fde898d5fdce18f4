package peakmem

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// TestReport: a process's report reads back as its peak, and the rest of
// the output is left as it was.
func TestReport(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	var b bytes.Buffer
	b.WriteString("imported\n")
	Report(&b)
	b.WriteString("done\n")
	peak, rest, err := Read(b.Bytes())
	if err != nil || peak < 1<<20 || rest != "imported\ndone\n" {
		t.Errorf("peak %d, rest %q, %v", peak, rest, err)
	}
	if _, _, err := Read([]byte("no report\n")); err == nil || !strings.Contains(err.Error(), "did not report") {
		t.Errorf("output without a report: %v", err)
	}
}
