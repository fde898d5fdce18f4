package data

import (
	"context"
	"crypto/sha256"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/auditscope/auditscope/data/model"
)

// A lake is the store's tables as Parquet files that other servers and
// engines read (issue: a Parquet lake; docs/FORMAT.md, "The Parquet
// lake"):
//
//	DIR/manifest.json
//	DIR/TABLE/dataset=NAME/gen=G/data.parquet      (AnnotatedPairs tables)
//	DIR/TABLE/experiment=NAME/gen=G/data.parquet   (experiment tables)
//
// A generation G names one content of a dataset or experiment: a hash of
// the imports that made it. Its files are written once and never changed;
// the manifest names the current generation of every dataset and
// experiment and is replaced atomically (written beside, then renamed), so
// a reader sees the old state or the new one, never a mix.

// LakeManifest is manifest.json.
type LakeManifest struct {
	Format      string               `json:"format"` // "auditscope-lake"
	Version     int                  `json:"version"`
	Written     string               `json:"written"`
	Datasets    map[string]string    `json:"datasets"`    // dataset id -> generation
	Experiments map[string]string    `json:"experiments"` // experiment id -> generation
	Tables      map[string]LakeTable `json:"tables"`
	// Files are the data files of the generations named above, by their
	// path under the lake (TABLE/dataset=NAME/gen=G/data.parquet), with
	// their size and SHA-256: a server checks them before it serves a
	// generation. Lakes written before these fields have none; their files
	// are served unchecked.
	Files map[string]LakeFile `json:"files,omitempty"`
	// Imported is when the newest import of each named generation landed
	// ("dataset NAME" or "experiment NAME" -> RFC 3339), and Superseded the
	// generations each name had before, oldest first: a write that would
	// put an older import back is refused (LakeWriteOptions.Force).
	Imported   map[string]string   `json:"imported,omitempty"`
	Superseded map[string][]string `json:"superseded,omitempty"`
}

// LakeFile is a data file as the writer left it.
type LakeFile struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// LakeTable says how a table is laid out in the lake.
type LakeTable struct {
	Partition string `json:"partition"` // dataset or experiment: the hive partition key
	Key       string `json:"key"`       // the table's column the partition holds (dropped from the files)
}

// lakeManifestVersion is the layout's version. Version 2 (migration 007)
// stores in ap_comparisons.votes only the votes its prefs codes do not tell
// whole; a reader of version 1 would miss the others on a comparison's
// page, so it refuses a version 2 lake rather than show it. This build
// reads both: version 1's votes list every vote, which its view reads too.
const lakeManifestVersion = 2

// lakeManifestVersions are the versions this build reads.
var lakeManifestVersions = []int{1, 2}

// lakeTables are the tables a lake holds, with their partition key column.
var lakeTables = []struct{ name, family, key string }{
	{"ap_datasets", "dataset", "id"},
	{"ap_annotators", "dataset", "dataset"},
	{"ap_comparisons", "dataset", "dataset"},
	{"ap_meta", "dataset", "dataset"},
	{"experiments", "experiment", "id"},
	{"behaviors", "experiment", "experiment"},
	{"runs", "experiment", "experiment"},
	{"auditors", "experiment", "experiment"},
	{"audits", "experiment", "experiment"},
	{"audit_scores", "experiment", "experiment"},
	{"audit_transcripts", "experiment", "experiment"},
	{"judgments", "experiment", "experiment"},
	{"crux", "experiment", "experiment"},
	{"metrics", "experiment", "experiment"},
	{"experiment_dimensions", "experiment", "experiment"},
	{"inspect_logs", "experiment", "experiment"},
	{"sample_scores", "experiment", "experiment"},
}

// LakeResult says what a lake write did.
type LakeResult struct {
	Written, Unchanged []string // "dataset NAME" or "experiment NAME"
}

// LakeWriteOptions control a lake write.
type LakeWriteOptions struct {
	// Force writes a dataset or experiment even where the lake holds a newer
	// import of it (a roll-back the user means).
	Force bool
	// Log, when set, is told what the write did besides writing: a writer
	// lock taken over from a writer that is gone.
	Log func(string)
}

