package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseBench(t *testing.T) {
	out := `goos: linux
BenchmarkPairsTable-2          	      10	  12345678 ns/op
BenchmarkFigures100k/scores-2  	      10	   4500000 ns/op	  12 B/op
BenchmarkImport-2   1   2.5e+09 ns/op
PASS`
	got := parseBench(out)
	if got["PairsTable"] != 12345678 || got["Figures100k/scores"] != 4500000 {
		t.Errorf("parseBench = %v", got)
	}
}

func TestParseLoad(t *testing.T) {
	p99, errs, _ := parseLoad("requests 100 errors 2 in 10s (10 req/s): p50 1ms p90 2ms p99 120.5ms max 300ms\n")
	if p99 != 120500*time.Microsecond || errs != 2 {
		t.Errorf("parseLoad = %v, %d", p99, errs)
	}
}

func TestMedianImport(t *testing.T) {
	runs := []importRun{{wall: 3 * time.Second, rssMB: 100}, {wall: time.Second, rssMB: 250, anonMB: 80}, {wall: 2 * time.Second, rssMB: 120, anonMB: 90}}
	m := medianImport(runs)
	if m.wall != 2*time.Second || m.rssMB != 250 || m.anonMB != 90 {
		t.Errorf("medianImport = %+v, want 2 s with the largest memory (250, 90)", m)
	}
	if runs[0].wall != time.Second || runs[2].wall != 3*time.Second {
		t.Errorf("runs not sorted by time: %+v", runs)
	}
}

func TestFFAvailable(t *testing.T) {
	err := ffAvailable(context.Background(), filepath.Join(t.TempDir(), "no-python"))
	if err == nil || !strings.Contains(err.Error(), "no-python") || !strings.Contains(err.Error(), "-ff-python") {
		t.Errorf("ffAvailable without a python = %v; want an error naming it and the flag", err)
	}
}
