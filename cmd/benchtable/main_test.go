package main

import (
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
