package data

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkImportAnnotatedPairs imports the file AUDITSCOPE_BENCH_AP names
// (task bench writes one with `auditscope demo --pairs 50000 --traits 40
// --seed 5`, 138 MiB) into a new database file per iteration. Its peak memory is
// measured in a process of its own by cmd/auditscope's BenchmarkImportMemory.
func BenchmarkImportAnnotatedPairs(b *testing.B) {
	path := os.Getenv("AUDITSCOPE_BENCH_AP")
	if path == "" {
		b.Skip("set AUDITSCOPE_BENCH_AP to an AnnotatedPairs file (auditscope demo --pairs 50000 --traits 40 --seed 5 --out FILE makes one)")
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
}

// BenchmarkImportBundle imports the bundle folder AUDITSCOPE_BENCH_BUNDLE
// names (`auditscope demo --audits 100000 --out B` writes the 100k one, 767
// MB) into a new database file per iteration. benchtable -import-bundle
// times the same import as a command beside DuckDB's own read_json.
func BenchmarkImportBundle(b *testing.B) {
	path := os.Getenv("AUDITSCOPE_BENCH_BUNDLE")
	if path == "" {
		b.Skip("set AUDITSCOPE_BENCH_BUNDLE to a bundle folder (auditscope demo --audits 100000 --out DIR makes one)")
	}
	st, err := os.Stat(filepath.Join(path, "audits.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(st.Size())
	for b.Loop() {
		b.StopTimer()
		s, err := Open(ctx, Options{Path: filepath.Join(b.TempDir(), "bench.duckdb")})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.ImportBundleFile(ctx, path, ImportOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