// RollbackError is a lake write refused because it would put an older
// import of a dataset or experiment in place of a newer one.
type RollbackError struct {
	What               string // "dataset NAME" or "experiment NAME"
	Gen, LakeGen       string // this store's generation and the lake's
	Imported, LakeTime string // when each was imported ("" not known)
	Superseded         bool   // the lake replaced Gen before
}

func (e *RollbackError) Error() string {
	mine := "generation " + e.Gen
	if e.Imported != "" {
		mine += " (imported " + e.Imported + ")"
	}
	lake := "generation " + e.LakeGen
	if e.LakeTime != "" {
		lake += " (imported " + e.LakeTime + ")"
	}
	why := "older than the lake's " + lake
	if e.Superseded {
		why = "which the lake has already replaced; it holds " + lake + " now"
	}
	return fmt.Sprintf("lake: %s: this data holds %s, %s. Writing it would roll the lake back, so nothing was written; use --force to write it anyway", e.What, mine, why)
}

// WriteLake writes the store's datasets and experiments into the lake at
// dir: a new generation for each whose content the manifest does not have
// yet, then the manifest naming them, beside what it named before of other
// datasets and experiments. Generations the new manifest no longer names
// are left for readers still on the old one. Writes to one lake run one at
// a time (lakeLock). A write that would replace a dataset or experiment
// with an older import than the lake's is refused before anything is
// written, unless opts.Force.
func (s *Store) WriteLake(ctx context.Context, dir string, opts LakeWriteOptions) (LakeResult, error) {
	var res LakeResult
	// Absolute: DuckDB reads a leading ~ as the home folder.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return res, fmt.Errorf("lake: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("lake: %w", err)
	}
	lock, err := acquireLakeLock(dir, opts.Log)
	if err != nil {
		return res, err
	}
	defer lock.release()
	old, err := ReadLakeManifest(dir)
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
	if !opts.Force {
		for _, g := range gens {
			if err := old.rollback(g); err != nil {
				return res, err
			}
		}
	}
	// Datasets and experiments this store does not hold keep their entries:
	// several machines can write their results into one lake.
	m := LakeManifest{Format: "auditscope-lake", Version: lakeManifestVersion, Written: time.Now().UTC().Format(time.RFC3339),
		Datasets: cloneMap(old.Datasets), Experiments: cloneMap(old.Experiments), Tables: map[string]LakeTable{},
		Files: map[string]LakeFile{}, Imported: cloneMap(old.Imported), Superseded: map[string][]string{}}
	for k, v := range old.Superseded {
		m.Superseded[k] = slices.Clone(v)
	}
	for _, t := range lakeTables {
		m.Tables[t.name] = LakeTable{Partition: t.family, Key: t.key}
	}
	for _, g := range gens {
		target := m.Datasets
		if g.family == "experiment" {
			target = m.Experiments
		}
		what := g.family + " " + g.name
		if prev := target[g.name]; prev != "" && prev != g.gen {
			// The generation replaced is remembered, so it is not put back
			// by a later write of the older data; one named again (--force)
			// is current, not replaced.
			m.Superseded[what] = append(slices.DeleteFunc(m.Superseded[what], func(x string) bool { return x == prev }), prev)
			if n := len(m.Superseded[what]); n > maxSuperseded {
				m.Superseded[what] = m.Superseded[what][n-maxSuperseded:]
			}
		}
		m.Superseded[what] = slices.DeleteFunc(m.Superseded[what], func(x string) bool { return x == g.gen })
		if len(m.Superseded[what]) == 0 {
			delete(m.Superseded, what)
		}
		target[g.name] = g.gen
		if g.imported != "" {
			m.Imported[what] = g.imported
		}
		if old.has(g.family, g.name, g.gen) && lakeGenComplete(dir, g.family, g.name, g.gen) {
			res.Unchanged = append(res.Unchanged, what)
			continue
		}
		if err := s.writeLakeGeneration(ctx, dir, g.family, g.name, g.gen); err != nil {
			return res, err
		}
		res.Written = append(res.Written, what)
	}
	// Every named generation's files with their checksums: those of the
	// old manifest carried over, those written now (or missing from it,
	// from a lake written before checksums) read back.
	for _, fam := range []string{"dataset", "experiment"} {
		for _, name := range m.LakeNames(fam) {
			for _, t := range lakeTables {
				if t.family != fam {
					continue
				}
				rel := lakeFileRel(t.name, fam, name, m.gen(fam, name))
				f, ok := old.Files[rel]
				written := slices.Contains(res.Written, fam+" "+name)
				if !ok || written {
					if f, err = checksumFile(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
						if errors.Is(err, os.ErrNotExist) && !written && !slices.Contains(res.Unchanged, fam+" "+name) {
							continue // another writer's generation whose files are gone: its readers say so
						}
						return res, fmt.Errorf("lake: %w", err)
					}
				}
				m.Files[rel] = f
			}
		}
	}
	if len(res.Written) == 0 && maps.Equal(m.Datasets, old.Datasets) && maps.Equal(m.Experiments, old.Experiments) &&
		maps.Equal(m.Files, old.Files) && maps.Equal(m.Imported, old.Imported) {
		return res, nil // the same manifest: readers need not look again
	}
	return res, writeManifest(dir, &m)
}

