package data

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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

// lakeState is what a lake store last read.
type lakeState struct {
	mu        sync.Mutex
	dir       string
	manifest  []byte            // the manifest's bytes, to tell a change
	gens      map[string]string // family + "\x00" + name -> generation
	views     bool              // the tables are views already (after the first refresh)
	failed    []byte            // a manifest that could not be served, and why
	failedErr error
	// checked are the files whose size and checksum matched the manifest,
	// by path, with what they matched: files are written once, so each is
	// read through once, when a generation naming it is first adopted.
	checked  map[string]LakeFile
	problem  atomic.Pointer[model.InputError] // why the newest manifest is not served
	problems atomic.Int64                     // changes to problem, for caches of the pages that show it
}

// setProblem records why the newest manifest is not served (nil: it is).
func (l *lakeState) setProblem(ie *model.InputError) {
	old := l.problem.Swap(ie)
	if (old == nil) != (ie == nil) || old != nil && old.Error() != ie.Error() {
		l.problems.Add(1)
	}
}

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
	s.lake = &lakeState{dir: dir, gens: map[string]string{}, checked: map[string]LakeFile{}}
	if _, err := s.Refresh(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.readOnly = true
	return s, nil
}

// LakeProblem is why the lake's newest manifest is not served, nil when it
// is (or the store is not a lake): the pages serve the last good
// generation meanwhile, and the home page says so. It takes no lock, so
// the home page does not wait for a refresh reading files.
func (s *Store) LakeProblem() *model.InputError {
	if s.lake == nil {
		return nil
	}
	return s.lake.problem.Load()
}

// IsLake reports whether the store serves a lake (OpenLake).
func (s *Store) IsLake() bool { return s.lake != nil }

// LakeProblemVersion counts the changes to LakeProblem, for caches of the
// pages that show it.
func (s *Store) LakeProblemVersion() int64 {
	if s.lake == nil {
		return 0
	}
	return s.lake.problems.Load()
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
		l.setProblem(&model.InputError{File: p, Offset: -1, Msg: "cannot be read: " + errText(err)})
		return false, fmt.Errorf("lake %s: %w", l.dir, err)
	}
	if bytes.Equal(b, l.manifest) {
		l.setProblem(nil) // read again after a failed read: as served
		return false, nil
	}
	// A manifest that failed is tried again only when it changes.
	if l.failedErr != nil && bytes.Equal(b, l.failed) {
		return false, l.failedErr
	}
	changed, err := s.refresh(ctx, l, p, b)
	if err != nil {
		l.failed, l.failedErr = b, err
		var ie *model.InputError
		if !errors.As(err, &ie) {
			ie = &model.InputError{File: p, Offset: -1, Msg: err.Error()}
		}
		l.setProblem(ie)
	} else {
		l.setProblem(nil)
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
			if !model.ValidName(name) || !isHexGen(gen) {
				return false, &model.InputError{File: p, Offset: -1, Msg: fmt.Sprintf("%s %q: generation %q: want a URL-safe name and 16 hex digits", fam, name, gen)}
			}
			gens[fam+"\x00"+name] = gen
		}
	}
	if err := l.check(m, gens); err != nil {
		return false, err
	}
	stmts, err := s.lakeViews(ctx, l.dir, gens, l.views)
	if err != nil {
		return false, err
	}
	// Readers wait while the views are swapped, in one transaction.
	defer s.ver.land()()
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

// check compares the files of the generations gens (of manifest m) with
// the sizes and checksums m records, before any of them is served: a file
// cut short, changed or damaged after it was written is refused, naming
// it, and the last good generation serves on. Files already checked are
// not read again. A manifest without checksums (a lake written before
// they were recorded) is served unchecked.
func (l *lakeState) check(m LakeManifest, gens map[string]string) error {
	if len(m.Files) == 0 {
		return nil
	}
	for k, gen := range gens {
		fam, name := k[:strings.IndexByte(k, 0)], k[strings.IndexByte(k, 0)+1:]
		for _, t := range lakeTables {
			if t.family != fam {
				continue
			}
			rel := lakeFileRel(t.name, fam, name, gen)
			want, ok := m.Files[rel]
			p := filepath.Join(l.dir, filepath.FromSlash(rel))
			if !ok {
				return &model.InputError{File: p, Offset: -1, Msg: "the manifest records no checksum for this file"}
			}
			if l.checked[rel] == want {
				continue
			}
			st, err := os.Stat(p)
			if err != nil {
				return &model.InputError{File: p, Offset: -1, Msg: "missing: the manifest names this generation, but its file is not there (a write not finished, or files removed)"}
			}
			if st.Size() != want.Size {
				return &model.InputError{File: p, Offset: -1, Msg: fmt.Sprintf("%d bytes, but the manifest says %d: the file was cut short or changed after it was written", st.Size(), want.Size)}
			}
			got, err := checksumFile(p)
			if err != nil {
				return &model.InputError{File: p, Offset: -1, Msg: "cannot be read: " + err.Error()}
			}
			if got != want {
				return &model.InputError{File: p, Offset: -1, Msg: "its SHA-256 does not match the manifest's: the file was changed or damaged after it was written"}
			}
			l.checked[rel] = want
		}
	}
	return nil
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
				return nil, &model.InputError{File: f, Offset: -1, Msg: "missing: the manifest names this generation, but its file is not there (a write not finished, or files removed)"}
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
			parts = append(parts, "SELECT "+strings.Join(sel, ", ")+" FROM read_parquet("+sqlString(globEscape(f))+")")
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

// errText is an error's text without the path a *PathError repeats.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
