// Package data owns auditscope's DuckDB store: the schema (numbered
// migrations), the queries the web pages run, the entry points of imports
// (each format's package decodes and loads through the import's
// transaction, data/internal/imports makes it land whole) and the store's
// side of a Parquet lake (copies and views; data/lake holds the rest).
// Nothing outside this package and data/internal writes SQL.
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

	"github.com/auditscope/auditscope/data/internal/apquery"
	"github.com/auditscope/auditscope/data/internal/expquery"
	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/internal/lakequery"
	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/internal/memlimit"
	"github.com/auditscope/auditscope/data/internal/verdictquery"
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
var ErrReadOnly = imports.ErrReadOnly

// Options configure Open.
type Options struct {
	// Path is the database file; empty means an in-memory database.
	Path string
	// ReadOnly opens the file read-only: no migrations, no imports.
	ReadOnly bool
	// MemoryLimit caps DuckDB's memory (e.g. "1GB"); empty keeps DuckDB's
	// default of 80% of the machine's memory.
	MemoryLimit string
	// WriteOut opens a read-only database to be written out (lake write
	// --db): DuckDB need not keep rows in their order as it writes them,
	// so its threads do not hold finished row groups until the ones before
	// are written. With the machine busy that held a 100,000-audit lake
	// write at up to 1,090 MB resident, against 580–660 MB without.
	WriteOut bool
	// DiscardUnused: a database file this Open creates is removed again
	// by Close (with DuckDB's files beside it) when no import landed in it,
	// so a failed first import, by import or serve PATHs, leaves no empty
	// 800 KB database behind. The one rule for every command.
	DiscardUnused bool
	// Threads caps DuckDB's threads (0: one a core). Tests that measure a
	// process's memory pin it, so a machine with more cores measures the
	// same.
	Threads int
}

var memoryLimitRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$`)

// Store is the DuckDB database behind auditscope.
type Store struct {
	// The store's reads of AnnotatedPairs datasets, of experiments' runs,
	// scorers, samples and summary, and of other judges' verdicts are
	// these packages' methods.
	apquery.Pairs
	expquery.Experiments
	verdictquery.Verdicts

	db        *sql.DB
	connector *duckdb.Connector
	readOnly  bool
	path      string
	// discard: Close removes the file unless an import landed since
	// opened (Options.DiscardUnused on a file Open created).
	discard     bool
	openVersion int64
	// mem lowers DuckDB's memory limit while imports fill a file
	// database without a limit of the user's (Options.MemoryLimit).
	mem *memlimit.Governor

	ver      versions // see versions.go
	imp      *imports.Writer
	appendMu sync.Mutex // AppendLogs one at a time
	// servesFiles: the tables are views over a lake's files (ServeFiles).
	servesFiles bool
	lakeCols    lakequery.Columns

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
	if opts.WriteOut && !opts.ReadOnly {
		return nil, fmt.Errorf("data: WriteOut is for a database opened read-only")
	}
	if opts.MemoryLimit != "" && !memoryLimitRe.MatchString(opts.MemoryLimit) {
		return nil, fmt.Errorf("data: memory limit %q: want a size such as 512MB or 2GB", opts.MemoryLimit)
	}
	// A file database is attached to an in-memory instance rather than
	// opened as the DSN, because only ATTACH takes ROW_GROUP_SIZE.
	var attach []string
	isNew := false
	if opts.Path != "" {
		mode := fmt.Sprintf("ROW_GROUP_SIZE %d", rowGroupSize)
		if _, err := os.Lstat(opts.Path); errors.Is(err, fs.ErrNotExist) {
			mode += ", STORAGE_VERSION " + sqlString(storageVersion)
			isNew = true
		}
		if opts.ReadOnly {
			mode = "READ_ONLY"
		}
		attach = []string{
			"ATTACH IF NOT EXISTS " + sqlString(opts.Path) + " AS store (" + mode + ")",
			"USE store",
		}
	}
	connector, err := newConnector(opts, attach)
	if err != nil {
		return nil, fmt.Errorf("data: open %q: %w", opts.Path, err)
	}
	db := sql.OpenDB(connector)
	s := &Store{Pairs: apquery.New(db), Experiments: expquery.New(db), db: db, connector: connector, readOnly: opts.ReadOnly, path: opts.Path,
		mem: memlimit.New(db, opts.Path != "" && opts.MemoryLimit == "" && !opts.ReadOnly)}
	s.Verdicts = verdictquery.New(db, s.evalScoreSource)
	s.ver.at = time.Now().UTC()
	s.discard = isNew && opts.DiscardUnused && !opts.ReadOnly
	s.imp = &imports.Writer{DB: db, Mem: s.mem, ReadOnly: func() bool { return s.readOnly }, Land: s.ver.land, Landed: s.landed}
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
		if n, err := imports.Incomplete(ctx, s.db); err != nil || n > 0 {
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
	if _, err := imports.Collect(ctx, s.db); err != nil {
		s.Close()
		return nil, fmt.Errorf("data: open %q: %w", opts.Path, err)
	}
	s.openVersion = s.Version()
	return s, nil
}

// newConnector is the database's connector: each connection attaches the
// file (attach's statements) and takes the options' settings.
func newConnector(opts Options, attach []string) (*duckdb.Connector, error) {
	// The hook runs for every new connection, long after Open returns, so it
	// does not use Open's context.
	return duckdb.NewConnector("", func(execer driver.ExecerContext) error {
		ctx := context.Background()
		for _, q := range attach {
			if _, err := execer.ExecContext(ctx, q, nil); err != nil {
				return err
			}
		}
		if opts.WriteOut {
			if _, err := execer.ExecContext(ctx, "SET preserve_insertion_order = false", nil); err != nil {
				return err
			}
		}
		if opts.Threads > 0 {
			if _, err := execer.ExecContext(ctx, fmt.Sprintf("SET threads = %d", opts.Threads), nil); err != nil {
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
	if s.discard && s.Version() == s.openVersion {
		for _, q := range []string{s.path, s.path + ".wal", s.path + ".tmp"} {
			os.RemoveAll(q)
		}
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

// rowGroupSize is the row group size of file databases. DuckDB writes an
// uncommitted append to disk a row group at a time; at its default of
// 122,880 rows a large import's texts wait in memory until the commit.
const rowGroupSize = 16384

// storageVersion is the DuckDB storage format of the database files this
// store creates. DuckDB's default is still the one DuckDB 0.10.2 reads,
// which leaves out its newer compression: with this one the search text
// and the scores' JSON take a third of the room (a dictionary of their
// FSST-compressed values), so the first full-text search reads a third of
// the blocks. A file made so opens in DuckDB 1.5 or later only; files made
// before keep their format (they are not converted).
const storageVersion = "v1.5.0"

// sqlString quotes s as an SQL string literal, for the statements that take
// no parameters (ATTACH, SET).
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
