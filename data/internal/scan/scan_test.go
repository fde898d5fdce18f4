package scan

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestAll reads rows into values and into structs (with a field set by
// dest), and names what it read in its errors.
func TestAll(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ns, err := All(ctx, db, "numbers", "SELECT range::INTEGER FROM range(?)", []any{3}, func(n *int32) []any { return []any{n} })
	if err != nil || !slices.Equal(ns, []int32{0, 1, 2}) {
		t.Fatalf("numbers %v, %v; want 0 1 2", ns, err)
	}
	type row struct {
		N    int64
		Name string
		Tag  string
	}
	rs, err := All(ctx, db, "rows", "SELECT range, 'r' || range FROM range(2)", nil, func(r *row) []any {
		r.Tag = "set"
		return []any{&r.N, &r.Name}
	})
	if err != nil || len(rs) != 2 || rs[1] != (row{1, "r1", "set"}) {
		t.Fatalf("rows %+v, %v", rs, err)
	}
	if _, err := All(ctx, db, "data: nothing", "SELECT * FROM no_such_table", nil, func(n *int) []any { return []any{n} }); err == nil || !strings.HasPrefix(err.Error(), "data: nothing: ") {
		t.Errorf("a bad query: %v, want an error that says what was read", err)
	}
	_, err = All(ctx, db, "data: text", "SELECT 'x'", nil, func(n *int) []any { return []any{n} })
	if err == nil || !strings.HasPrefix(err.Error(), "data: text: ") || errors.Unwrap(err) == nil {
		t.Errorf("a row that does not scan: %v", err)
	}
}
