package main

import (
	"context"
	"database/sql"
	"os"
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

// TestReadJSON runs the read-json child's work on a small JSONL file: the
// table it makes holds the file's rows, so the time benchtable prints
// beside the import's is a real read.
func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	file, db := filepath.Join(dir, "audits.jsonl"), filepath.Join(dir, "r.duckdb")
	if err := os.WriteFile(file, []byte(`{"id": "a1", "turns": 3, "transcript": {"metadata": {"transcript_id": "a1"}}}`+"\n"+`{"id": "a2", "turns": 5}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := readJSON(db, file); err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("duckdb", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n, turns int
	if err := conn.QueryRow(`SELECT count(*), sum(turns) FROM audits`).Scan(&n, &turns); err != nil {
		t.Fatal(err)
	}
	if n != 2 || turns != 8 {
		t.Errorf("read_json made %d rows, turns summing to %d; want 2 and 8", n, turns)
	}
}
