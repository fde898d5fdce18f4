package data

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
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

// TestSaveCopy: an in-memory store saved to a file opens read-only with
// the same audits and datasets; a copy that fails leaves no file behind.
// (The demo's transcripts, served from memory, are checked on the copy by
// cmd/auditscope's TestDemoKeptBetweenStarts.)
func TestSaveCopy(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(ctx, fixture(t, "annotated-pairs", "icai-example-v2-models.json"), ImportOptions{Name: "one"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, filepath.Join("testdata", "bundle-small"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	want, err := s.ListAudits(ctx, AuditFilter{}, 0, 1000)
	if err != nil || len(want) == 0 {
		t.Fatalf("audits before the copy: %d, %v", len(want), err)
	}
	path := filepath.Join(t.TempDir(), "copy.duckdb")
	if err := s.SaveCopy(ctx, path); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(path + ".*"); len(left) > 0 {
		t.Errorf("partial files are left: %v", left)
	}
	ro, err := Open(ctx, Options{Path: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.ListAudits(ctx, AuditFilter{}, 0, 1000)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("the copy's audits differ (%v):\n%v\nwant\n%v", err, got, want)
	}
	sum, err := ro.Summary(ctx)
	if err != nil || len(sum.Datasets) != 1 || len(sum.Experiments) != 1 {
		t.Errorf("the copy's summary: %+v, %v", sum, err)
	}
	// Into a folder that is not there: an error, and nothing written.
	bad := filepath.Join(t.TempDir(), "no", "such", "copy.duckdb")
	if err := s.SaveCopy(ctx, bad); err == nil {
		t.Error("a copy into a missing folder succeeded")
	}
	if m, _ := filepath.Glob(filepath.Dir(bad) + "/*"); len(m) > 0 {
		t.Errorf("a failed copy left %v", m)
	}
	if err := ro.SaveCopy(ctx, path+"2"); err == nil {
		t.Error("a file store copied itself")
	}
}
