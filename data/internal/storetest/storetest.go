// Package storetest holds what tests of the store and of the packages
// around it share: a database's content in a form two stores can be
// compared by.
package storetest

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
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
	rows, err = db.Query(strings.Join(parts, " UNION ALL "))
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
	return out
}
