// Package lakequery holds the store's SQL for a Parquet lake: a table's
// rows of one dataset or experiment copied to a file, the live generations,
// and the views that serve a lake's files as the store's tables. The store
// (package data) calls it under its own locks; package lake holds the
// layout, the manifest and its rules. It lives apart so that the store's
// root package keeps to its own jobs (issue #52).
package lakequery

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/internal/load"
)

// Generation is a dataset or experiment with its lake generation (a hash
// of the schema and of the imports that hold its rows) and when its
// newest import landed (RFC 3339, UTC).
type Generation struct{ Family, Name, Gen, Imported string }

// Generations lists the live datasets and experiments, each with a
// generation id made from schema (the newest migration) and the hashes of
// the imports that hold its rows (a full import and its appends): files
// written by another version of auditscope have other columns.
func Generations(ctx context.Context, db *sql.DB, schema string) ([]Generation, error) {
	rows, err := db.QueryContext(ctx, imports.LiveImportsCTE+`SELECT `+imports.FamilySQL+` AS family, name, list(hash ORDER BY id), max(imported_at)
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
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00", schema)
		for _, x := range hashes {
			fmt.Fprintf(h, "%v\x00", x)
		}
		g.Gen = hex.EncodeToString(h.Sum(nil))[:16]
		g.Imported = at.UTC().Format(time.RFC3339Nano)
		out = append(out, g)
	}
	return out, rows.Err()
}

// Quote is s as an SQL string literal.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// parquet is how every lake file is written.
const parquet = ` (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 8192)`

// CopySQL is the statement that writes table's rows of one dataset or
// experiment (name, in the partition column key) to a Parquet file,
// without the partition key and the store's generation (the lake's path
// holds them) and the store's own columns. The transcripts are the
// store's to write (they may be served from memory): not here.
func CopySQL(table, key, name, file string) string {
	if table == "audit_scores" {
		// The scores in the score columns too (storeOnlyColumns).
		return `COPY (SELECT audit, dimension, score FROM (` + load.AllScores(`experiment = `+Quote(name)) + `)) TO ` + Quote(file) + parquet
	}
	// Table and column names are the schema's (lake.Tables); the name is
	// an id of the store's, quoted.
	sel := `SELECT * EXCLUDE (` + key + genColumn(table)
	for _, c := range storeOnlyColumns(table) {
		sel += ", " + c
	}
	sel += `)`
	if table == "audits" {
		// Transcripts served from memory are written out (Transcripts).
		sel += ` REPLACE (CASE WHEN transcript_file = ` + Quote(load.MemoryTranscript) + ` THEN NULL ELSE transcript_file END AS transcript_file)`
	}
	return `COPY (` + sel + ` FROM ` + table + ` WHERE ` + key + ` = ` + Quote(name) + `) TO ` + Quote(file) + parquet
}

// TranscriptsSQL writes an experiment's stored transcripts as text, json
// being the expression of a stored transcript's text, with the rows of
// extra (a query of audit and json) after them.
func TranscriptsSQL(exp, file, json, extra string) string {
	q := `COPY (SELECT audit, ` + json + ` AS json FROM audit_transcripts WHERE experiment = ` + Quote(exp)
	if extra == "" {
		return q + `) TO ` + Quote(file) + parquet
	}
	return q + ` UNION ALL ` + extra + `) TO ` + Quote(file) + ` (FORMAT parquet, COMPRESSION zstd)`
}

// Transcripts writes an experiment's transcripts to a Parquet file on
// conn, those src serves from memory included (a lake has no memory to
// serve them from); json is the expression of a stored transcript's text.
func Transcripts(ctx context.Context, conn *sql.Conn, exp, file, json string, src func(string) ([]byte, error)) error {
	// A temporary table is the connection's own and goes with it.
	if _, err := conn.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE lake_transcripts (audit VARCHAR, json VARCHAR)`); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DROP TABLE IF EXISTS lake_transcripts`)
	ids, err := memoryIDs(ctx, conn, exp)
	if err != nil {
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
	_, err = conn.ExecContext(ctx, TranscriptsSQL(exp, file, json, `SELECT audit, json FROM lake_transcripts`))
	return err
}

// memoryIDs are the audits of exp whose transcripts are served from memory.
func memoryIDs(ctx context.Context, conn *sql.Conn, exp string) ([]string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT id FROM audits WHERE experiment = ? AND transcript_file = ? ORDER BY ord`, exp, load.MemoryTranscript)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// genColumn is the store's generation column of a table, left out of the
// lake's files.
func genColumn(table string) string {
	if table == "ap_datasets" || table == "experiments" {
		return ", import_id"
	}
	return ", gen"
}

// storeOnlyColumns are a table's columns that a lake leaves out: the score
// columns and their map (migration 009). The lake holds every score in
// audit_scores (CopySQL writes those of the columns there) and in the
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

// Columns remembers the tables' columns, since views replace the tables.
type Columns struct {
	mu sync.Mutex
	m  map[string][]column
}

type column struct{ name, typ string }

// of are a table's columns and types in order, as the schema (the
// migrations) defines them.
func (c *Columns) of(ctx context.Context, db *sql.DB, table string) ([]column, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cols, ok := c.m[table]; ok {
		return cols, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []column
	for rows.Next() {
		var col column
		if err := rows.Scan(&col.name, &col.typ); err != nil {
			return nil, err
		}
		out = append(out, col)
	}
	if c.m == nil {
		c.m = map[string][]column{}
	}
	c.m[table] = out
	return out, rows.Err()
}
