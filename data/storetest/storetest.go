// Package storetest holds what tests of the store and of the packages
// around it share: a database's tables in a form two states can be compared
// by, and the fixtures' paths.
package storetest

import (
	"crypto/md5"
	"database/sql"
	"slices"

	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/internal/ztext"
)

// ContentState is every table's row count and a hash of its rows, the
// generation columns and import times aside: two stores (or a store and
// the lake it wrote) with the same data give the same state.
func ContentState(t testing.TB, db *sql.DB) map[string]string {
	t.Helper()
	rows, err := db.Query(`SELECT table_name, list(column_name) FROM duckdb_columns() WHERE NOT internal GROUP BY table_name ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for rows.Next() {
		var name string
		var cols []any
		if err := rows.Scan(&name, &cols); err != nil {
			t.Fatal(err)
		}
		if name == "audit_transcripts" {
			continue // transcriptsState
		}
		var keep []string
		for _, c := range cols {
			switch c := c.(string); {
			case c == "gen", c == "import_id", c == "imported_at", c == "applied_at", name == "imports" && c == "id":
			default:
				keep = append(keep, `"`+c+`"`)
			}
		}
		x := "(" + strings.Join(keep, ", ") + ")::VARCHAR"
		parts = append(parts, fmt.Sprintf(`SELECT '%s', count(*)::VARCHAR || ' ' || coalesce(md5(string_agg(%s, chr(10) ORDER BY %s)), '-') FROM "%s"`, name, x, x, name))
	}
	rows.Close()
	out := states(t, db, parts)
	out["audit_transcripts"] = transcriptsState(t, db)
	return out
}

// transcriptsState is ContentState's entry for audit_transcripts: each
// transcript's text, whether the store keeps it compressed (zjson) or as
// text (json, as before migration 008 and in a lake's views).
func transcriptsState(t testing.TB, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT experiment, audit, json, zjson FROM audit_transcripts`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var exp, audit string
		var text sql.NullString
		var z []byte
		if err := rows.Scan(&exp, &audit, &text, &z); err != nil {
			t.Fatal(err)
		}
		if z != nil {
			b, err := ztext.Decompress(z)
			if err != nil {
				t.Fatalf("transcript of %s:%s: %v", exp, audit, err)
			}
			text.String = string(b)
		}
		lines = append(lines, exp+"\x00"+audit+"\x00"+text.String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		return "0 -"
	}
	slices.Sort(lines)
	return fmt.Sprintf("%d %x", len(lines), md5.Sum([]byte(strings.Join(lines, "\n"))))
}

// TableState describes every table of a database: its row count and, with
// withHash, an md5 of its rows (each row cast to text, sorted), so two
// states are equal only when every table holds the same rows.
func TableState(t testing.TB, db *sql.DB, withHash bool) map[string]string {
	t.Helper()
	rows, err := db.Query(`SELECT table_name FROM duckdb_tables() WHERE NOT internal AND NOT temporary ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if len(tables) == 0 {
		t.Fatal("no tables")
	}
	// One statement for all tables: the table names come from the catalog.
	parts := make([]string, len(tables))
	for i, name := range tables {
		what := `count(*)::VARCHAR`
		if withHash {
			what = `count(*)::VARCHAR || ' ' || coalesce(md5(string_agg(x::VARCHAR, chr(10) ORDER BY x::VARCHAR)), '-')`
		}
		parts[i] = fmt.Sprintf(`SELECT '%s', %s FROM "%s" AS x`, name, what, name)
	}
	return states(t, db, parts)
}

// states runs the per-table queries parts (each selecting a table's name
// and its state) as one statement.
func states(t testing.TB, db *sql.DB, parts []string) map[string]string {
	t.Helper()
	rows, err := db.Query(strings.Join(parts, " UNION ALL "))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, v string
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		out[name] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Fixture names a real file copied into the repository: "annotated-pairs"
// files are the ones the demo embeds (data/demo/fixtures), the others sit
// in testdata/fixtures at the repository root. Each folder's README names
// the source and licence.
func Fixture(t testing.TB, kind, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data := filepath.Join(filepath.Dir(file), "..") // this file is in data/storetest
	dir := filepath.Join(data, "..", "testdata", "fixtures", kind)
	if kind == "annotated-pairs" {
		dir = filepath.Join(data, "demo", "fixtures")
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return p
}
