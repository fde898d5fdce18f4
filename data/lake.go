package data

import (
	"context"
	"crypto/sha256"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/lake"
)

// Writing a Parquet lake (auditscope lake write): package lake says what
// goes where and keeps the manifest; the store copies each generation's
// rows to Parquet with DuckDB.

// WriteLake writes the store's datasets and experiments into the lake at
// dir: a new generation for each whose content the manifest does not have
// yet, then the manifest naming them, beside what it named before of other
// datasets and experiments. Generations the new manifest no longer names
// are left for readers still on the old one. Writes to one lake run one at
// a time (lake.Lock). A write that would replace a dataset or experiment
// with an older import than the lake's is refused before anything is
// written, unless opts.Force.
func (s *Store) WriteLake(ctx context.Context, dir string, opts lake.WriteOptions) (lake.Result, error) {
	var res lake.Result
	// Absolute: DuckDB reads a leading ~ as the home folder.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return res, fmt.Errorf("lake: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("lake: %w", err)
	}
	lock, err := lake.Acquire(dir, opts.Log)
	if err != nil {
		return res, err
	}
	defer lock.Release()
	old, err := lake.ReadManifest(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	// Score tables left to build later (the built-in demo) are built now:
	// the lake's readers query them.
	if err := s.BuildPendingScores(ctx); err != nil {
		return res, err
	}
	gens, err := s.lakeGenerations(ctx)
	if err != nil {
		return res, err
	}
	plan, err := lake.NewPlan(dir, old, gens, opts.Force)
	if err != nil {
		return res, err
	}
	for _, g := range plan.Write {
		if err := s.writeLakeGeneration(ctx, dir, g.Family, g.Name, g.Gen); err != nil {
			return res, err
		}
		res.Written = append(res.Written, g.What())
	}
	res.Unchanged = plan.Unchanged
	return res, plan.Commit(res.Written)
}

// lakeGenerations lists the live datasets and experiments, each with a
// generation id made from the hashes of the imports that hold its rows (a
// full import and its appends).
func (s *Store) lakeGenerations(ctx context.Context) ([]lake.Generation, error) {
	rows, err := s.db.QueryContext(ctx, imports.LiveImportsCTE+`SELECT `+imports.FamilySQL+` AS family, name, list(hash ORDER BY id), max(imported_at)
		FROM imports WHERE id IN (SELECT id FROM live_imports) GROUP BY ALL ORDER BY family, name`)
	if err != nil {
		return nil, fmt.Errorf("lake: %w", err)
	}
	defer rows.Close()
	var out []lake.Generation
	for rows.Next() {
		var g lake.Generation
		var hashes []any
		var at time.Time
		if err := rows.Scan(&g.Family, &g.Name, &hashes, &at); err != nil {
			return nil, fmt.Errorf("lake: %w", err)
		}
		// The schema is part of a generation: files written by another
		// version of auditscope have other columns.
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00", schemaVersion())
		for _, x := range hashes {
			fmt.Fprintf(h, "%v\x00", x)
		}
		g.Gen = hex.EncodeToString(h.Sum(nil))[:16]
		g.Imported = at.UTC().Format(time.RFC3339Nano)
		out = append(out, g)
	}
	return out, rows.Err()
}

// writeLakeGeneration writes every table of one dataset or experiment as
// a generation. Each file is written beside and renamed into place, so a
// file that is there is whole.
func (s *Store) writeLakeGeneration(ctx context.Context, dir, family, name, gen string) error {
	for _, t := range lake.Tables {
		if t.Family != family {
			continue
		}
		d := lake.GenDir(dir, t.Name, family, name, gen)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		tmp := filepath.Join(d, ".data.parquet.tmp")
		// Table and column names come from lake.Tables; the name is an id
		// of the store's, quoted. The partition key and the store's
		// generation are not in the file: the path holds them.
		sel := `SELECT * EXCLUDE (` + t.Key + lakeGenColumn(t.Name) + `)`
		if t.Name == "audits" {
			// Transcripts served from memory are written out (below).
			sel += ` REPLACE (CASE WHEN transcript_file = ` + sqlString(load.MemoryTranscript) + ` THEN NULL ELSE transcript_file END AS transcript_file)`
		}
		q := `COPY (` + sel + ` FROM ` + t.Name + ` WHERE ` + t.Key + ` = ` + sqlString(name) + `) TO ` +
			sqlString(tmp) + ` (FORMAT parquet, COMPRESSION zstd)`
		var err error
		if t.Name == "audit_transcripts" && s.memoryTranscripts(name) != nil {
			err = s.copyTranscripts(ctx, name, tmp)
		} else {
			_, err = s.db.ExecContext(ctx, q)
		}
		if err != nil {
			return fmt.Errorf("lake: write %s of %s %s: %w", t.Name, family, name, err)
		}
		// On disk before it is named as whole (a power loss must not leave
		// a manifest naming an empty file).
		if err := lake.SyncFile(tmp); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		if err := os.Rename(tmp, filepath.Join(d, "data.parquet")); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		if err := lake.SyncFile(d); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
	}
	return nil
}

// memoryTranscripts is the in-memory transcript source of an experiment
// (the built-in demo), nil for one whose transcripts are stored.
func (s *Store) memoryTranscripts(exp string) func(string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.transcripts[exp]
}

// copyTranscripts writes an experiment's transcripts to a Parquet file,
// those served from memory included: a lake has no memory to serve them
// from.
func (s *Store) copyTranscripts(ctx context.Context, exp, file string) error {
	src := s.memoryTranscripts(exp)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// A temporary table is the connection's own and goes with it.
	if _, err := conn.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE lake_transcripts (audit VARCHAR, json VARCHAR)`); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DROP TABLE IF EXISTS lake_transcripts`)
	rows, err := conn.QueryContext(ctx, `SELECT id FROM audits WHERE experiment = ? AND transcript_file = ? ORDER BY ord`, exp, load.MemoryTranscript)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var a *duckdb.Appender
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		var err error
		a, err = duckdb.NewAppender(c, "temp", "main", "lake_transcripts")
		return err
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		body, err := src(id)
		if err != nil {
			a.Close()
			return fmt.Errorf("transcript of %s:%s: %w", exp, id, err)
		}
		if err := a.AppendRow(id, string(body)); err != nil {
			a.Close()
			return err
		}
	}
	if err := a.Close(); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `COPY (SELECT audit, json FROM audit_transcripts WHERE experiment = `+sqlString(exp)+
		` UNION ALL SELECT audit, json FROM lake_transcripts) TO `+sqlString(file)+` (FORMAT parquet, COMPRESSION zstd)`)
	return err
}

// lakeGenColumn is the store's generation column of a table, left out of
// the lake's files.
func lakeGenColumn(table string) string {
	if table == "ap_datasets" || table == "experiments" {
		return ", import_id"
	}
	return ", gen"
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
