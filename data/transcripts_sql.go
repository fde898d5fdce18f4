package data

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/auditscope/auditscope/data/internal/ztext"
)

// transcriptText is the SQL function that gives a stored transcript's JSON
// text: DuckDB cannot read the S2 blocks the import stores (migration 008),
// so the lake's writer, which copies transcripts to Parquet as text for
// every engine to read, decompresses them through it.
const transcriptText = "auditscope_transcript"

// transcriptJSON is the expression of audit_transcripts' rows' text.
const transcriptJSON = `coalesce(json, ` + transcriptText + `(zjson))`

// uncompress is transcriptText: BLOB (a ztext block) to VARCHAR.
type uncompress struct{}

func (uncompress) Config() duckdb.ScalarFuncConfig {
	blob, _ := duckdb.NewTypeInfo(duckdb.TYPE_BLOB)
	text, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{blob}, ResultTypeInfo: text}
}

func (uncompress) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		z, ok := values[0].([]byte)
		if !ok {
			return nil, fmt.Errorf("%s: want a BLOB, got %T", transcriptText, values[0])
		}
		b, err := ztext.Decompress(z)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	}}
}

// withTranscriptText runs fn on a connection of the store's on which
// transcriptText is defined.
func (s *Store) withTranscriptText(ctx context.Context, fn func(*sql.Conn) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var n int
	// Defined once on a connection, which the pool may hand out again.
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_functions() WHERE function_name = ?`, transcriptText).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if err := duckdb.RegisterScalarUDF(conn, transcriptText, uncompress{}); err != nil {
			return fmt.Errorf("data: %s: %w", transcriptText, err)
		}
	}
	return fn(conn)
}
