package data

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
)

// bundleLoad is one bundle import in progress. Each section of the bundle
// is read by a method that checks every record (the check* functions, which
// write nothing) and then appends it; the maps hold what later sections
// refer to.
type bundleLoad struct {
	ctx    context.Context
	tx     *importTx
	src    bundle.Source
	opts   ImportOptions
	id     string // the experiment's id
	counts map[string]int64

	split     map[string]string // behavior -> train or heldout
	runs      map[string]bool
	auditors  map[string]bool
	audits    map[string]bool
	dimCount  map[string]int // judge dimension -> audits that carry it
	nScores   int64
	validEval map[string]bool

	// app is set when the load appends to an existing experiment
	// (AppendLogs) rather than creating it.
	app *appendState
}

// appendState is what an append knows of the experiment it extends.
type appendState struct {
	base     int64             // the experiment's full import
	firstOrd int               // the ord of the first new audit
	existing map[string]bool   // the candidate audit ids already there
	source   map[string]string // and the file each came from
	logOrd   map[string]int32
	logHead  map[string]string // a log's newest stored header, to skip an unchanged one
	nextLog  int32
	added    int // new audits
	headers  int // new or changed log headers
}

func importBundle(ctx context.Context, tx *importTx, src bundle.Source, hash string, opts ImportOptions) (model.ImportResult, error) {
	exp, err := src.Experiment()
	if err != nil {
		return model.ImportResult{}, err
	}
	id, err := experimentID(&exp, opts)
	if err != nil {
		return model.ImportResult{}, err
	}
	kind := sourceKind(src)
	tx.source = src.Name()
	id, err = claimExperiment(tx, kind, id, hash, src, &exp, opts)
	if err != nil {
		return model.ImportResult{}, err
	}
	l := &bundleLoad{ctx: ctx, tx: tx, src: src, opts: opts, id: id, counts: map[string]int64{},
		split: map[string]string{}, runs: map[string]bool{}, auditors: map[string]bool{}, audits: map[string]bool{},
		dimCount: map[string]int{}, validEval: map[string]bool{}}
	for _, e := range model.Evals {
		l.validEval[e] = true
	}
	for _, section := range []func() error{
		func() error { return l.behaviors(&exp) }, l.loadRuns, l.loadAuditors, l.loadAudits,
		l.dimensions, l.judgments, l.crux, l.metrics, l.inspectLogs,
	} {
		if err := section(); err != nil {
			return model.ImportResult{}, err
		}
	}
	r := model.ImportResult{Kind: kind, Name: id, Source: src.Name(), Hash: hash, Counts: l.counts}
	if n, ok := src.(interface{ Notes() []string }); ok {
		r.Notes = n.Notes()
	}
	importID, err := tx.Record(&r)
	if err != nil {
		return r, err
	}
	if err := tx.Exec(`INSERT INTO experiments (id, import_id, name, description, synthetic, format) VALUES (?, ?, ?, ?, ?, ?)`,
		id, importID, exp.Name, exp.Description, exp.Synthetic || opts.Synthetic, kind); err != nil {
		return r, fmt.Errorf("insert experiment: %w", err)
	}
	r.Rows = tx.rows + 2
	return r, nil
}

// claimExperiment claims the experiment's name. An Inspect log named after
// its file (no --name) whose name holds another run already (an earlier
// import, or another file of this import) takes the next of the names that
// tell runs apart: the file's name with the log's model, then with its run
// id as well. It returns the name claimed.
func claimExperiment(tx *importTx, kind, id, hash string, src bundle.Source, exp *bundle.Experiment, opts ImportOptions) (string, error) {
	alt, _ := src.(interface{ RunNames() []string })
	if opts.Name != "" || opts.Replace || alt == nil {
		return id, tx.Claim(kind, id, hash, opts.Replace)
	}
	names := append([]string{id}, alt.RunNames()...)
	var first error
	for _, n := range names {
		err := tx.Claim(kind, n, hash, false)
		if err == nil || errors.Is(err, errUnchanged) {
			if n != id {
				exp.Name = n
			}
			return n, err
		}
		if !errors.Is(err, ErrExists) {
			return n, err
		}
		if first == nil {
			first = err
		}
	}
	return id, fmt.Errorf("%w (the names that tell its run apart, %s, are taken too)", first, strings.Join(names[1:], ", "))
}

