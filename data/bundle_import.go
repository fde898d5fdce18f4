package data

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/internal/memlimit"
)

// ImportBundleFile imports a bundle folder or .zip.
func (s *Store) ImportBundleFile(ctx context.Context, path string, opts ImportOptions) (model.ImportResult, error) {
	hash, err := hashBundle(path)
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	if r, ok, err := s.alreadyImported(ctx, model.KindBundle, opts.Name, hash); err != nil || ok {
		return r, err
	}
	src, closer, err := bundle.Open(path, opts.MaxValue)
	if err != nil {
		return model.ImportResult{}, bundleErr(path, err)
	}
	defer closer.Close()
	return s.ImportBundle(ctx, src, hash, opts)
}

// hashBundle hashes a zip file, or a folder's files in name order.
func hashBundle(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return hashFile(path)
	}
	var rels []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(path, p)
			rels = append(rels, rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return hashFiles(path, rels)
}

// hashFiles hashes the named files under root (relative paths) as
// hashBundle hashes a folder: in name order, each name then its content.
func hashFiles(root string, rels []string) (string, error) {
	sorted := slices.Clone(rels)
	slices.Sort(sorted)
	h := sha256.New()
	for _, rel := range sorted {
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// bundleErr prefixes a bundle error's position with the bundle path.
func bundleErr(root string, err error) error {
	var be *bundle.Error
	if errors.As(err, &be) {
		file := be.File
		if !filepath.IsAbs(file) && !strings.HasPrefix(file, root) {
			file = filepath.Join(root, file)
		}
		return &model.InputError{File: file, Line: be.Line, Offset: -1, Path: be.Field, Msg: be.Msg}
	}
	return err
}

// bundleRetries counts bundle imports run again at the default memory limit
// (for tests).
var bundleRetries atomic.Int64

// ImportBundle imports an experiment bundle in one transaction, validating
// every record. hash identifies the content (for idempotent re-imports).
func (s *Store) ImportBundle(ctx context.Context, src bundle.Source, hash string, opts ImportOptions) (res model.ImportResult, err error) {
	if r, ok, err := s.alreadyImported(ctx, model.KindBundle, opts.Name, hash); err != nil || ok {
		return r, err
	}
	run := func() error {
		return s.inImport(ctx, func(tx *importTx) error {
			res, err = importBundle(ctx, tx, src, hash, opts)
			return err
		})
	}
	err = s.mem.Import(ctx, bundleImportMemoryMiB, run)
	// The import rolled back; a bundle can be read again, so it runs once
	// more at DuckDB's default limit. Not after a failed commit (DuckDB may
	// have given up on the database) nor while another import holds the
	// limit lowered.
	if memlimit.IsOutOfMemory(err) && !errors.Is(err, errCommit) && s.mem.Enabled() && !s.mem.Lowered() {
		first := err
		bundleRetries.Add(1)
		if err = run(); err != nil {
			err = errors.Join(err, fmt.Errorf("(a first attempt under a %d MiB memory limit: %w)", bundleImportMemoryMiB, first))
		}
	}
	if err == nil && opts.DeferScores && !res.Unchanged {
		s.mu.Lock()
		if s.pendingScores == nil {
			s.pendingScores = map[string]bool{}
		}
		s.pendingScores[res.Name] = true
		s.mu.Unlock()
	}
	if err == nil && opts.Transcripts != nil {
		s.mu.Lock()
		if s.transcripts == nil {
			s.transcripts = map[string]func(string) ([]byte, error){}
		}
		s.transcripts[res.Name] = opts.Transcripts
		s.mu.Unlock()
	}
	if errors.Is(err, errUnchanged) {
		return model.ImportResult{Kind: sourceKind(src), Name: opts.Name, Source: src.Name(), Hash: hash, Unchanged: true}, nil
	}
	return res, bundleErr(src.Name(), err)
}

// sourceKind is the import kind a source records: model.KindBundle, or the kind
// a converted source (Petri transcripts, Inspect logs) reports.
func sourceKind(src bundle.Source) string {
	if k, ok := src.(interface{ Kind() string }); ok && k.Kind() != "" {
		return k.Kind()
	}
	return model.KindBundle
}

func fieldErr(p bundle.Pos, field, format string, args ...any) error {
	return &bundle.Error{Pos: p, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// insertAuditScores builds an experiment's long score table from each
// audit's scores object: one vectorised statement instead of a call per
// score. (Storing the rows sorted by dimension would let a score filter skip
// the other dimensions' row groups, but the sort of every score fails for
// want of memory under a --memory-limit the import itself passes.)
//
// The rows take the generation of the audits they come from. When they are
// built after the import (BuildPendingScores), a kill midway would leave
// part of them under a complete generation; only the built-in demo defers
// them, and it lives in an in-memory database.
func insertAuditScores(tx *importTx, exp string, gen int64) error {
	if err := tx.Exec(`INSERT INTO audit_scores (experiment, audit, dimension, score, gen) SELECT a.experiment, a.id, j.key, CAST(j.value AS DOUBLE), a.gen
FROM audits a, json_each(a.scores) j WHERE a.experiment = ? AND a.gen = ? AND a.scores IS NOT NULL`, exp, gen); err != nil {
		return fmt.Errorf("audit scores: %w", err)
	}
	return nil
}

// BuildPendingScores builds audit_scores for the experiments imported with
// DeferScores, each in its own transaction. Until it has run, score filters
// read the scores JSON of each audit (slower, same results).
func (s *Store) BuildPendingScores(ctx context.Context) error {
	s.mu.RLock()
	var exps []string
	for e := range s.pendingScores {
		exps = append(exps, e)
	}
	s.mu.RUnlock()
	for _, e := range exps {
		if err := s.inImport(ctx, func(tx *importTx) error {
			var gen int64
			if err := tx.conn.QueryRowContext(ctx, `SELECT max(import_id) FROM experiments WHERE id = ?`, e).Scan(&gen); err != nil {
				return err
			}
			return insertAuditScores(tx, e, gen)
		}); err != nil {
			return fmt.Errorf("data: build scores of %s: %w", e, err)
		}
		s.mu.Lock()
		delete(s.pendingScores, e)
		s.mu.Unlock()
	}
	return nil
}

// auditBatch is how many audits are prepared in parallel at a time.
const auditBatch = 1024

// auditItem is one validated audit on its way into the store.
type auditItem struct {
	pos      bundle.Pos
	a        *bundle.Audit
	ord      int
	t        *petri.Transcript
	body     []byte
	marshal  bool // body is to be marshalled from t
	scores   any  // JSON object or nil
	search   string
	messages int
	err      error
}

// prepareAudits decodes transcripts and builds the derived columns of a
// batch on every core.
func prepareAudits(items []auditItem) error {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(items); i += workers {
				items[i].prepare()
			}
		}(w)
	}
	wg.Wait()
	for i := range items {
		if items[i].err != nil {
			return items[i].err
		}
	}
	return nil
}

func (it *auditItem) prepare() {
	if it.marshal {
		b, err := json.Marshal(it.t)
		if err != nil {
			it.err = fieldErr(it.pos, "transcript", "%v", err)
			return
		}
		it.body = b
	}
	if it.t == nil {
		t := new(petri.Transcript)
		if err := json.Unmarshal(it.body, t); err != nil {
			it.err = fieldErr(it.pos, "transcript", "not a Petri transcript: %s", describeErr(err))
			return
		}
		it.t = t
	}
	// Stored lower-cased so search is a plain LIKE (several times faster
	// than ILIKE over hundreds of MB).
	it.search = strings.ToLower(it.a.Summary + "\n" + it.t.SearchText())
	it.messages = it.t.MessageCount()
	scores := it.a.Scores
	if len(it.a.Columns) > 0 {
		scores = maps.Clone(it.a.Columns)
		maps.Copy(scores, it.a.Scores)
	}
	it.scores = scoresJSON(scores)
}

// scoresJSON writes scores as a JSON object with sorted keys (nil when there
// are none).
func scoresJSON(scores map[string]float64) any {
	if len(scores) == 0 {
		return nil
	}
	dims := make([]string, 0, len(scores))
	for d := range scores {
		dims = append(dims, d)
	}
	slices.Sort(dims)
	b := make([]byte, 0, 24*len(dims))
	b = append(b, '{')
	for i, d := range dims {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonin.AppendString(b, d)
		b = append(b, ':')
		// Judge scores are nearly always whole numbers; AppendInt is several
		// times faster than the shortest float formatting.
		if v := scores[d]; v == math.Trunc(v) && math.Abs(v) < 1e15 {
			b = strconv.AppendInt(b, int64(v), 10)
		} else {
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
	}
	return string(append(b, '}'))
}

func describeErr(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return jsonin.Describe(typ)
	}
	return err.Error()
}

func optInt(p *int) any {
	if p == nil {
		return nil
	}
	return int32(*p)
}

func optBool(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

func optFloat(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
