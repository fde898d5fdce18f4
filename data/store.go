// Package data owns auditscope's DuckDB store: the schema (numbered
// migrations), the importers that fill it and the queries the web pages run.
// Nothing outside this package writes SQL.
package data

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/internal/memlimit"
	"github.com/auditscope/auditscope/data/lake"
	"github.com/auditscope/auditscope/data/model"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// ErrNotFound is returned when a requested row does not exist; it is
// model's, so that layers above the store test for it without importing
// the store.
var ErrNotFound = model.ErrNotFound

// ErrExists is returned when an import would overwrite a dataset or
// experiment of the same name with different content and --replace was not
// given.
var ErrExists = load.ErrExists

// ErrReadOnly is returned by writes to a store opened read-only.
var ErrReadOnly = errors.New("database is read-only")

// Options configure Open.
type Options struct {
	// Path is the database file; empty means an in-memory database.
	Path string
	// ReadOnly opens the file read-only: no migrations, no imports.
	ReadOnly bool
	// MemoryLimit caps DuckDB's memory (e.g. "1GB"); empty keeps DuckDB's
	// default of 80% of the machine's memory.
	MemoryLimit string
}

var memoryLimitRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$`)

// Store is the DuckDB database behind auditscope.
type Store struct {
	db        *sql.DB
	connector *duckdb.Connector
	readOnly  bool
	path      string
	// mem lowers DuckDB's memory limit while imports fill a file
	// database without a limit of the user's (Options.MemoryLimit).
	mem *memlimit.Governor

	ver      versions     // see versions.go
	appendMu sync.Mutex   // AppendLogs one at a time
	lake     *lake.Reader // serving a Parquet lake (lakeread.go)
	// lakeViewsMade: the tables are views over a lake's files already
	// (after the first refresh).
	lakeViewsMade bool
	lakeCols      struct {
		sync.Mutex
		m map[string][]lakeColumn
	}

	mu            sync.RWMutex
	transcripts   map[string]func(auditID string) ([]byte, error) // experiment -> in-memory transcript source
	pendingScores map[string]bool                                 // experiments whose audit_scores is not built yet
}

// Open opens (creating if needed) the database and brings its schema up to
// date.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.ReadOnly && opts.Path == "" {
		return nil, fmt.Errorf("data: open: --read-only needs a database file")
	}
	if opts.MemoryLimit != "" && !memoryLimitRe.MatchString(opts.MemoryLimit) {
		return nil, fmt.Errorf("data: memory limit %q: want a size such as 512MB or 2GB", opts.MemoryLimit)
	}
	// A file database is attached to an in-memory instance rather than
	// opened as the DSN, because only ATTACH takes ROW_GROUP_SIZE.
	var attach []string
	if opts.Path != "" {
		mode := fmt.Sprintf("ROW_GROUP_SIZE %d", rowGroupSize)
		if opts.ReadOnly {
			mode = "READ_ONLY"
		}
		attach = []string{
			"ATTACH IF NOT EXISTS " + sqlString(opts.Path) + " AS store (" + mode + ")",
			"USE store",
		}
	}
	// The hook runs for every new connection, long after Open returns, so it
	// does not use Open's context.
	connector, err := duckdb.NewConnector("", func(execer driver.ExecerContext) error {
		ctx := context.Background()
		for _, q := range attach {
			if _, err := execer.ExecContext(ctx, q, nil); err != nil {
				return err
			}
		}
		if opts.MemoryLimit == "" {
			return nil
		}
		// Checked against memoryLimitRe above; SET takes no parameters.
		_, err := execer.ExecContext(ctx, "SET memory_limit = '"+opts.MemoryLimit+"'", nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("data: open %q: %w", opts.Path, err)
	}
	db := sql.OpenDB(connector)
	s := &Store{db: db, connector: connector, readOnly: opts.ReadOnly, path: opts.Path,
		mem: memlimit.New(db, opts.Path != "" && opts.MemoryLimit == "" && !opts.ReadOnly)}
	s.ver.at = time.Now().UTC()
	if opts.Path != "" {
		// Spill next to the database, not in the working directory. Set
		// once, not per connection: DuckDB refuses to move the directory
		// once it holds spilled data.
		if _, err := db.ExecContext(ctx, "SET temp_directory = "+sqlString(opts.Path+".tmp")); err != nil {
			s.Close()
			return nil, fmt.Errorf("data: open %q: %w", opts.Path, err)
		}
	}
	if opts.ReadOnly {
		if err := s.checkSchema(ctx); err != nil {
			s.Close()
			return nil, err
		}
		if n, err := s.incompleteGenerations(ctx); err != nil || n > 0 {
			s.Close()
			if err == nil {
				err = fmt.Errorf("data: %s holds %d rows of an import that did not finish (the process was killed); open it once without --read-only to remove them", opts.Path, n)
			}
			return nil, err
		}
		return s, nil
	}
	if opts.Path != "" {
		// Files a killed process spilled: this process holds the
		// database's lock and has spilled nothing yet.
		if err := os.RemoveAll(opts.Path + ".tmp"); err != nil {
			s.Close()
			return nil, fmt.Errorf("data: open %q: remove old spill files: %w", opts.Path, err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if _, err := s.collectGenerations(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("data: open %q: %w", opts.Path, err)
	}
	return s, nil
}

// Close closes the database. A file database is checkpointed so it opens
// quickly next time.
func (s *Store) Close() error {
	var errs []error
	if !s.readOnly && s.path != "" {
		if _, err := s.db.Exec("CHECKPOINT"); err != nil {
			errs = append(errs, fmt.Errorf("data: checkpoint: %w", err))
		}
	}
	if err := s.db.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := s.connector.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// DB exposes the handle for tests in other packages that check row counts.
func (s *Store) DB() *sql.DB { return s.db }

func migrationNames() ([]string, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// migrate applies the embedded migrations not yet recorded, each in its own
// transaction.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`); err != nil {
		return fmt.Errorf("data: migrate: %w", err)
	}
	names, err := migrationNames()
	if err != nil {
		return fmt.Errorf("data: migrate: %w", err)
	}
	for _, name := range names {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil {
			return fmt.Errorf("data: migrate: %w", err)
		}
		if n > 0 {
			continue
		}
		body, err := migrationFS.ReadFile(name)
		if err != nil {
			return fmt.Errorf("data: migrate: %w", err)
		}
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("data: migrate: %w", err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("data: migrate %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name) VALUES (?)`, name); err != nil {
			tx.Rollback()
			return fmt.Errorf("data: migrate %s: %w", name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("data: migrate %s: %w", name, err)
		}
	}
	return nil
}

// checkSchema makes sure a read-only database already has every migration.
func (s *Store) checkSchema(ctx context.Context) error {
	names, err := migrationNames()
	if err != nil {
		return err
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		return fmt.Errorf("data: %s is not an auditscope database (open it once without --read-only): %w", s.path, err)
	}
	if n < len(names) {
		return fmt.Errorf("data: %s has an older schema (%d of %d migrations); open it once without --read-only to upgrade", s.path, n, len(names))
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

// errCommit marks an import that failed at its commit.
var errCommit = errors.New("commit")

// importTx is one import: a single connection inside one transaction, so the
// Appender's rows and the plain statements commit or roll back together.
// Every row it writes carries its generation, gen (see generations.go).
type importTx struct {
	ctx        context.Context
	s          *Store
	conn       *sql.Conn
	rows       int64
	gen        int64
	marker     *importMarker // the imports row, written after the commit
	superseded []int64       // generations a --replace deletes once marked
	// source is the input as the imports row records it, for the claim's
	// message when its name holds another input.
	source string
}

// importMarker is an imports row: written once the import's rows have
// committed, it marks the generation complete.
type importMarker struct {
	kind, name, source, hash string
	base                     *int64              // the full import an append extends
	result                   *model.ImportResult // for Rows, known only at the end
	detail                   string
	at                       time.Time
}

// inImport runs fn inside one transaction on one connection and commits only
// if fn succeeds. When fn recorded an import (tx.record), the imports row
// follows in a transaction of its own, and then the generations it
// supersedes are deleted.
func (s *Store) inImport(ctx context.Context, fn func(tx *importTx) error) (err error) {
	if s.readOnly {
		return ErrReadOnly
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("data: import: %w", err)
	}
	defer conn.Close()
	tx := &importTx{ctx: ctx, s: s, conn: conn}
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
		return err
	}
	// Readers (View) wait from the commit until the generation is marked and
	// what it replaces is gone.
	defer s.ver.land()()
	if _, cerr := conn.ExecContext(ctx, "COMMIT"); cerr != nil {
		rollback(conn)
		return fmt.Errorf("data: import: %w: %w", errCommit, cerr)
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
	defer s.landed(tx.marker.name)
	// From here on the rows are committed but not yet visible as an import:
	// a kill leaves them to the next Open to remove. The context is not the
	// import's: a cancel now would only leave work for the next Open.
	bg := context.WithoutCancel(ctx)
	m := tx.marker
	if _, err := conn.ExecContext(bg, `INSERT INTO imports (id, kind, name, source, hash, rows, detail, imported_at, base) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		tx.gen, m.kind, m.name, m.source, m.hash, m.result.Rows, m.detail, m.at, m.base); err != nil {
		if derr := s.dropGenerations(bg, []int64{tx.gen}); derr != nil {
			err = errors.Join(err, fmt.Errorf("its rows are removed when the database is next opened: %w", derr))
		}
		return fmt.Errorf("data: import: %w: record import: %w", errCommit, err)
	}
	if err := s.dropGenerations(bg, tx.superseded); err != nil {
		return fmt.Errorf("data: import %s landed, but the rows it replaces were not removed (they are when the database is next opened): %w", m.name, err)
	}
	return nil
}

func (tx *importTx) Exec(query string, args ...any) error {
	_, err := tx.conn.ExecContext(tx.ctx, query, args...)
	return err
}

// importTx is the load.Tx of the format packages' loaders.
var _ load.Tx = (*importTx)(nil)

func (tx *importTx) Gen() int64            { return tx.gen }
func (tx *importTx) Rows() int64           { return tx.rows }
func (tx *importTx) SetSource(name string) { tx.source = name }

// Appender opens an appender on a table (see appender).
func (tx *importTx) Appender(table string) (load.Appender, error) {
	a, err := tx.appender(table)
	if err != nil {
		return nil, err // not a nil *appender in a non-nil interface
	}
	return a, nil
}

// appender opens a DuckDB Appender on the import's connection.
func (tx *importTx) appender(table string) (*appender, error) {
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
	tx       *importTx
	table    string
	n        int64
	buffered int64 // bytes of text appended since the last flush
}

// Row appends one Row; the generation column, last in every table an
// importer appends to, is added here.
func (a *appender) Row(values ...driver.Value) error {
	var size int64
	for _, v := range values {
		if s, ok := v.(string); ok {
			size += int64(len(s))
		}
	}
	// DuckDB stores a long text in blocks of its size; under an import's
	// lowered memory limit a text of a few MiB would not fit.
	if size > bigRowBytes {
		if err := a.tx.s.mem.Raise(a.tx.ctx, 32+3*size>>20); err != nil {
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

// rowGroupSize is the row group size of file databases. DuckDB writes an
// uncommitted append to disk a row group at a time; at its default of
// 122,880 rows a large import's texts wait in memory until the commit.
const rowGroupSize = 16384

// sqlString quotes s as an SQL string literal, for the statements that take
// no parameters (ATTACH, SET).
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
