package imports

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
)

// ErrCommit marks an import that failed at its commit.
var ErrCommit = errors.New("commit")

// Tx is one import: a single connection inside one transaction, so the
// Appender's rows and the plain statements commit or roll back together.
// Every row it writes carries its generation, gen (see generations.go).
type Tx struct {
	ctx        context.Context
	w          *Writer
	conn       *sql.Conn
	rows       int64
	gen        int64
	marker     *marker // the imports row, written after the commit
	superseded []int64 // generations a --replace deletes once marked
	// source is the input as the imports row records it, for the claim's
	// message when its name holds another input; as, when set, is what it
	// is recorded as instead (SourceAs).
	source, as string
}

// marker is an imports row: written once the import's rows have
// committed, it marks the generation complete.
type marker struct {
	kind, name, source, hash string
	base                     *int64              // the full import an append extends
	result                   *model.ImportResult // for Rows, known only at the end
	detail                   string
	at                       time.Time
	// onMark are statements run in the transaction that writes the
	// imports row (OnMark).
	onMark []statement
}

// statement is a query and its arguments.
type statement struct {
	query string
	args  []any
}

// OnMark runs a statement on rows that are not the import's own (the
// experiment's row an append describes anew) in the same transaction as
// the imports row that marks the import complete: both land, or a kill
// before the mark leaves neither (the import's own rows are removed at
// the next Open; a change made beside them in its transaction would stay).
// It needs Record to have been called.
func (tx *Tx) OnMark(query string, args ...any) {
	tx.marker.onMark = append(tx.marker.onMark, statement{query, args})
}

// Run runs fn inside one transaction on one connection and commits only
// if fn succeeds. When fn recorded an import (tx.Record), the imports row
// follows in a transaction of its own, and then the generations it
// supersedes are deleted.
func (w *Writer) Run(ctx context.Context, fn func(tx *Tx) error) (err error) {
	if w.ReadOnly() {
		return ErrReadOnly
	}
	conn, err := w.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("data: import: %w", err)
	}
	defer conn.Close()
	tx := &Tx{ctx: ctx, w: w, conn: conn}
	if err := conn.QueryRowContext(ctx, `SELECT nextval('import_ids')`).Scan(&tx.gen); err != nil {
		return fmt.Errorf("data: import: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		// A cancel that lands while BEGIN runs can leave it begun: the
		// connection must not go back to the pool inside a transaction.
		rollback(conn)
		return fmt.Errorf("data: import: begin: %w", err)
	}
	committed := false
	defer func() {
		if committed {
			return
		}
		if p := recover(); p != nil {
			rollback(conn)
			panic(p)
		}
		if err != nil {
			rollback(conn)
		}
	}()
	if err := fn(tx); err != nil {
		// A signal can land in any statement: DuckDB then says only
		// "Interrupted!". The import was cancelled, and says so.
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			return fmt.Errorf("%w (%v)", cerr, err)
		}
		return err
	}
	// Readers (View) wait from the commit until the generation is marked and
	// what it replaces is gone.
	defer w.Land()()
	if _, cerr := conn.ExecContext(ctx, "COMMIT"); cerr != nil {
		rollback(conn)
		return fmt.Errorf("data: import: %w: %w", ErrCommit, cerr)
	}
	committed = true
	if tx.marker == nil {
		return nil
	}
	if b := batchOf(ctx); b != nil {
		// Marked with the rest of its batch (batch.go).
		b.mu.Lock()
		b.landed = append(b.landed, batchImport{gen: tx.gen, marker: tx.marker, superseded: tx.superseded})
		b.mu.Unlock()
		return nil
	}
	defer w.Landed(tx.marker.name)
	// From here on the rows are committed but not yet visible as an import:
	// a kill leaves them to the next Open to remove. The context is not the
	// import's: a cancel now would only leave work for the next Open.
	bg := context.WithoutCancel(ctx)
	m := tx.marker
	if err := markOn(bg, conn, tx.gen, m); err != nil {
		if derr := w.drop(bg, []int64{tx.gen}); derr != nil {
			err = errors.Join(err, fmt.Errorf("its rows are removed when the database is next opened: %w", derr))
		}
		return fmt.Errorf("data: import: %w: record import: %w", ErrCommit, err)
	}
	if err := w.drop(bg, tx.superseded); err != nil {
		return fmt.Errorf("data: import %s landed, but the rows it replaces were not removed (they are when the database is next opened): %w", m.name, err)
	}
	return nil
}

func (tx *Tx) Exec(query string, args ...any) error {
	_, err := tx.conn.ExecContext(tx.ctx, query, args...)
	return err
}

// Tx is the load.Tx of the format packages' loaders.
var _ load.Tx = (*Tx)(nil)

func (tx *Tx) Gen() int64 { return tx.gen }

func (tx *Tx) Rows() int64 { return tx.rows }

func (tx *Tx) SetSource(name string) {
	if tx.as != "" {
		name = tx.as
	}
	tx.source = name
}

