package data

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/duckdb/duckdb-go/v2"
)

// EngineVersion is the linked DuckDB library's version and source id
// (auditscope version), read from an in-memory database of its own.
func EngineVersion(ctx context.Context) (string, error) {
	c, err := duckdb.NewConnector("", nil)
	if err != nil {
		return "", fmt.Errorf("duckdb: %w", err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	var version, source string
	if err := db.QueryRowContext(ctx, `SELECT library_version, source_id FROM pragma_version()`).Scan(&version, &source); err != nil {
		return "", fmt.Errorf("duckdb: %w", err)
	}
	return version + " (" + source + ")", nil
}
