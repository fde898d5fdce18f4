package data

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"slices"

	"github.com/auditscope/auditscope/data/internal/lakequery"
	"github.com/auditscope/auditscope/data/model"
)

// The store's side of a Parquet lake (package lake holds the layout, the
// manifest and its rules, and the commands; data/internal/lakequery the
// SQL): each dataset's or experiment's generation, a copy of one table's
// rows of it to a Parquet file, and a store whose tables are views over
// such files.

// Generation is a dataset or experiment with its lake generation (a hash
// of the schema and of the imports that hold its rows) and when its
// newest import landed (RFC 3339, UTC).
type Generation = lakequery.Generation

// Generations lists the live datasets and experiments, each with a
// generation id made from the hashes of the imports that hold its rows (a
// full import and its appends).
func (s *Store) Generations(ctx context.Context) ([]Generation, error) {
	return lakequery.Generations(ctx, s.db, schemaVersion())
}

// CopyPartition writes table's rows of one dataset or experiment (name,
// in the partition column key) to a Parquet file, without the partition
// key and the store's generation (the lake's path holds them), the
// transcripts served from memory included.
func (s *Store) CopyPartition(ctx context.Context, table, key, name, file string) error {
	if table != "audit_transcripts" {
		_, err := s.db.ExecContext(ctx, lakequery.CopySQL(table, key, name, file))
		return err
	}
	// Text for every engine to read, not the store's zstd frames.
	return s.withTranscriptText(ctx, func(conn *sql.Conn) error {
		if src := s.memoryTranscripts(name); src != nil {
			return lakequery.Transcripts(ctx, conn, name, file, transcriptJSON, src)
		}
		_, err := conn.ExecContext(ctx, lakequery.TranscriptsSQL(name, file, transcriptJSON, ""))
		return err
	})
}

// memoryTranscripts is the in-memory transcript source of an experiment
// (the built-in demo), nil for one whose transcripts are stored.
func (s *Store) memoryTranscripts(exp string) func(string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.transcripts[exp]
}

// schemaVersion is the newest migration this build knows: the lake's files
// have its tables' columns.
func schemaVersion() string {
	names, _ := fs.Glob(migrationFS, "migrations/*.sql")
	slices.Sort(names)
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1]
}

// FileView is a table served from Parquet files: one per dataset or
// experiment (Parts), named in the table's partition column Key.
type FileView = lakequery.FileView

// FilePart is one dataset's or experiment's file of a table, with its
// lake generation (16 hex digits).
type FilePart = lakequery.FilePart

// ServeFiles makes each table of views a view over its files, with the
// table's own columns in their order: the partition key and the generation
// from the part, the rest from the file. Every file is read once before
// anything changes (a missing or damaged one is an error naming it, read
// from dir); then the views are swapped in one transaction that readers
// wait for, and the versions of the names changed move. A store serving
// files takes no imports.
func (s *Store) ServeFiles(ctx context.Context, dir string, views []FileView, changed []string) error {
	stmts, err := s.lakeCols.Views(ctx, s.db, dir, views, s.servesFiles)
	if err != nil {
		return err
	}
	// Readers wait while the views are swapped, in one transaction.
	defer s.ver.land()()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("lake %s: %w", dir, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("lake %s: %w", dir, err)
	}
	for _, name := range changed {
		s.landed(name)
	}
	if !s.servesFiles {
		// Once, while the lake opens: later refreshes only read these.
		s.servesFiles, s.readOnly = true, true
	}
	return nil
}

// A store reading its own database has no lake to follow; a lake's store
// (package lake) has these of its own.

// Refresh reports that nothing changed.
func (s *Store) Refresh(context.Context) (bool, error) { return false, nil }

// IsLake reports false: the store serves its own database.
func (s *Store) IsLake() bool { return false }

// LakeProblem is nil: there is no lake to read.
func (s *Store) LakeProblem() *model.InputError { return nil }

// LakeProblemVersion is 0: LakeProblem never changes.
func (s *Store) LakeProblemVersion() int64 { return 0 }
