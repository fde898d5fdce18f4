package data

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
)

// The store's side of a Parquet lake (package lake holds the layout, the
// manifest and its rules, and the commands): each dataset's or
// experiment's generation, a copy of one table's rows of it to a Parquet
// file, and a store whose tables are views over such files.

// Generation is a dataset or experiment with its lake generation (a hash
// of the schema and of the imports that hold its rows) and when its
// newest import landed (RFC 3339, UTC).
type Generation struct{ Family, Name, Gen, Imported string }

// Generations lists the live datasets and experiments, each with a
// generation id made from the hashes of the imports that hold its rows (a
// full import and its appends).
func (s *Store) Generations(ctx context.Context) ([]Generation, error) {
	rows, err := s.db.QueryContext(ctx, imports.LiveImportsCTE+`SELECT `+imports.FamilySQL+` AS family, name, list(hash ORDER BY id), max(imported_at)
		FROM imports WHERE id IN (SELECT id FROM live_imports) GROUP BY ALL ORDER BY family, name`)
	if err != nil {
		return nil, fmt.Errorf("lake: %w", err)
	}
	defer rows.Close()
	var out []Generation
	for rows.Next() {
		var g Generation
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

// CopyPartition writes table's rows of one dataset or experiment (name,
// in the partition column key) to a Parquet file, without the partition
// key and the store's generation (the lake's path holds them), the
// transcripts served from memory included.
func (s *Store) CopyPartition(ctx context.Context, table, key, name, file string) error {
	if table == "audit_transcripts" {
		if s.memoryTranscripts(name) != nil {
			return s.copyTranscripts(ctx, name, file)
		}
		// Text for every engine to read, not the store's zstd frames.
		return s.withTranscriptText(ctx, func(conn *sql.Conn) error {
			_, err := conn.ExecContext(ctx, `COPY (SELECT audit, `+transcriptJSON+` AS json FROM audit_transcripts WHERE experiment = `+sqlString(name)+
				`) TO `+sqlString(file)+` (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 8192)`)
			return err
		})
	}
	if table == "audit_scores" {
		// The scores in the score columns too (storeOnlyColumns).
		_, err := s.db.ExecContext(ctx, `COPY (SELECT audit, dimension, score FROM (`+load.AllScores(`experiment = `+sqlString(name))+`)) TO `+
			sqlString(file)+` (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 8192)`)
		return err
	}
	// Table and column names are the schema's (lake.Tables); the name is
	// an id of the store's, quoted.
	sel := `SELECT * EXCLUDE (` + key + lakeGenColumn(table)
	for _, c := range storeOnlyColumns(table) {
		sel += ", " + c
	}
	sel += `)`
	if table == "audits" {
		// Transcripts served from memory are written out (copyTranscripts).
		sel += ` REPLACE (CASE WHEN transcript_file = ` + sqlString(load.MemoryTranscript) + ` THEN NULL ELSE transcript_file END AS transcript_file)`
	}
	_, err := s.db.ExecContext(ctx, `COPY (`+sel+` FROM `+table+` WHERE `+key+` = `+sqlString(name)+`) TO `+
		sqlString(file)+` (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 8192)`)
	return err
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
	return s.withTranscriptText(ctx, func(conn *sql.Conn) error { return s.copyTranscriptsOn(ctx, conn, exp, file) })
}

func (s *Store) copyTranscriptsOn(ctx context.Context, conn *sql.Conn, exp, file string) error {
	src := s.memoryTranscripts(exp)
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
	_, err = conn.ExecContext(ctx, `COPY (SELECT audit, `+transcriptJSON+` AS json FROM audit_transcripts WHERE experiment = `+sqlString(exp)+
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

// storeOnlyColumns are a table's columns that a lake leaves out: the score
// columns and their map (migration 009). The lake holds every score in
// audit_scores (CopyPartition writes those of the columns there) and in the
// audits' JSON. A lake's views give them as NULL, which reads every score
// from audit_scores.
func storeOnlyColumns(table string) []string {
	switch table {
	case "audits":
		cols := make([]string, load.ScoreSlots)
		for i := range cols {
			cols[i] = "score_" + strconv.Itoa(i)
		}
		return cols
	case "experiment_dimensions":
		return []string{"slot"}
	}
	return nil
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
type FileView struct {
	Table, Key string
	Parts      []FilePart
}

// FilePart is one dataset's or experiment's file of a table, with its
// lake generation (16 hex digits).
type FilePart struct{ Name, Gen, File string }

// ServeFiles makes each table of views a view over its files, with the
// table's own columns in their order: the partition key and the generation
// from the part, the rest from the file. Every file is read once before
// anything changes (a missing or damaged one is an error naming it, read
// from dir); then the views are swapped in one transaction that readers
// wait for, and the versions of the names changed move. A store serving
// files takes no imports.
func (s *Store) ServeFiles(ctx context.Context, dir string, views []FileView, changed []string) error {
	stmts, err := s.fileViews(ctx, dir, views)
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

// lakeGenID is a generation as the number the tables' generation columns
// hold: its first 7 hex digits, a positive INTEGER. Only a dataset's or
// experiment's own generations are compared (the pairs cache keys by it),
// so 28 bits of a hash tell them apart.
func lakeGenID(gen string) int64 {
	v, _ := strconv.ParseInt(gen[:7], 16, 64)
	return v + 1
}

// fileViews are the statements that make each table a view over the
// named generations' files, with the table's own columns in their order:
// the partition key and the generation come from the manifest, the rest
// from the file. A file that is missing or not Parquet fails here, before
// anything is swapped.
func (s *Store) fileViews(ctx context.Context, dir string, views []FileView) ([]string, error) {
	var stmts []string
	for _, t := range views {
		cols, err := s.lakeColumns(ctx, t.Table)
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, part := range t.Parts {
			sel := make([]string, len(cols))
			for i, c := range cols {
				switch c.name {
				case t.Key:
					sel[i] = sqlString(part.Name) + " AS " + c.name
				case "gen", "import_id":
					sel[i] = strconv.FormatInt(lakeGenID(part.Gen), 10) + "::" + c.typ + " AS " + c.name
				case "zjson":
					// A lake holds transcripts as text (CopyPartition).
					sel[i] = "NULL::" + c.typ + " AS " + c.name
				case "slot":
					// Without score columns (storeOnlyColumns).
					sel[i] = "NULL::" + c.typ + " AS " + c.name
				case "transcript_file":
					// A lake holds its transcripts; a path a writer put here
					// would make every server read that file off its disk.
					sel[i] = "NULL::" + c.typ + " AS " + c.name
				default:
					sel[i] = c.name
					if t.Table == "audits" && strings.HasPrefix(c.name, "score_") {
						sel[i] = "NULL::" + c.typ + " AS " + c.name
					}
				}
			}
			parts = append(parts, "SELECT "+strings.Join(sel, ", ")+" FROM read_parquet("+sqlString(globEscape(part.File))+")")
		}
		if s.servesFiles {
			stmts = append(stmts, "DROP VIEW "+t.Table)
		} else {
			stmts = append(stmts, "DROP TABLE "+t.Table)
		}
		if len(parts) == 0 {
			// Nothing of this family: an empty relation of the table's shape.
			sel := make([]string, len(cols))
			for i, c := range cols {
				sel[i] = "NULL::" + c.typ + " AS " + c.name
			}
			parts = []string{"SELECT " + strings.Join(sel, ", ") + " WHERE false"}
		}
		stmts = append(stmts, "CREATE VIEW "+t.Table+" AS "+strings.Join(parts, " UNION ALL "))
	}
	// Check every file once, outside the swap: a missing or corrupt file
	// is named here and nothing changes.
	for _, q := range stmts {
		if !strings.HasPrefix(q, "CREATE VIEW ") {
			continue
		}
		body := strings.TrimPrefix(q, "CREATE VIEW ")
		body = body[strings.Index(body, " AS ")+4:]
		if _, err := s.db.ExecContext(ctx, "SELECT count(*) FROM ("+body+")"); err != nil {
			// DuckDB's message names the file; the SQL it quotes after it
			// is ours, not the reader's business.
			msg, _, _ := strings.Cut(err.Error(), "\n\nLINE ")
			return nil, fmt.Errorf("lake %s: %s", dir, strings.TrimSpace(msg))
		}
	}
	return stmts, nil
}

type lakeColumn struct{ name, typ string }

// lakeColumns are a table's columns and types in order, as the schema
// (the migrations) defines them; remembered, since views replace the
// tables.
func (s *Store) lakeColumns(ctx context.Context, table string) ([]lakeColumn, error) {
	s.lakeCols.Lock()
	defer s.lakeCols.Unlock()
	if c, ok := s.lakeCols.m[table]; ok {
		return c, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []lakeColumn
	for rows.Next() {
		var c lakeColumn
		if err := rows.Scan(&c.name, &c.typ); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if s.lakeCols.m == nil {
		s.lakeCols.m = map[string][]lakeColumn{}
	}
	s.lakeCols.m[table] = out
	return out, rows.Err()
}

// globEscape is a file path as DuckDB's file readers take it literally:
// read_parquet() reads a path with *, ? or [ as a glob pattern, so a lake
// in a folder named l*ke would read its neighbours' files too. Each such
// character is put in a bracket of its own ([*] matches only *).
func globEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch r {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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
