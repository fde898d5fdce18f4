package imports

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestRollbackConn: rollback ends an open transaction and leaves a
// connection without one as it is; either way the next BEGIN on it works
// (a connection left inside a transaction failed a later import with
// "cannot start a transaction within a transaction", found by the fuzzer).
func TestRollbackConn(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		t.Fatal(err)
	}
	rollback(conn)
	rollback(conn) // none open now: not an error, the connection stays
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		t.Fatalf("BEGIN after rollback: %v", err)
	}
	rollback(conn)
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the connection after rollback: %d, %v", n, err)
	}
}
