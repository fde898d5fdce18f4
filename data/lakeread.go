package data

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/lake"
	"github.com/auditscope/auditscope/data/model"
)

// Serving a lake (auditscope serve --lake): an in-memory DuckDB whose
// tables are views over the Parquet files of the generations the manifest
// names, so every page runs its usual queries on the lake without
// importing it. Refresh follows the manifest: when it changes, the views
// are rebuilt under the write side of the view lock (no request sees half
// of it) and the versions of the datasets and experiments whose generation
// changed move, so the caches follow. A manifest or file that cannot be
// read leaves the last good state serving.

// OpenLake opens the lake at dir for reading, with DuckDB's memory capped
// at memoryLimit (as Options.MemoryLimit; "" for DuckDB's default). It
// fails, naming the file, when the manifest or a file it names cannot be
// read or does not match the manifest's checksum.
func OpenLake(ctx context.Context, dir, memoryLimit string) (*Store, error) {
	// Absolute: DuckDB reads a leading ~ as the home folder.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("lake: %w", err)
	}
	s, err := Open(ctx, Options{MemoryLimit: memoryLimit})
	if err != nil {
		return nil, err
	}
	s.lake = lake.NewReader(dir)
	if _, err := s.Refresh(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.readOnly = true
	return s, nil
}

// LakeProblem is why the lake's newest manifest is not served, nil when it
// is (or the store is not a lake): the pages serve the last good
// generation meanwhile, and the home page says so.
func (s *Store) LakeProblem() *model.InputError {
	if s.lake == nil {
		return nil
	}
	return s.lake.Problem()
}

// IsLake reports whether the store serves a lake (OpenLake).
func (s *Store) IsLake() bool { return s.lake != nil }

// LakeProblemVersion counts the changes to LakeProblem, for caches of the
// pages that show it.
func (s *Store) LakeProblemVersion() int64 {
	if s.lake == nil {
		return 0
	}
	return s.lake.ProblemVersion()
}

// Refresh reads the lake's manifest again and, if it changed, serves the
// generations it names; it reports whether anything changed. A store that
// is not a lake has nothing to refresh. On an error the store keeps
// serving what it served.
func (s *Store) Refresh(ctx context.Context) (bool, error) {
	if s.lake == nil {
		return false, nil
	}
	u, err := s.lake.Next()
	if u == nil {
		return false, err
	}
	// Not the request's cancellation: the refresh is for every request.
	err = s.serveLake(context.WithoutCancel(ctx), u)
	return err == nil, s.lake.Done(u, err)
}

// serveLake makes every lake table a view over the update's files, in one
// transaction that readers wait for, and moves the versions of the names
// whose generation changed.
func (s *Store) serveLake(ctx context.Context, u *lake.Update) error {
	stmts, err := s.lakeViews(ctx, u.Parts)
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
			return fmt.Errorf("lake %s: %w", s.lake.Dir(), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("lake %s: %w", s.lake.Dir(), err)
	}
	for _, name := range u.Changed {
		s.landed(name)
	}
	s.lakeViewsMade = true
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

// lakeViews are the statements that make every lake table a view over the
// named generations' files, with the table's own columns in their order:
// the partition key and the generation come from the manifest, the rest
// from the file. A file that is missing or not Parquet fails here, before
// anything is swapped.
func (s *Store) lakeViews(ctx context.Context, files map[string][]lake.Part) ([]string, error) {
	var stmts []string
	for _, t := range lake.Tables {
		cols, err := s.lakeColumns(ctx, t.Name)
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, part := range files[t.Name] {
			sel := make([]string, len(cols))
			for i, c := range cols {
				switch c.name {
				case t.Key:
					sel[i] = sqlString(part.Name) + " AS " + c.name
				case "gen", "import_id":
					sel[i] = strconv.FormatInt(lakeGenID(part.Gen), 10) + "::" + c.typ + " AS " + c.name
				case "transcript_file":
					// A lake holds its transcripts; a path a writer put here
					// would make every server read that file off its disk.
					sel[i] = "NULL::" + c.typ + " AS " + c.name
				default:
					sel[i] = c.name
				}
			}
			parts = append(parts, "SELECT "+strings.Join(sel, ", ")+" FROM read_parquet("+sqlString(globEscape(part.File))+")")
		}
		if s.lakeViewsMade {
			stmts = append(stmts, "DROP VIEW "+t.Name)
		} else {
			stmts = append(stmts, "DROP TABLE "+t.Name)
		}
		if len(parts) == 0 {
			// Nothing of this family: an empty relation of the table's shape.
			sel := make([]string, len(cols))
			for i, c := range cols {
				sel[i] = "NULL::" + c.typ + " AS " + c.name
			}
			parts = []string{"SELECT " + strings.Join(sel, ", ") + " WHERE false"}
		}
		stmts = append(stmts, "CREATE VIEW "+t.Name+" AS "+strings.Join(parts, " UNION ALL "))
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
			return nil, fmt.Errorf("lake %s: %s", s.lake.Dir(), strings.TrimSpace(msg))
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
