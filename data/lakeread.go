package data

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Serving a lake (auditscope serve --lake): an in-memory DuckDB whose
// tables are views over the Parquet files of the generations the manifest
// names, so every page runs its usual queries on the lake without
// importing it. Refresh follows the manifest: when it changes, the views
// are rebuilt under the write side of the view lock (no request sees half
// of it) and the versions of the datasets and experiments whose generation
// changed move, so the caches follow. A manifest or file that cannot be
// read leaves the last good state serving.

// lakeState is what a lake store last read.
type lakeState struct {
	mu        sync.Mutex
	dir       string
	manifest  []byte            // the manifest's bytes, to tell a change
	gens      map[string]string // family + "\x00" + name -> generation
	views     bool              // the tables are views already (after the first refresh)
	failed    []byte            // a manifest that could not be served, and why
	failedErr error
}

// OpenLake opens the lake at dir for reading. It fails, naming the file,
// when the manifest or a file it names cannot be read.
func OpenLake(ctx context.Context, dir string) (*Store, error) {
	s, err := Open(ctx, Options{})
	if err != nil {
		return nil, err
	}
	s.lake = &lakeState{dir: dir, gens: map[string]string{}}
	if _, err := s.Refresh(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.readOnly = true
	return s, nil
}

// Refresh reads the lake's manifest again and, if it changed, serves the
// generations it names; it reports whether anything changed. A store that
// is not a lake has nothing to refresh. On an error the store keeps
// serving what it served.
func (s *Store) Refresh(ctx context.Context) (bool, error) {
	if s.lake == nil {
		return false, nil
	}
	l := s.lake
	// One refresh at a time; requests that come meanwhile serve the state
	// there is rather than queue behind it.
	if !l.mu.TryLock() {
		return false, nil
	}
	defer l.mu.Unlock()
	// Not the request's cancellation: the refresh is for every request.
	ctx = context.WithoutCancel(ctx)
	p := filepath.Join(l.dir, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return false, fmt.Errorf("lake %s: %w", l.dir, err)
	}
	if bytes.Equal(b, l.manifest) {
		return false, nil
	}
	// A manifest that failed is tried again only when it changes.
	if l.failedErr != nil && bytes.Equal(b, l.failed) {
		return false, l.failedErr
	}
	changed, err := s.refresh(ctx, l, p, b)
	if err != nil {
		l.failed, l.failedErr = b, err
	}
	return changed, err
}

// refresh serves the manifest b (read from p) of l.
func (s *Store) refresh(ctx context.Context, l *lakeState, p string, b []byte) (bool, error) {
	m, err := parseLakeManifest(p, b)
	if err != nil {
		return false, err
	}
	gens := map[string]string{}
	for _, fam := range []string{"dataset", "experiment"} {
		for _, name := range m.LakeNames(fam) {
			gen := m.Datasets[name]
			if fam == "experiment" {
				gen = m.Experiments[name]
			}
			if !validName(name) || !isHexGen(gen) {
				return false, &InputError{File: p, Offset: -1, Msg: fmt.Sprintf("%s %q: generation %q: want a URL-safe name and 16 hex digits", fam, name, gen)}
			}
			gens[fam+"\x00"+name] = gen
		}
	}
	stmts, err := s.lakeViews(ctx, l.dir, gens, l.views)
	if err != nil {
		return false, err
	}
	// Readers wait while the views are swapped, in one transaction.
	s.ver.view.Lock()
	defer s.ver.view.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return false, fmt.Errorf("lake %s: %w", l.dir, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("lake %s: %w", l.dir, err)
	}
	for k, g := range gens {
		if l.gens[k] != g {
			s.landed(k[strings.IndexByte(k, 0)+1:])
		}
	}
	for k := range l.gens {
		if _, ok := gens[k]; !ok {
			s.landed(k[strings.IndexByte(k, 0)+1:])
		}
	}
	l.manifest, l.gens, l.views = b, gens, true
	l.failed, l.failedErr = nil, nil
	return true, nil
}

func isHexGen(g string) bool {
	if len(g) != 16 {
		return false
	}
	_, err := strconv.ParseUint(g, 16, 64)
	return err == nil
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
func (s *Store) lakeViews(ctx context.Context, dir string, gens map[string]string, views bool) ([]string, error) {
	var stmts []string
	for _, t := range lakeTables {
		cols, err := s.lakeColumns(ctx, t.name)
		if err != nil {
			return nil, err
		}
		var parts []string
		for k, gen := range gens {
			fam, name := k[:strings.IndexByte(k, 0)], k[strings.IndexByte(k, 0)+1:]
			if fam != t.family {
				continue
			}
			f := filepath.Join(lakeGenDir(dir, t.name, fam, name, gen), "data.parquet")
			if _, err := os.Stat(f); err != nil {
				return nil, &InputError{File: f, Offset: -1, Msg: "missing: the manifest names this generation, but its file is not there (a write not finished, or files removed)"}
			}
			sel := make([]string, len(cols))
			for i, c := range cols {
				switch c.name {
				case t.key:
					sel[i] = sqlString(name) + " AS " + c.name
				case "gen", "import_id":
					sel[i] = strconv.FormatInt(lakeGenID(gen), 10) + "::" + c.typ + " AS " + c.name
				case "transcript_file":
					// A lake holds its transcripts; a path a writer put here
					// would make every server read that file off its disk.
					sel[i] = "NULL::" + c.typ + " AS " + c.name
				default:
					sel[i] = c.name
				}
			}
			parts = append(parts, "SELECT "+strings.Join(sel, ", ")+" FROM read_parquet("+sqlString(f)+")")
		}
		if views {
			stmts = append(stmts, "DROP VIEW "+t.name)
		} else {
			stmts = append(stmts, "DROP TABLE "+t.name)
		}
		if len(parts) == 0 {
			// Nothing of this family: an empty relation of the table's shape.
			sel := make([]string, len(cols))
			for i, c := range cols {
				sel[i] = "NULL::" + c.typ + " AS " + c.name
			}
			parts = []string{"SELECT " + strings.Join(sel, ", ") + " WHERE false"}
		}
		stmts = append(stmts, "CREATE VIEW "+t.name+" AS "+strings.Join(parts, " UNION ALL "))
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
