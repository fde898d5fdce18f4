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
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/petri"

	"github.com/auditscope/auditscope/data/internal/jsonword"
)

// ImportBundleFile imports a bundle folder or .zip.
func (s *Store) ImportBundleFile(ctx context.Context, path string, opts ImportOptions) (ImportResult, error) {
	hash, err := hashBundle(path)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	if r, ok, err := s.alreadyImported(ctx, KindBundle, opts.Name, hash); err != nil || ok {
		return r, err
	}
	src, closer, err := bundle.Open(path, opts.MaxValue)
	if err != nil {
		return ImportResult{}, bundleErr(path, err)
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
	h := sha256.New()
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	for _, p := range files {
		rel, _ := filepath.Rel(path, p)
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		f, err := os.Open(p)
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
		return &InputError{File: file, Line: be.Line, Offset: -1, Path: be.Field, Msg: be.Msg}
	}
	return err
}

// bundleRetries counts bundle imports run again at the default memory limit
// (for tests).
var bundleRetries atomic.Int64

// ImportBundle imports an experiment bundle in one transaction, validating
// every record. hash identifies the content (for idempotent re-imports).
func (s *Store) ImportBundle(ctx context.Context, src bundle.Source, hash string, opts ImportOptions) (res ImportResult, err error) {
	if r, ok, err := s.alreadyImported(ctx, KindBundle, opts.Name, hash); err != nil || ok {
		return r, err
	}
	run := func() error {
		return s.inImport(ctx, func(tx *importTx) error {
			res, err = importBundle(ctx, tx, src, hash, opts)
			return err
		})
	}
	err = s.lowMemoryImport(ctx, bundleImportMemoryMiB, run)
	// The import rolled back; a bundle can be read again, so it runs once
	// more at DuckDB's default limit. Not after a failed commit (DuckDB may
	// have given up on the database) nor while another import holds the
	// limit lowered.
	if isOutOfMemory(err) && !errors.Is(err, errCommit) && s.lowersMemory() && !s.memoryLowered() {
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
		return ImportResult{Kind: sourceKind(src), Name: opts.Name, Source: src.Name(), Hash: hash, Unchanged: true}, nil
	}
	return res, bundleErr(src.Name(), err)
}

// sourceKind is the import kind a source records: KindBundle, or the kind
// a converted source (Petri transcripts, Inspect logs) reports.
func sourceKind(src bundle.Source) string {
	if k, ok := src.(interface{ Kind() string }); ok && k.Kind() != "" {
		return k.Kind()
	}
	return KindBundle
}

func fieldErr(p bundle.Pos, field, format string, args ...any) error {
	return &bundle.Error{Pos: p, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func importBundle(ctx context.Context, tx *importTx, src bundle.Source, hash string, opts ImportOptions) (ImportResult, error) {
	exp, err := src.Experiment()
	if err != nil {
		return ImportResult{}, err
	}
	expPos := bundle.Pos{File: bundle.FileExperiment}
	if strings.TrimSpace(exp.Name) == "" {
		return ImportResult{}, fieldErr(expPos, "name", "missing: the experiment needs a name")
	}
	id := opts.Name
	if id == "" {
		id = exp.ID
		if id != "" && !validName(id) {
			return ImportResult{}, fieldErr(expPos, "id", "%q is not URL-safe: use lower-case letters, digits, '.', '_' and '-'", id)
		}
	}
	if id == "" {
		id = Slugify(exp.Name)
	}
	kind := sourceKind(src)
	if err := tx.claim(kind, id, hash, opts.Replace); err != nil {
		return ImportResult{}, err
	}
	counts := map[string]int64{}

	// Behaviors.
	split := map[string]string{}
	ab, err := tx.appender("behaviors")
	if err != nil {
		return ImportResult{}, err
	}
	defer ab.close()
	for i, b := range exp.Behaviors {
		f := fmt.Sprintf("behaviors[%d]", i)
		switch {
		case b.ID == "":
			return ImportResult{}, fieldErr(expPos, f+".id", "missing")
		case split[b.ID] != "":
			return ImportResult{}, fieldErr(expPos, f+".id", "duplicate behavior id %q", b.ID)
		case b.Split != bundle.SplitTrain && b.Split != bundle.SplitHeldout:
			return ImportResult{}, fieldErr(expPos, f+".split", "want \"train\" or \"heldout\", found %q", b.Split)
		}
		split[b.ID] = b.Split
		if err := ab.row(id, b.ID, b.Category, b.Split, b.Description); err != nil {
			return ImportResult{}, err
		}
	}
	if err := ab.close(); err != nil {
		return ImportResult{}, err
	}
	counts["behaviors"] = int64(len(exp.Behaviors))

	// Runs.
	runs := map[string]bool{}
	ar, err := tx.appender("runs")
	if err != nil {
		return ImportResult{}, err
	}
	defer ar.close()
	err = src.Runs(func(p bundle.Pos, r *bundle.Run) error {
		switch {
		case r.ID == "":
			return fieldErr(p, "id", "missing")
		case runs[r.ID]:
			return fieldErr(p, "id", "duplicate run id %q", r.ID)
		case r.CalibrationFraction < 0 || r.CalibrationFraction > 1:
			return fieldErr(p, "calibration_fraction", "want a fraction in [0, 1], found %v", r.CalibrationFraction)
		case r.RefreshSteps != nil && !countRange(*r.RefreshSteps):
			return fieldErr(p, "refresh_steps", "want a whole number from 0 to %d, found %d", math.MaxInt32, *r.RefreshSteps)
		}
		runs[r.ID] = true
		var refresh any
		if r.RefreshSteps != nil {
			refresh = int32(*r.RefreshSteps)
		}
		name := r.Name
		if name == "" {
			name = r.ID
		}
		return ar.row(id+":"+r.ID, id, r.ID, name, r.Reward, r.CalibrationFraction, r.MultiTarget, refresh, r.BaseModel, int32(len(runs)))
	})
	if err != nil {
		return ImportResult{}, err
	}
	if err := ar.close(); err != nil {
		return ImportResult{}, err
	}
	counts["runs"] = int64(len(runs))

	// Auditors.
	auditors := map[string]bool{}
	aa, err := tx.appender("auditors")
	if err != nil {
		return ImportResult{}, err
	}
	defer aa.close()
	err = src.Auditors(func(p bundle.Pos, a *bundle.Auditor) error {
		switch {
		case a.ID == "":
			return fieldErr(p, "id", "missing")
		case auditors[a.ID]:
			return fieldErr(p, "id", "duplicate auditor id %q", a.ID)
		case a.Kind != bundle.KindBaseline && a.Kind != bundle.KindCheckpoint:
			return fieldErr(p, "kind", "want \"baseline\" or \"checkpoint\", found %q", a.Kind)
		case a.Kind == bundle.KindCheckpoint && a.Run == "":
			return fieldErr(p, "run", "missing: a checkpoint names its run")
		case a.Run != "" && !runs[a.Run]:
			return fieldErr(p, "run", "no run %q in %s", a.Run, bundle.FileRuns)
		case a.Epoch != nil && !countRange(*a.Epoch):
			return fieldErr(p, "epoch", "want a whole number from 0 to %d, found %d", math.MaxInt32, *a.Epoch)
		case a.Step != nil && !countRange(*a.Step):
			return fieldErr(p, "step", "want a whole number from 0 to %d, found %d", math.MaxInt32, *a.Step)
		}
		auditors[a.ID] = true
		name := a.Name
		if name == "" {
			name = a.ID
		}
		return aa.row(id+":"+a.ID, id, a.ID, name, a.Kind, nullString(a.Run), optInt(a.Epoch), optInt(a.Step), int32(len(auditors)))
	})
	if err != nil {
		return ImportResult{}, err
	}
	if err := aa.close(); err != nil {
		return ImportResult{}, err
	}
	counts["auditors"] = int64(len(auditors))

	// Audits, their scores and transcripts.
	audits := map[string]bool{}
	au, err := tx.appender("audits")
	if err != nil {
		return ImportResult{}, err
	}
	defer au.close()
	at, err := tx.appender("audit_transcripts")
	if err != nil {
		return ImportResult{}, err
	}
	defer at.close()
	validEval := map[string]bool{}
	for _, e := range bundle.Evals {
		validEval[e] = true
	}
	var nScores int64
	dimCount := map[string]int{}
	// Audits are validated in order, then prepared in batches on every core
	// (decoding transcripts, building search text and score JSON, the costly
	// part) and appended in order.
	batch := make([]auditItem, 0, auditBatch)
	flush := func() error {
		if err := prepareAudits(batch); err != nil {
			return err
		}
		for i := range batch {
			it := &batch[i]
			a := it.a
			sp := bundle.SplitBenign
			if a.Behavior != "" {
				sp = split[a.Behavior]
			}
			var labels, strategy any
			if len(a.Labels) > 0 {
				labels = mustJSON(a.Labels)
				if st, ok := a.Labels["strategy"]; ok {
					strategy = st
				}
			}
			var file any
			if it.body == nil {
				file = memoryTranscript
			}
			if err := au.row(id+":"+a.ID, id, a.ID, int32(it.ord), a.Auditor, a.Eval, nullString(a.Behavior), sp, a.Seed, a.Target, int32(a.Turns),
				optBool(a.Outcome.Detected), optBool(a.Outcome.FalsePositive), optFloat(a.Outcome.Quality), optFloat(a.Outcome.ProductionValue),
				a.Summary, it.scores, labels, strategy, int32(it.messages), int64(len(it.body)), file, it.search); err != nil {
				return err
			}
			nScores += int64(len(a.Scores))
			for d := range a.Scores {
				dimCount[d]++
			}
			if it.body != nil {
				if err := at.row(id, a.ID, string(it.body)); err != nil {
					return err
				}
			}
		}
		batch = batch[:0]
		return ctx.Err()
	}
	err = src.Audits(func(p bundle.Pos, a *bundle.Audit, raw json.RawMessage) error {
		switch {
		case a.ID == "":
			return fieldErr(p, "id", "missing")
		case audits[a.ID]:
			return fieldErr(p, "id", "duplicate audit id %q", a.ID)
		case !auditors[a.Auditor]:
			return fieldErr(p, "auditor", "no auditor %q in %s", a.Auditor, bundle.FileAuditors)
		case !validEval[a.Eval]:
			return fieldErr(p, "eval", "unknown eval %q: want one of %s", a.Eval, strings.Join(bundle.Evals, ", "))
		case a.Behavior != "" && split[a.Behavior] == "":
			return fieldErr(p, "behavior", "no behavior %q in %s", a.Behavior, bundle.FileExperiment)
		case a.Turns < 0:
			return fieldErr(p, "turns", "want a count >= 0, found %d", a.Turns)
		}
		if q := a.Outcome.Quality; q != nil && (*q < 0 || *q > 100 || math.IsNaN(*q)) {
			return fieldErr(p, "outcome.quality", "want 0–100, found %v", *q)
		}
		if q := a.Outcome.ProductionValue; q != nil && (*q < 0 || *q > 100 || math.IsNaN(*q)) {
			return fieldErr(p, "outcome.production_value", "want 0–100, found %v", *q)
		}
		for d, v := range a.Scores {
			if v < 1 || v > 10 || math.IsNaN(v) {
				return fieldErr(p, "scores."+d, "want a score from 1 to 10, found %v", v)
			}
		}
		audits[a.ID] = true
		it := auditItem{pos: p, a: a, ord: len(audits)}
		switch {
		case raw != nil && a.TranscriptPath != "", a.Transcript != nil && a.TranscriptPath != "":
			return fieldErr(p, "transcript_path", "give either transcript or transcript_path, not both")
		case raw != nil:
			// An in-memory bundle passes the JSON and may keep the struct.
			it.body, it.t = raw, a.Transcript
		case a.Transcript != nil && opts.Transcripts != nil:
			// Served from memory on demand; nothing to store.
			it.t = a.Transcript
		case a.Transcript != nil:
			it.t, it.marshal = a.Transcript, true
		case a.TranscriptPath != "":
			if !fs.ValidPath(a.TranscriptPath) || strings.Contains(a.TranscriptPath, `\`) {
				return fieldErr(p, "transcript_path", "%q leaves the bundle: give a path relative to the bundle folder, without ..", a.TranscriptPath)
			}
			b, err := src.ReadFile(a.TranscriptPath)
			if err != nil {
				return fieldErr(p, "transcript_path", "%v", err)
			}
			it.body = b
		default:
			return fieldErr(p, "transcript", "missing: give transcript or transcript_path")
		}
		batch = append(batch, it)
		if len(batch) == auditBatch {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	if err != nil {
		return ImportResult{}, err
	}
	for _, a := range []*appender{au, at} {
		if err := a.close(); err != nil {
			return ImportResult{}, err
		}
	}
	counts["audits"] = int64(len(audits))
	counts["scores"] = nScores
	if !opts.DeferScores {
		if err := insertAuditScores(tx, id, tx.gen); err != nil {
			return ImportResult{}, err
		}
	}
	// The dimensions and how many audits carry each, counted as the audits
	// went by (audit_scores may not exist yet).
	ad, err := tx.appender("experiment_dimensions")
	if err != nil {
		return ImportResult{}, err
	}
	defer ad.close()
	dimNames := make([]string, 0, len(dimCount))
	for d := range dimCount {
		dimNames = append(dimNames, d)
	}
	slices.Sort(dimNames)
	for _, d := range dimNames {
		if err := ad.row(id, d, int32(dimCount[d])); err != nil {
			return ImportResult{}, err
		}
	}
	if err := ad.close(); err != nil {
		return ImportResult{}, err
	}
	if !opts.DeferScores {
		tx.rows += nScores
	}

	// Judgments.
	judgments := map[string]bool{}
	aj, err := tx.appender("judgments")
	if err != nil {
		return ImportResult{}, err
	}
	defer aj.close()
	kinds := map[string]bool{bundle.JudgmentReference: true, bundle.JudgmentIntragroup: true, bundle.JudgmentRealism: true, bundle.JudgmentCrux: true}
	outcomes := map[string]bool{bundle.OutcomeLeft: true, bundle.OutcomeRight: true, bundle.OutcomeTie: true}
	side := func(p bundle.Pos, field, v string) error {
		if v == "" {
			return fieldErr(p, field, "missing")
		}
		if strings.HasPrefix(v, bundle.ExternalPrefix) || audits[v] {
			return nil
		}
		return fieldErr(p, field, "no audit %q in %s (external items are written %q)", v, bundle.FileAudits, bundle.ExternalPrefix+v)
	}
	err = src.Judgments(func(p bundle.Pos, j *bundle.Judgment) error {
		switch {
		case j.ID == "":
			return fieldErr(p, "id", "missing")
		case judgments[j.ID]:
			return fieldErr(p, "id", "duplicate judgment id %q", j.ID)
		case !kinds[j.Kind]:
			return fieldErr(p, "kind", "want reference, intragroup, realism or crux, found %q", j.Kind)
		case !outcomes[j.Outcome]:
			return fieldErr(p, "outcome", "want left, right or tie, found %q", j.Outcome)
		case j.Behavior != "" && split[j.Behavior] == "":
			return fieldErr(p, "behavior", "no behavior %q in %s", j.Behavior, bundle.FileExperiment)
		}
		if err := side(p, "left", j.Left); err != nil {
			return err
		}
		if err := side(p, "right", j.Right); err != nil {
			return err
		}
		judgments[j.ID] = true
		sp := bundle.SplitBenign
		if j.Behavior != "" {
			sp = split[j.Behavior]
		}
		return aj.row(id+":"+j.ID, id, j.ID, int32(len(judgments)), j.Kind, j.Left, j.Right, nullString(j.Behavior), sp, j.Outcome, j.Judge, j.Reasoning)
	})
	if err != nil {
		return ImportResult{}, err
	}
	if err := aj.close(); err != nil {
		return ImportResult{}, err
	}
	counts["judgments"] = int64(len(judgments))

	// Crux.
	cruxSeen := map[string]bool{}
	ac, err := tx.appender("crux")
	if err != nil {
		return ImportResult{}, err
	}
	defer ac.close()
	err = src.Crux(func(p bundle.Pos, c *bundle.Crux) error {
		switch {
		case !auditors[c.Auditor]:
			return fieldErr(p, "auditor", "no auditor %q in %s", c.Auditor, bundle.FileAuditors)
		case cruxSeen[c.Auditor]:
			return fieldErr(p, "auditor", "duplicate crux row for %q", c.Auditor)
		case c.N <= 0:
			return fieldErr(p, "n", "want the number of evaluations (> 0), found %d", c.N)
		}
		for i, v := range c.Features() {
			lo := 0.0
			if i >= 4 {
				lo = -1
			}
			if v < lo || v > 1 || math.IsNaN(v) {
				return fieldErr(p, bundle.CruxFeatureNames[i], "want a value in [%g, 1], found %v", lo, v)
			}
		}
		cruxSeen[c.Auditor] = true
		return ac.row(id, c.Auditor, int32(c.N), c.TargetFocused, c.AuditorView, c.PairwiseWin, c.PairwiseLoss, c.DSignal, c.DCraft, c.DRealism, c.DEvidence)
	})
	if err != nil {
		return ImportResult{}, err
	}
	if err := ac.close(); err != nil {
		return ImportResult{}, err
	}
	counts["crux"] = int64(len(cruxSeen))

	// Metrics.
	am, err := tx.appender("metrics")
	if err != nil {
		return ImportResult{}, err
	}
	defer am.close()
	var nMetrics int64
	// A metric is one value per run, step and name: a second row would be
	// averaged with the first by nobody and plotted as a zigzag.
	metricSeen := map[metricKey]int{}
	err = src.Metrics(func(p bundle.Pos, m *bundle.Metric) error {
		switch {
		case !runs[m.Run]:
			return fieldErr(p, "run", "no run %q in %s", m.Run, bundle.FileRuns)
		case m.Name == "":
			return fieldErr(p, "name", "missing")
		case !countRange(m.Step):
			return fieldErr(p, "step", "want a whole number from 0 to %d, found %d", math.MaxInt32, m.Step)
		case math.IsNaN(m.Value) || math.IsInf(m.Value, 0):
			return fieldErr(p, "value", "want a finite number")
		}
		k := metricKey{m.Run + "\x00" + m.Name, m.Step}
		if line, dup := metricSeen[k]; dup {
			return fieldErr(p, "name", "a second %q for run %q at step %d (the first is on line %d)", m.Name, m.Run, m.Step, line)
		}
		metricSeen[k] = p.Line
		nMetrics++
		return am.row(id, m.Run, int32(m.Step), m.Name, m.Value)
	})
	if err != nil {
		return ImportResult{}, err
	}
	if err := am.close(); err != nil {
		return ImportResult{}, err
	}
	counts["metrics"] = nMetrics

	r := ImportResult{Kind: kind, Name: id, Source: src.Name(), Hash: hash, Counts: counts}
	if n, ok := src.(interface{ Notes() []string }); ok {
		r.Notes = n.Notes()
	}
	importID, err := tx.record(&r)
	if err != nil {
		return r, err
	}
	if err := tx.exec(`INSERT INTO experiments (id, import_id, name, description, synthetic, format) VALUES (?, ?, ?, ?, ?, ?)`,
		id, importID, exp.Name, exp.Description, exp.Synthetic || opts.Synthetic, kind); err != nil {
		return r, fmt.Errorf("insert experiment: %w", err)
	}
	r.Rows = tx.rows + 2
	return r, nil
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
	if err := tx.exec(`INSERT INTO audit_scores (experiment, audit, dimension, score, gen) SELECT a.experiment, a.id, j.key, CAST(j.value AS DOUBLE), a.gen
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
	it.scores = scoresJSON(it.a.Scores)
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
		b = appendJSONString(b, d)
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

// appendJSONString quotes s; plain identifiers skip encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func describeErr(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return jsonword.Describe(typ)
	}
	return err.Error()
}

// metricKey identifies a metric row: run and name, and the step.
type metricKey struct {
	runName string
	step    int
}

// countRange reports whether n is a valid epoch or step: stored as 32-bit
// integers, and never negative.
func countRange(n int) bool { return n >= 0 && n <= math.MaxInt32 }

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