// maxSuperseded bounds the generations a manifest remembers per name.
const maxSuperseded = 64

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	maps.Copy(out, m)
	return out
}

// rollback refuses g where the manifest names a newer generation of its
// dataset or experiment: one that replaced g, or one imported later.
func (m LakeManifest) rollback(g lakeGen) error {
	what := g.family + " " + g.name
	cur := m.gen(g.family, g.name)
	if cur == "" || cur == g.gen {
		return nil
	}
	e := &RollbackError{What: what, Gen: g.gen, LakeGen: cur, Imported: g.imported, LakeTime: m.Imported[what]}
	if slices.Contains(m.Superseded[what], g.gen) {
		e.Superseded = true
		return e
	}
	if e.Imported != "" && e.LakeTime != "" {
		mine, err1 := time.Parse(time.RFC3339Nano, e.Imported)
		theirs, err2 := time.Parse(time.RFC3339Nano, e.LakeTime)
		if err1 == nil && err2 == nil && mine.Before(theirs) {
			return e
		}
	}
	return nil
}

// gen is the generation the manifest names for a dataset or experiment.
func (m LakeManifest) gen(family, name string) string {
	if family == "dataset" {
		return m.Datasets[name]
	}
	return m.Experiments[name]
}

// lakeFileRel is a data file's path under the lake, slash-separated, as
// the manifest's Files name it.
func lakeFileRel(table, family, name, gen string) string {
	return table + "/" + family + "=" + name + "/gen=" + gen + "/data.parquet"
}

