package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/demo"
)

// The child process of BenchmarkImportMemory: these name its database and
// input.
const (
	memChildDB    = "AUDITSCOPE_MEM_CHILD_DB"
	memChildInput = "AUDITSCOPE_MEM_CHILD_INPUT"
)

// BenchmarkImportMemory runs `auditscope import` of a ~150 MB AnnotatedPairs
// file in a child process and reports its peak memory against the file's
// size: peak-RSS-MB is the kernel's high-water mark of resident memory
// (VmHWM), which includes the ~50 MB of program code mapped from the binary;
// peak-anon-MB is the peak of memory the import allocated (RssAnon: Go's heap
// and DuckDB's), sampled every millisecond. A child keeps the test binary's
// own allocations out of the numbers.
//
// The input is AUDITSCOPE_BENCH_AP, or else a file written once by the
// project's generator (auditscope demo --pairs 50000 --traits 40 --seed 5,
// 138 MiB) into the system's temporary folder.
func BenchmarkImportMemory(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/self/status")
	}
	input := os.Getenv("AUDITSCOPE_BENCH_AP")
	if input == "" {
		input = generatedAP(b, 50000)
	}
	st, err := os.Stat(input)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	var hwm, anon int64
	for b.Loop() {
		db := filepath.Join(b.TempDir(), "mem.duckdb")
		cmd := exec.Command(os.Args[0], "-test.run=^TestImportMemoryChild$")
		cmd.Env = append(os.Environ(), memChildDB+"="+db, memChildInput+"="+input)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		h, a, err := parsePeaks(out)
		if err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		hwm, anon = max(hwm, h), max(anon, a)
	}
	fileMB := float64(st.Size()) / (1 << 20)
	b.ReportMetric(fileMB, "file-MB")
	b.ReportMetric(float64(hwm)/1024, "peak-RSS-MB")
	b.ReportMetric(float64(anon)/1024, "peak-anon-MB")
	b.ReportMetric(float64(hwm)/1024/fileMB, "RSS/file")
}

// TestImportMemoryChild is BenchmarkImportMemory's child; it does nothing in
// a normal test run.
func TestImportMemoryChild(t *testing.T) {
	db, input := os.Getenv(memChildDB), os.Getenv(memChildInput)
	if db == "" || input == "" {
		t.Skip("the child process of BenchmarkImportMemory")
	}
	var peakAnon atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if _, a, err := procStatus(); err == nil && a > peakAnon.Load() {
				peakAnon.Store(a)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"import", "--db", db, input}, &out, &errb)
	close(stop)
	<-done
	if err != nil {
		t.Fatalf("import: %v\n%s", err, errb.String())
	}
	hwm, _, err := procStatus()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("peaks vmhwm=%d anon=%d\n", hwm, peakAnon.Load())
}

// procStatus reads this process's resident high-water mark and current
// anonymous resident memory, in KiB.
func procStatus() (hwm, anon int64, err error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmHWM":
			hwm = n
		case "RssAnon":
			anon = n
		}
	}
	return hwm, anon, sc.Err()
}

func parsePeaks(out []byte) (hwm, anon int64, err error) {
	for line := range strings.Lines(string(out)) {
		if _, err := fmt.Sscanf(line, "peaks vmhwm=%d anon=%d", &hwm, &anon); err == nil {
			return hwm, anon, nil
		}
	}
	return 0, 0, fmt.Errorf("no peaks line in the child's output")
}

// generatedAP returns an AnnotatedPairs file of n comparisons × 40 traits
// (seed 5), writing it with demo.ScaleAnnotatedPairs the first time.
func generatedAP(b *testing.B, n int) string {
	b.Helper()
	o := demo.ScaleOptions{Comparisons: n, Traits: 40, Seed: 5}
	dir := filepath.Join(os.TempDir(), "auditscope-bench")
	path := filepath.Join(dir, demo.ScaleFileName(o))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := writeFileAtomic(path, func(w io.Writer) error { return demo.ScaleAnnotatedPairs(w, o) }); err != nil {
		b.Fatal(err)
	}
	return path
}