// experimentID is --name, else the bundle's id, else its name made URL-safe.
func experimentID(exp *bundle.Experiment, opts ImportOptions) (string, error) {
	expPos := bundle.Pos{File: bundle.FileExperiment}
	if strings.TrimSpace(exp.Name) == "" {
		return "", fieldErr(expPos, "name", "missing: the experiment needs a name")
	}
	id := opts.Name
	if id == "" {
		id = exp.ID
		if id != "" && !model.ValidName(id) {
			return "", fieldErr(expPos, "id", "%q is not URL-safe: use lower-case letters, digits, '.', '_' and '-'", id)
		}
	}
	if id == "" {
		id = model.Slugify(exp.Name)
	}
	return id, nil
}

// section opens an appender on table, runs fill with it and closes it.
func (l *bundleLoad) section(table string, fill func(a *appender) error) error {
	a, err := l.tx.appender(table)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := fill(a); err != nil {
		return err
	}
	return a.Close()
}

func checkBehavior(i int, b bundle.Behavior, split map[string]string) error {
	p, f := bundle.Pos{File: bundle.FileExperiment}, fmt.Sprintf("behaviors[%d]", i)
	switch {
	case b.ID == "":
		return fieldErr(p, f+".id", "missing")
	case split[b.ID] != "":
		return fieldErr(p, f+".id", "duplicate behavior id %q", b.ID)
	case b.Split != bundle.SplitTrain && b.Split != bundle.SplitHeldout:
		return fieldErr(p, f+".split", "want \"train\" or \"heldout\", found %q", b.Split)
	}
	return nil
}

func (l *bundleLoad) behaviors(exp *bundle.Experiment) error {
	l.counts["behaviors"] = int64(len(exp.Behaviors))
	return l.section("behaviors", func(a *appender) error {
		for i, b := range exp.Behaviors {
			if l.app != nil && l.split[b.ID] != "" {
				continue // declared by the experiment already
			}
			if err := checkBehavior(i, b, l.split); err != nil {
				return err
			}
			l.split[b.ID] = b.Split
			if err := a.Row(l.id, b.ID, b.Category, b.Split, b.Description); err != nil {
				return err
			}
		}
		return nil
	})
}

func checkRun(p bundle.Pos, r *bundle.Run, runs map[string]bool) error {
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
	return nil
}

func (l *bundleLoad) loadRuns() error {
	err := l.section("runs", func(a *appender) error {
		return l.src.Runs(func(p bundle.Pos, r *bundle.Run) error {
			if err := checkRun(p, r, l.runs); err != nil {
				return err
			}
			l.runs[r.ID] = true
			var refresh any
			if r.RefreshSteps != nil {
				refresh = int32(*r.RefreshSteps)
			}
			return a.Row(l.id+":"+r.ID, l.id, r.ID, cmp.Or(r.Name, r.ID), r.Reward, r.CalibrationFraction, r.MultiTarget, refresh, r.BaseModel, int32(len(l.runs)))
		})
	})
	l.counts["runs"] = int64(len(l.runs))
	return err
}

func checkAuditor(p bundle.Pos, a *bundle.Auditor, auditors, runs map[string]bool) error {
	switch {
	case a.ID == "":
		return fieldErr(p, "id", "missing")
	case auditors[a.ID]:
		return fieldErr(p, "id", "duplicate auditor id %q", a.ID)
	case a.Kind != model.AuditorBaseline && a.Kind != model.AuditorCheckpoint:
		return fieldErr(p, "kind", "want \"baseline\" or \"checkpoint\", found %q", a.Kind)
	case a.Kind == model.AuditorCheckpoint && a.Run == "":
		return fieldErr(p, "run", "missing: a checkpoint names its run")
	case a.Run != "" && !runs[a.Run]:
		return fieldErr(p, "run", "no run %q in %s", a.Run, bundle.FileRuns)
	case a.Epoch != nil && !countRange(*a.Epoch):
		return fieldErr(p, "epoch", "want a whole number from 0 to %d, found %d", math.MaxInt32, *a.Epoch)
	case a.Step != nil && !countRange(*a.Step):
		return fieldErr(p, "step", "want a whole number from 0 to %d, found %d", math.MaxInt32, *a.Step)
	}
	return nil
}

func (l *bundleLoad) loadAuditors() error {
	err := l.section("auditors", func(w *appender) error {
		return l.src.Auditors(func(p bundle.Pos, a *bundle.Auditor) error {
			if l.app != nil && l.auditors[a.ID] {
				return nil // in the experiment already
			}
			if err := checkAuditor(p, a, l.auditors, l.runs); err != nil {
				return err
			}
			l.auditors[a.ID] = true
			return w.Row(l.id+":"+a.ID, l.id, a.ID, cmp.Or(a.Name, a.ID), a.Kind, load.NullString(a.Run), optInt(a.Epoch), optInt(a.Step), int32(len(l.auditors)))
		})
	})
	l.counts["auditors"] = int64(len(l.auditors))
	return err
}

