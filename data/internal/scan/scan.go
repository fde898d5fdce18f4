// Package scan reads a query's rows into a slice: the loop every store
// read had written out (query, scan each row, append, check rows.Err),
// once. A read whose rows need more than their columns (rows that group,
// skip or build maps) keeps its own loop.
package scan

import (
	"context"
	"database/sql"
	"fmt"
)

// Querier is what a read runs on: a database or a connection.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// All runs query with args on q and scans each row into a new T through
// the destinations dest gives for it (dest may also set fields the query
// does not read). An error says what was read: "what: err".
func All[T any](ctx context.Context, q Querier, what, query string, args []any, dest func(*T) []any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(dest(&v)...); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
