package data

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// dbState describes every table of the store: its row count and, with
// withHash, an md5 of its rows (each row cast to text, sorted), so two
// states are equal only when every table holds the same rows.
func dbState(t testing.TB, s *Store, withHash bool) map[string]string {
	t.Helper()
	rows, err := s.db.Query(`SELECT table_name FROM duckdb_tables() WHERE NOT internal AND NOT temporary ORDER BY table_name`)
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
	rows, err = s.db.Query(strings.Join(parts, " UNION ALL "))
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

func sameState(a, b map[string]string) bool {
	return diffState(a, b) == ""
}

// diffState lists the tables whose state differs.
func diffState(before, after map[string]string) string {
	var diffs []string
	for k, v := range before {
		if after[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: %q before, %q after", k, v, after[k]))
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: new table (%q)", k, v))
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}