// SourceAs records the import's source as name, whatever the loader reads
// (a local copy of an object in a bucket is recorded as its URL, so the
// next import of that URL is the same input). "" changes nothing.
func (tx *Tx) SourceAs(name string) { tx.as = name }

// Appender opens an appender on a table (see appender).
func (tx *Tx) Appender(table string) (load.Appender, error) {
	a, err := tx.appender(table)
	if err != nil {
		return nil, err // not a nil *appender in a non-nil interface
	}
	return a, nil
}

// appender opens a DuckDB Appender on the import's connection.
func (tx *Tx) appender(table string) (*appender, error) {
	var a *duckdb.Appender
	err := tx.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		var err error
		a, err = duckdb.NewAppenderFromConn(c, "", table)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("appender %s: %w", table, err)
	}
	return &appender{a: a, tx: tx, table: table}, nil
}

// appender counts rows and wraps errors with the table name.
type appender struct {
	a        *duckdb.Appender
	tx       *Tx
	table    string
	n        int64
	buffered int64 // bytes of text appended since the last flush
}

// Row appends one Row; the generation column, last in every table an
// importer appends to, is added here.
func (a *appender) Row(values ...driver.Value) error {
	var size int64
	for _, v := range values {
		switch v := v.(type) {
		case string:
			size += int64(len(v))
		case []byte:
			size += int64(len(v))
		}
	}
	// DuckDB stores a long text in blocks of its size; under an import's
	// lowered memory limit a text of a few MiB would not fit.
	if size > bigRowBytes {
		if err := a.tx.w.Mem.Raise(a.tx.ctx, 32+3*size>>20); err != nil {
			return fmt.Errorf("append %s: %w", a.table, err)
		}
	}
	if err := a.a.AppendRow(append(values, a.tx.gen)...); err != nil {
		return fmt.Errorf("append %s: %w", a.table, err)
	}
	a.n++
	a.tx.rows++
	a.buffered += size
	// DuckDB's Appender buffers rows until it is flushed (by default some
	// 200,000 of them), outside its memory limit; flushing often hands them
	// to the table storage, which writes full row groups to disk.
	if a.n%appenderFlushRows == 0 || a.buffered > appenderFlushBytes {
		if err := a.a.Flush(); err != nil {
			return fmt.Errorf("append %s: %w", a.table, err)
		}
		a.buffered = 0
	}
	return nil
}

const (
	// appenderFlushRows and appenderFlushBytes bound what an appender
	// buffers: rows, and bytes of text.
	appenderFlushRows  = 4096
	appenderFlushBytes = 8 << 20
	// bigRowBytes is the text in one row past which an import's memory
	// limit is raised for it.
	bigRowBytes = 4 << 20
)

func (a *appender) Close() error {
	if a.a == nil {
		return nil
	}
	err := a.a.Close()
	a.a = nil
	if err != nil {
		return fmt.Errorf("append %s: %w", a.table, err)
	}
	return nil
}

// rollback ends conn's transaction on a fresh context (the import's may be
// cancelled). A connection it cannot roll back is discarded, not handed to
// the next import still inside a transaction ("cannot start a transaction
// within a transaction"); one with no transaction open is fine as it is.
func rollback(conn *sql.Conn) {
	_, err := conn.ExecContext(context.Background(), "ROLLBACK")
	if err == nil || strings.Contains(err.Error(), "no transaction is active") {
		return
	}
	conn.Raw(func(any) error { return driver.ErrBadConn })
}

// Conn is the transaction's connection, for the store's own statements
// within the import (what an append extends, a texts merge).
func (tx *Tx) Conn() *sql.Conn { return tx.conn }

// Context is the import's.
func (tx *Tx) Context() context.Context { return tx.ctx }

// AddRows counts n rows written by a statement rather than an appender.
func (tx *Tx) AddRows(n int64) { tx.rows += n }

// SetBase makes the import recorded (Record) an append to the full import
// base: live while base is, removed with it.
func (tx *Tx) SetBase(base int64) { tx.marker.base = &base }

// execer runs statements: a connection, a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// markOn writes m's imports row and runs its onMark statements, in one
// transaction when there are any.
func markOn(ctx context.Context, conn *sql.Conn, gen int64, m *marker) error {
	if len(m.onMark) == 0 {
		return insertMark(ctx, conn, gen, m)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := insertMark(ctx, tx, gen, m); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return nil
}

// insertMark writes the imports row and the statements that go with it.
func insertMark(ctx context.Context, e execer, gen int64, m *marker) error {
	if _, err := e.ExecContext(ctx, `INSERT INTO imports (id, kind, name, source, hash, rows, detail, imported_at, base) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		gen, m.kind, m.name, m.source, m.hash, m.result.Rows, m.detail, m.at, m.base); err != nil {
		return err
	}
	for _, st := range m.onMark {
		if _, err := e.ExecContext(ctx, st.query, st.args...); err != nil {
			return err
		}
	}
	return nil
}
