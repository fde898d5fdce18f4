package data

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestStorageVersion: a database file the store creates is written in
// storageVersion's format (its newer compression); one made before, in
// DuckDB's default format, keeps that format when the store opens it and
// imports into it.
func TestStorageVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	version := func(db *sql.DB) string {
		t.Helper()
		var tags string
		if err := db.QueryRow(`SELECT tags::VARCHAR FROM duckdb_databases() WHERE database_name = current_database()`).Scan(&tags); err != nil {
			t.Fatal(err)
		}
		return tags
	}

	fresh := filepath.Join(dir, "new.duckdb")
	s, err := Open(ctx, Options{Path: fresh})
	if err != nil {
		t.Fatal(err)
	}
	if got := version(s.DB()); !strings.Contains(got, storageVersion) {
		t.Errorf("a new file's storage: %s, want %s", got, storageVersion)
	}
	s.Close()

	// A file DuckDB made in its default format, as the builds before did.
	old := filepath.Join(dir, "old.duckdb")
	raw, err := sql.Open("duckdb", old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	before := version(raw)
	raw.Close()
	if strings.Contains(before, storageVersion) {
		t.Fatalf("DuckDB's default format is %s: this test no longer tells the two apart", before)
	}
	s, err = Open(ctx, Options{Path: old})
	if err != nil {
		t.Fatal(err)
	}
	if got := version(s.DB()); got != before {
		t.Errorf("an older file's storage after Open: %s, want it kept (%s)", got, before)
	}
	s.Close()
}
