package data

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestReadOnly opens a database file read-only: reads work, imports are
// refused, and a missing file is an error rather than a new database.
func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ro.duckdb")
	s, err := Open(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, fixture(t, "annotated-pairs", "icai-example-v2-models.json"), ImportOptions{Name: "one"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro, err := Open(ctx, Options{Path: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	sum, err := ro.Summary(ctx)
	if err != nil || len(sum.Datasets) != 1 {
		t.Fatalf("read-only summary: %v, %v", sum, err)
	}
	_, err = ro.Import(ctx, fixture(t, "annotated-pairs", "icai-example.csv"), ImportOptions{Name: "two"})
	if !errors.Is(err, ErrReadOnly) {
		t.Errorf("import into a read-only store: %v, want ErrReadOnly", err)
	}
	if _, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "missing.duckdb"), ReadOnly: true}); err == nil {
		t.Error("opening a missing file read-only succeeded")
	}
}
