package data

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestMigrateGenerations opens a database written before generations
// existed (migrations 001 and 002 only): its rows take the generation of
// their dataset or experiment, and rows whose dataset is gone (the orphans
// a killed import used to leave) are removed.
func TestMigrateGenerations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`)
	for _, name := range []string{"migrations/001_init.sql", "migrations/002_dimensions.sql"} {
		body, err := migrationFS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		exec(string(body))
		exec(`INSERT INTO schema_migrations (name) VALUES (?)`, name)
	}
	exec(`INSERT INTO imports VALUES (1, 'annotated_pairs', 'd', 'd.json', 'h1', 3, '{}', now()), (2, 'bundle', 'e', 'e/', 'h2', 2, '{}', now())`)
	exec(`INSERT INTO ap_datasets VALUES ('d', 1, 'd', '', '2.0', 'annotated_pairs', NULL, '', false, 2, 2, 0, '[]')`)
	exec(`INSERT INTO ap_comparisons (dataset, idx, id, text_a, text_b, len_a, len_b, votes, prefs) VALUES
		('d', 0, 'c0', 'a', 'b', 1, 1, '[]', ''), ('d', 1, 'c1', 'a', 'b', 1, 1, '[]', ''), ('gone', 0, 'x', 'a', 'b', 1, 1, '[]', '')`)
	exec(`INSERT INTO experiments VALUES ('e', 2, 'e', '', false, 'bundle')`)
	exec(`INSERT INTO metrics VALUES ('e', 'r', 1, 'loss', 0.5), ('lost', 'r', 1, 'loss', 0.5)`)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for q, want := range map[string]int64{
		`SELECT count(*) FROM ap_comparisons WHERE gen = 1`:    2,
		`SELECT count(*) FROM ap_comparisons`:                  2,
		`SELECT count(*) FROM metrics WHERE gen = 2`:           1,
		`SELECT count(*) FROM metrics`:                         1,
		`SELECT count(*) FROM experiments WHERE import_id = 2`: 1,
		`SELECT count(*) FROM ap_datasets WHERE import_id = 1`: 1,
		`SELECT count(*) FROM imports`:                         2,
		`SELECT count(*) FROM duckdb_constraints() WHERE table_name IN ('ap_datasets', 'experiments') AND constraint_type = 'PRIMARY KEY'`: 0,
	} {
		if got := count(t, s, q); got != want {
			t.Errorf("%s: %d, want %d", q, got, want)
		}
	}
}

// TestIncompleteGenerations: rows of an import that was never marked
// complete are removed by a read-write open and refused by a read-only one;
// a generation superseded by a newer one of the same name is removed with
// its imports row.
func TestIncompleteGenerations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.duckdb")
	s, err := Open(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, "testdata/bundle-small", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	want := dbState(t, s, true)
	// What a kill between an import's commit and its marker leaves: rows
	// of generation 99, which has no imports row.
	for _, q := range []string{
		`INSERT INTO experiments VALUES ('small', 99, 'x', '', false, 'bundle')`,
		`INSERT INTO audits SELECT * REPLACE (99 AS gen) FROM audits`,
		`INSERT INTO metrics VALUES ('half', 'r', 1, 'loss', 0.5, 99)`,
	} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Options{Path: path, ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Fatalf("read-only open of a database with an unfinished import: %v", err)
	}
	s, err = Open(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if got := dbState(t, s, true); !sameState(want, got) {
		t.Errorf("after the open: %s", diffState(want, got))
	}

	// A superseded generation: a second complete import of the same name
	// (what a kill between a --replace's marker and its clean-up leaves).
	var gen int64
	if err := s.db.QueryRow(`SELECT import_id FROM experiments WHERE id = 'small'`).Scan(&gen); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO imports SELECT * REPLACE (id + 100 AS id, 'other' AS hash) FROM imports`,
		`INSERT INTO experiments SELECT * REPLACE (import_id + 100 AS import_id) FROM experiments`,
		`INSERT INTO audits SELECT * REPLACE (gen + 100 AS gen, 'new' AS summary) FROM audits`,
	} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = Open(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := count(t, s, `SELECT count(*) FROM audits WHERE summary <> 'new' OR gen <> ?`, gen+100); n != 0 {
		t.Errorf("%d audits of the superseded generation remain", n)
	}
	if n := count(t, s, `SELECT count(*) FROM imports WHERE id = ?`, gen); n != 0 {
		t.Errorf("the superseded imports row remains")
	}
	if n := count(t, s, `SELECT count(*) FROM experiments`); n != 1 {
		t.Errorf("%d experiments rows, want 1", n)
	}
}

// TestSpillFolderRemoved: the spill folder a killed import left beside the
// database is removed when the database is next opened read-write.
func TestSpillFolderRemoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.duckdb")
	if err := os.MkdirAll(path+".tmp", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path+".tmp", "duckdb_temp_storage-0.tmp"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(filepath.Join(path+".tmp", "duckdb_temp_storage-0.tmp")); !os.IsNotExist(err) {
		t.Errorf("the old spill file is still there: %v", err)
	}
}

// TestImportRowsRecorded: the imports row carries the row count the import
// reports (it used to be copied before the importer had counted, so 0).
func TestImportRowsRecorded(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, path := range []string{"testdata/bundle-small", fixture(t, "annotated-pairs", "icai-example-v2-models.json")} {
		rs, err := s.Import(ctx, path, ImportOptions{})
		if err != nil || len(rs) != 1 {
			t.Fatal(rs, err)
		}
		r := rs[0]
		if r.Rows <= 0 {
			t.Fatalf("%s: import reports %d rows", path, r.Rows)
		}
		if got := count(t, s, `SELECT rows FROM imports WHERE name = ?`, r.Name); int64(got) != r.Rows {
			t.Errorf("%s: imports.rows = %d, the import reported %d", path, got, r.Rows)
		}
	}
}
