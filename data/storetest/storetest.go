// Package storetest holds what tests of the store and of the packages
// around it share: a database's tables in a form two states can be compared
// by, and the fixtures' paths.
package storetest

import (
	"crypto/md5"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/internal/load"
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
		from := `"` + name + `"`
		if name == "audit_scores" {
			// A store keeps the scores of dimensions with a score column
			// there alone; a lake has them in audit_scores.
			from = "(" + load.AllScores("true") + ")"
		}
		var keep []string
		for _, c := range cols {
			switch c := c.(string); {
			case c == "gen", c == "import_id", c == "imported_at", c == "applied_at", name == "imports" && c == "id":
			// The score columns are the store's index of the scores, which
			// a lake leaves out (data's TestScoreColumns checks them).
			case name == "audits" && strings.HasPrefix(c, "score_"), name == "experiment_dimensions" && c == "slot":
			default:
				keep = append(keep, `"`+c+`"`)
			}
		}
		x := "(" + strings.Join(keep, ", ") + ")::VARCHAR"
		parts = append(parts, fmt.Sprintf(`SELECT '%s', count(*)::VARCHAR || ' ' || coalesce(md5(string_agg(%s, chr(10) ORDER BY %s)), '-') FROM %s`, name, x, x, from))
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

// CheckScoreColumns checks that every dimension with a score column holds
// each audit's score in that column, as its scores JSON has it, and that no
// audit has a value in a column its experiment gave no dimension.
func CheckScoreColumns(t testing.TB, db *sql.DB) {
	t.Helper()
	rows, err := db.Query(`SELECT experiment, dimension, min(slot), max(slot), count(*) - count(slot) FROM experiment_dimensions GROUP BY ALL ORDER BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	type slot struct {
		exp, dim string
		n        int
	}
	var slotted []slot
	used := map[string]map[int]bool{}
	for rows.Next() {
		var s slot
		var lo, hi sql.NullInt64
		var unslotted int
		if err := rows.Scan(&s.exp, &s.dim, &lo, &hi, &unslotted); err != nil {
			t.Fatal(err)
		}
		switch {
		case lo.Valid && (unslotted > 0 || lo != hi):
			t.Fatalf("%s %s: columns %v to %v, %d rows without: a dimension has one column or none", s.exp, s.dim, lo, hi, unslotted)
		case lo.Valid:
			s.n = int(lo.Int64)
			slotted = append(slotted, s)
			if used[s.exp] == nil {
				used[s.exp] = map[int]bool{}
			}
			if used[s.exp][s.n] {
				t.Fatalf("%s: column %d holds two dimensions", s.exp, s.n)
			}
			used[s.exp][s.n] = true
		}
	}
	rows.Close()
	// The scores of a dimension with a column are there alone: a lake
	// writes them out of it into its audit_scores, which would hold them
	// twice.
	var twice int
	if err := db.QueryRow(`SELECT count(*) FROM audit_scores s SEMI JOIN experiment_dimensions d
		ON d.experiment = s.experiment AND d.dimension = s.dimension AND d.slot IS NOT NULL`).Scan(&twice); err != nil {
		t.Fatal(err)
	}
	if twice > 0 {
		t.Fatalf("audit_scores has %d scores of dimensions with a score column", twice)
	}
	for _, s := range slotted {
		var n int
		col := "score_" + strconv.Itoa(s.n)
		if err := db.QueryRow(`SELECT count(*) FROM audits WHERE experiment = ? AND `+col+` IS DISTINCT FROM TRY_CAST(json_extract_string(scores, ?) AS DOUBLE)`,
			s.exp, `$."`+s.dim+`"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			t.Fatalf("%s: %d audits whose %s is not their %s score", s.exp, n, col, s.dim)
		}
	}
	for exp, u := range used {
		for i := range 48 {
			if u[i] {
				continue
			}
			var n int
			if err := db.QueryRow(`SELECT count(score_`+strconv.Itoa(i)+`) FROM audits WHERE experiment = ?`, exp).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				t.Fatalf("%s: %d audits have a value in score_%d, which no dimension has", exp, n, i)
			}
		}
	}
}
