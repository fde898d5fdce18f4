package data

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkImportAnnotatedPairs imports the file AUDITSCOPE_BENCH_AP names
// (task bench writes one with gen_ap.py: 50,000 comparisons × 40 traits,
// 141 MB) into a new database file per iteration, and reports the process's
// peak resident memory. Run it alone for a meaningful peak.
func BenchmarkImportAnnotatedPairs(b *testing.B) {
	path := os.Getenv("AUDITSCOPE_BENCH_AP")
	if path == "" {
		b.Skip("set AUDITSCOPE_BENCH_AP to an AnnotatedPairs file (task bench makes one with gen_ap.py)")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(st.Size())
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		s, err := Open(ctx, Options{Path: filepath.Join(b.TempDir(), "bench.duckdb")})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.ImportAnnotatedPairs(ctx, path, ImportOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
	}
}
