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

// TestTranscriptsStoredAsIs: a new file keeps the transcripts' S2 blocks as
// they are (migration 008), not compressed again by DuckDB on the import's
// appending thread. The audits repeat one transcript, which DuckDB's
// dictionary compression would take if it were allowed to.
func TestTranscriptsStoredAsIs(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "t.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(ctx, manyAudits(t, 3000, func(_ int, l string) string { return l }), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`CHECKPOINT`); err != nil {
		t.Fatal(err)
	}
	rows, err := s.DB().Query(`SELECT compression, count(*) FROM pragma_storage_info('audit_transcripts')
		WHERE column_name = 'zjson' AND segment_type <> 'VALIDITY' GROUP BY ALL ORDER BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var c string
		var n int
		if err := rows.Scan(&c, &n); err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if strings.Join(got, ",") != "Uncompressed" {
		t.Errorf("zjson's segments are stored as %v, want Uncompressed only", got)
	}
}