// checkAudit checks an audit's fields against what the bundle declared.
func (l *bundleLoad) checkAudit(p bundle.Pos, a *bundle.Audit) error {
	switch {
	case a.ID == "":
		return fieldErr(p, "id", "missing")
	case l.audits[a.ID]:
		return fieldErr(p, "id", "duplicate audit id %q", a.ID)
	case !l.auditors[a.Auditor]:
		return fieldErr(p, "auditor", "no auditor %q in %s", a.Auditor, bundle.FileAuditors)
	case a.Sample && (a.Eval != "" || a.Behavior != "" || a.Target != ""):
		return fieldErr(p, "eval", "an Inspect sample that is not an audit has no eval, behavior or target")
	case !a.Sample && !l.validEval[a.Eval]:
		return fieldErr(p, "eval", "unknown eval %q: want one of %s", a.Eval, strings.Join(model.Evals, ", "))
	case a.Behavior != "" && l.split[a.Behavior] == "":
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
	return nil
}

// auditItem finds an audit's transcript: given inline (raw, from an
// in-memory bundle, or decoded), served from memory, or read from the
// bundle's transcript_path.
func (l *bundleLoad) auditItem(p bundle.Pos, a *bundle.Audit, raw json.RawMessage) (auditItem, error) {
	it := auditItem{pos: p, a: a, ord: len(l.audits)}
	if l.app != nil {
		it.ord = l.app.firstOrd + l.app.added
	}
	switch {
	case raw != nil && a.TranscriptPath != "", a.Transcript != nil && a.TranscriptPath != "":
		return it, fieldErr(p, "transcript_path", "give either transcript or transcript_path, not both")
	case raw != nil:
		// An in-memory bundle passes the JSON and may keep the struct.
		it.body, it.t = raw, a.Transcript
	case a.Transcript != nil && l.opts.Transcripts != nil:
		// Served from memory on demand; nothing to store.
		it.t = a.Transcript
	case a.Transcript != nil:
		it.t, it.marshal = a.Transcript, true
	case a.TranscriptPath != "":
		if !fs.ValidPath(a.TranscriptPath) || strings.Contains(a.TranscriptPath, `\`) {
			return it, fieldErr(p, "transcript_path", "%q leaves the bundle: give a path relative to the bundle folder, without ..", a.TranscriptPath)
		}
		b, err := l.src.ReadFile(a.TranscriptPath)
		if err != nil {
			return it, fieldErr(p, "transcript_path", "%v", err)
		}
		it.body = b
	default:
		return it, fieldErr(p, "transcript", "missing: give transcript or transcript_path")
	}
	return it, nil
}

// loadAudits checks audits in order, prepares them in batches on every core
// (decoding transcripts, building search text and score JSON, the costly
// part) and appends them in order, with their transcripts.
func (l *bundleLoad) loadAudits() error {
	au, err := l.tx.appender("audits")
	if err != nil {
		return err
	}
	defer au.Close()
	at, err := l.tx.appender("audit_transcripts")
	if err != nil {
		return err
	}
	defer at.Close()
	ss, err := l.tx.appender("sample_scores")
	if err != nil {
		return err
	}
	defer ss.Close()
	batch := make([]auditItem, 0, auditBatch)
	flush := func() error {
		if err := prepareAudits(batch); err != nil {
			return err
		}
		for i := range batch {
			if err := l.appendAudit(au, at, &batch[i]); err != nil {
				return err
			}
			if err := l.appendScorers(ss, batch[i].a); err != nil {
				return err
			}
		}
		batch = batch[:0]
		return l.ctx.Err()
	}
	err = l.src.Audits(func(p bundle.Pos, a *bundle.Audit, raw json.RawMessage) error {
		if l.app != nil && l.app.existing[a.ID] {
			// Imported before from this file: an append only adds. The
			// same id from another file is a clash a full import refuses too.
			if src := a.Labels["source"]; src != "" && l.app.source[a.ID] != "" && src != l.app.source[a.ID] {
				return &model.InputError{File: p.File, Offset: -1, Msg: fmt.Sprintf("audit id %q is used twice: by %s and by %s", a.ID, l.app.source[a.ID], src)}
			}
			return nil
		}
		if err := l.checkAudit(p, a); err != nil {
			return err
		}
		l.audits[a.ID] = true
		if l.app != nil {
			defer func() { l.app.added++ }()
		}
		it, err := l.auditItem(p, a, raw)
		if err != nil {
			return err
		}
		if batch = append(batch, it); len(batch) == auditBatch {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	for _, a := range []*appender{au, at, ss} {
		if cerr := a.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	l.counts["audits"] = int64(len(l.audits))
	l.counts["scores"] = l.nScores
	if l.opts.DeferScores {
		return nil
	}
	l.tx.rows += l.nScores
	return insertAuditScores(l.tx, l.id, l.tx.gen)
}

// appendAudit writes one prepared audit and its transcript.
func (l *bundleLoad) appendAudit(au, at *appender, it *auditItem) error {
	a := it.a
	sp := bundle.SplitBenign
	switch {
	case a.Sample:
		sp = "" // not an audit: no behavior, so not benign either
	case a.Behavior != "":
		sp = l.split[a.Behavior]
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
	if err := au.Row(l.id+":"+a.ID, l.id, a.ID, int32(it.ord), a.Auditor, a.Eval, load.NullString(a.Behavior), sp, a.Seed, a.Target, int32(a.Turns),
		optBool(a.Outcome.Detected), optBool(a.Outcome.FalsePositive), optFloat(a.Outcome.Quality), optFloat(a.Outcome.ProductionValue),
		a.Summary, it.scores, labels, strategy, int32(it.messages), int64(len(it.body)), file, it.search); err != nil {
		return err
	}
	l.nScores += int64(len(a.Scores) + len(a.Columns))
	for d := range a.Scores {
		l.dimCount[d]++
	}
	for d := range a.Columns {
		l.dimCount[d]++
	}
	if it.body == nil {
		return nil
	}
	return at.Row(l.id, a.ID, string(it.body))
}

// appendScorers writes an Inspect sample's scores as its scorers gave them.
func (l *bundleLoad) appendScorers(w *appender, a *bundle.Audit) error {
	for i := range a.Scorers {
		sc := &a.Scorers[i]
		if err := w.Row(l.id, a.ID, sc.Log, sc.Scorer, sc.Key, sc.Value, sc.Num, sc.Converted, sc.Judge, sc.Answer, sc.Explanation); err != nil {
			return err
		}
	}
	l.counts["sample_scores"] += int64(len(a.Scorers))
	return nil
}

// inspectLogs writes the headers of the Inspect logs an import read.
func (l *bundleLoad) inspectLogs() error {
	src, ok := l.src.(interface {
		InspectLogs(func(bundle.Pos, *bundle.InspectLog) error) error
	})
	if !ok {
		return nil
	}
	n := 0
	err := l.section("inspect_logs", func(w *appender) error {
		return src.InspectLogs(func(p bundle.Pos, lg *bundle.InspectLog) error {
			var total, results any
			if lg.Total != nil {
				total = int32(*lg.Total)
			}
			if lg.Results != nil {
				results = string(lg.Results)
			}
			n++
			ord := int32(n)
			if l.app != nil {
				if l.app.logHead[lg.Log] == logHeadKey(lg) {
					return nil // unchanged
				}
				l.app.headers++
				// A log seen before keeps its place; its newest header row
				// is the one read (InspectLogs).
				var ok bool
				if ord, ok = l.app.logOrd[lg.Log]; !ok {
					ord = l.app.nextLog
					l.app.nextLog++
				}
			}
			return w.Row(l.id, ord, lg.Log, lg.Task, lg.Model, lg.Status, lg.Created, int32(lg.Samples), total, results)
		})
	})
	l.counts["inspect_logs"] = int64(n)
	return err
}

// logHeadKey identifies a log header's content, to tell a changed one.
func logHeadKey(lg *bundle.InspectLog) string {
	total := "-"
	if lg.Total != nil {
		total = fmt.Sprint(*lg.Total)
	}
	return fmt.Sprint(lg.Task, "\x00", lg.Model, "\x00", lg.Status, "\x00", lg.Samples, "\x00", total, "\x00", string(lg.Results))
}

// dimensions writes the judge dimensions and how many audits carry each,
// counted as the audits went by (audit_scores may not exist yet).
func (l *bundleLoad) dimensions() error {
	names := make([]string, 0, len(l.dimCount))
	for d := range l.dimCount {
		names = append(names, d)
	}
	slices.Sort(names)
	return l.section("experiment_dimensions", func(a *appender) error {
		for _, d := range names {
			if err := a.Row(l.id, d, int32(l.dimCount[d])); err != nil {
				return err
			}
		}
		return nil
	})
}

var (
	judgmentKinds    = map[string]bool{model.JudgmentReference: true, model.JudgmentIntragroup: true, model.JudgmentRealism: true, model.JudgmentCrux: true}
	judgmentOutcomes = map[string]bool{bundle.OutcomeLeft: true, bundle.OutcomeRight: true, bundle.OutcomeTie: true}
)

func (l *bundleLoad) checkJudgment(p bundle.Pos, j *bundle.Judgment, seen map[string]bool) error {
	switch {
	case j.ID == "":
		return fieldErr(p, "id", "missing")
	case seen[j.ID]:
		return fieldErr(p, "id", "duplicate judgment id %q", j.ID)
	case !judgmentKinds[j.Kind]:
		return fieldErr(p, "kind", "want reference, intragroup, realism or crux, found %q", j.Kind)
	case !judgmentOutcomes[j.Outcome]:
		return fieldErr(p, "outcome", "want left, right or tie, found %q", j.Outcome)
	case j.Behavior != "" && l.split[j.Behavior] == "":
		return fieldErr(p, "behavior", "no behavior %q in %s", j.Behavior, bundle.FileExperiment)
	}
	for _, s := range [][2]string{{"left", j.Left}, {"right", j.Right}} {
		field, v := s[0], s[1]
		switch {
		case v == "":
			return fieldErr(p, field, "missing")
		case !strings.HasPrefix(v, bundle.ExternalPrefix) && !l.audits[v]:
			return fieldErr(p, field, "no audit %q in %s (external items are written %q)", v, bundle.FileAudits, bundle.ExternalPrefix+v)
		}
	}
	return nil
}

func (l *bundleLoad) judgments() error {
	seen := map[string]bool{}
	err := l.section("judgments", func(a *appender) error {
		return l.src.Judgments(func(p bundle.Pos, j *bundle.Judgment) error {
			if err := l.checkJudgment(p, j, seen); err != nil {
				return err
			}
			seen[j.ID] = true
			sp := bundle.SplitBenign
			if j.Behavior != "" {
				sp = l.split[j.Behavior]
			}
			return a.Row(l.id+":"+j.ID, l.id, j.ID, int32(len(seen)), j.Kind, j.Left, j.Right, load.NullString(j.Behavior), sp, j.Outcome, j.Judge, j.Reasoning)
		})
	})
	l.counts["judgments"] = int64(len(seen))
	return err
}

func checkCrux(p bundle.Pos, c *bundle.Crux, auditors, seen map[string]bool) error {
	switch {
	case !auditors[c.Auditor]:
		return fieldErr(p, "auditor", "no auditor %q in %s", c.Auditor, bundle.FileAuditors)
	case seen[c.Auditor]:
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
			return fieldErr(p, model.CruxFeatureNames[i], "want a value in [%g, 1], found %v", lo, v)
		}
	}
	return nil
}

func (l *bundleLoad) crux() error {
	seen := map[string]bool{}
	err := l.section("crux", func(a *appender) error {
		return l.src.Crux(func(p bundle.Pos, c *bundle.Crux) error {
			if err := checkCrux(p, c, l.auditors, seen); err != nil {
				return err
			}
			seen[c.Auditor] = true
			return a.Row(l.id, c.Auditor, int32(c.N), c.TargetFocused, c.AuditorView, c.PairwiseWin, c.PairwiseLoss, c.DSignal, c.DCraft, c.DRealism, c.DEvidence)
		})
	})
	l.counts["crux"] = int64(len(seen))
	return err
}

// metricKey identifies a metric row: run and name, and the step.
type metricKey struct {
	runName string
	step    int
}

// checkMetric checks a metric row. A metric is one value per run, step and
// name: a second row would be averaged with the first by nobody and plotted
// as a zigzag. seen maps each row's key to its line.
func checkMetric(p bundle.Pos, m *bundle.Metric, runs map[string]bool, seen map[metricKey]int) error {
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
	if line, dup := seen[metricKey{m.Run + "\x00" + m.Name, m.Step}]; dup {
		return fieldErr(p, "name", "a second %q for run %q at step %d (the first is on line %d)", m.Name, m.Run, m.Step, line)
	}
	return nil
}

func (l *bundleLoad) metrics() error {
	seen := map[metricKey]int{}
	err := l.section("metrics", func(a *appender) error {
		return l.src.Metrics(func(p bundle.Pos, m *bundle.Metric) error {
			if err := checkMetric(p, m, l.runs, seen); err != nil {
				return err
			}
			seen[metricKey{m.Run + "\x00" + m.Name, m.Step}] = p.Line
			return a.Row(l.id, m.Run, int32(m.Step), m.Name, m.Value)
		})
	})
	l.counts["metrics"] = int64(len(seen))
	return err
}

// countRange reports whether n is a valid epoch or step: stored as 32-bit
// integers, and never negative.
func countRange(n int) bool { return n >= 0 && n <= math.MaxInt32 }