// checksumFile is a file's size and SHA-256.
func checksumFile(p string) (LakeFile, error) {
	f, err := os.Open(p)
	if err != nil {
		return LakeFile{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return LakeFile{}, fmt.Errorf("%s: %w", p, err)
	}
	return LakeFile{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

func (m LakeManifest) has(family, name, gen string) bool {
	return m.gen(family, name) == gen
}

// lakeGen is one dataset or experiment with its lake generation and when
// its newest import landed (RFC 3339, UTC).
type lakeGen struct{ family, name, gen, imported string }

// lakeGenerations lists the live datasets and experiments, each with a
// generation id made from the hashes of the imports that hold its rows (a
// full import and its appends).
func (s *Store) lakeGenerations(ctx context.Context) ([]lakeGen, error) {
	rows, err := s.db.QueryContext(ctx, liveImportsCTE+`SELECT `+familySQL+` AS family, name, list(hash ORDER BY id), max(imported_at)
		FROM imports WHERE id IN (SELECT id FROM live_imports) GROUP BY ALL ORDER BY family, name`)
	if err != nil {
		return nil, fmt.Errorf("lake: %w", err)
	}
	defer rows.Close()
	var out []lakeGen
	for rows.Next() {
		var g lakeGen
		var hashes []any
		var at time.Time
		if err := rows.Scan(&g.family, &g.name, &hashes, &at); err != nil {
			return nil, fmt.Errorf("lake: %w", err)
		}
		// The schema is part of a generation: files written by another
		// version of auditscope have other columns.
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00", schemaVersion())
		for _, x := range hashes {
			fmt.Fprintf(h, "%v\x00", x)
		}
		g.gen = hex.EncodeToString(h.Sum(nil))[:16]
		g.imported = at.UTC().Format(time.RFC3339Nano)
		out = append(out, g)
	}
	return out, rows.Err()
}

// lakeGenDir is where a table's generation of a dataset or experiment goes.
func lakeGenDir(dir, table, family, name, gen string) string {
	return filepath.Join(dir, table, family+"="+name, "gen="+gen)
}

// lakeGenComplete reports whether every table's file of a generation is
// there (a write killed half-way leaves some out).
func lakeGenComplete(dir, family, name, gen string) bool {
	for _, t := range lakeTables {
		if t.family != family {
			continue
		}
		if _, err := os.Stat(filepath.Join(lakeGenDir(dir, t.name, family, name, gen), "data.parquet")); err != nil {
			return false
		}
	}
	return true
}

// writeLakeGeneration writes every table of one dataset or experiment as
// a generation. Each file is written beside and renamed into place, so a
// file that is there is whole.
func (s *Store) writeLakeGeneration(ctx context.Context, dir, family, name, gen string) error {
	for _, t := range lakeTables {
		if t.family != family {
			continue
		}
		d := lakeGenDir(dir, t.name, family, name, gen)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		tmp := filepath.Join(d, ".data.parquet.tmp")
		// Table and column names come from lakeTables; the name is an id
		// of the store's, quoted. The partition key and the store's
		// generation are not in the file: the path holds them.
		sel := `SELECT * EXCLUDE (` + t.key + lakeGenColumn(t.name) + `)`
		if t.name == "audits" {
			// Transcripts served from memory are written out (below).
			sel += ` REPLACE (CASE WHEN transcript_file = ` + sqlString(memoryTranscript) + ` THEN NULL ELSE transcript_file END AS transcript_file)`
		}
		q := `COPY (` + sel + ` FROM ` + t.name + ` WHERE ` + t.key + ` = ` + sqlString(name) + `) TO ` +
			sqlString(tmp) + ` (FORMAT parquet, COMPRESSION zstd)`
		var err error
		if t.name == "audit_transcripts" && s.memoryTranscripts(name) != nil {
			err = s.copyTranscripts(ctx, name, tmp)
		} else {
			_, err = s.db.ExecContext(ctx, q)
		}
		if err != nil {
			return fmt.Errorf("lake: write %s of %s %s: %w", t.name, family, name, err)
		}
		// On disk before it is named as whole (a power loss must not leave
		// a manifest naming an empty file).
		if err := syncFile(tmp); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		if err := os.Rename(tmp, filepath.Join(d, "data.parquet")); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		if err := syncFile(d); err != nil {
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
	rows, err := conn.QueryContext(ctx, `SELECT id FROM audits WHERE experiment = ? AND transcript_file = ? ORDER BY ord`, exp, memoryTranscript)
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

// writeManifest replaces dir's manifest atomically.
func writeManifest(dir string, m *LakeManifest) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".manifest.json.tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("lake: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("lake: %w", err)
	}
	// On disk before the rename makes it the manifest.
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("lake: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("lake: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "manifest.json")); err != nil {
		return fmt.Errorf("lake: %w", err)
	}
	return syncFile(dir)
}

// syncFile flushes a file or folder to disk.
func syncFile(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// ReadLakeManifest reads dir's manifest. A missing one is os.ErrNotExist;
// a corrupt one is an *model.InputError naming the file.
func ReadLakeManifest(dir string) (LakeManifest, error) {
	p := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return LakeManifest{}, err
	}
	return parseLakeManifest(p, b)
}

// parseLakeManifest decodes a manifest read from p.
func parseLakeManifest(p string, b []byte) (LakeManifest, error) {
	var m LakeManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return LakeManifest{}, &model.InputError{File: p, Offset: -1, Msg: "not a lake manifest: " + err.Error()}
	}
	if m.Format != "auditscope-lake" || !slices.Contains(lakeManifestVersions, m.Version) {
		return LakeManifest{}, &model.InputError{File: p, Offset: -1, Msg: fmt.Sprintf("format %q version %d: want auditscope-lake version %d or %d (a newer lake needs a newer auditscope)", m.Format, m.Version, lakeManifestVersions[0], lakeManifestVersion)}
	}
	return m, nil
}

// LakeNames lists a manifest's datasets or experiments in name order.
func (m LakeManifest) LakeNames(family string) []string {
	src := m.Datasets
	if family == "experiment" {
		src = m.Experiments
	}
	out := make([]string, 0, len(src))
	for n := range src {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
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
