package bundle

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
)

// Tx is the import's transaction as the bundle's loader writes it: the
// store's (load.Tx) with the one statement an experiment's audits need
// besides appends.
type Tx interface {
	load.Tx
	// AuditScores builds the experiment's long score table from its audits
	// of this import (n rows).
	AuditScores(exp string, n int64) error
}

// LoadOptions are an import's options as the loader takes them.
type LoadOptions struct {
	// Name is the experiment's id (--name); empty takes the bundle's.
	Name               string
	Replace, Synthetic bool
	// MemoryTranscripts: the store serves the audits' transcripts from
	// memory (the built-in demo), so inline ones are not stored.
	MemoryTranscripts bool
	// DeferScores leaves the long score table to be built later.
	DeferScores bool
}

// mustJSON is v as JSON; v is a value that always encodes.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// loader is one bundle import in progress. Each section of the bundle
// is read by a method that checks every record (the check* functions, which
// write nothing) and then appends it; the maps hold what later sections
// refer to.
type loader struct {
	ctx    context.Context
	tx     Tx
	src    Source
	opts   LoadOptions
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
	app *AppendState
}

// AppendState is what an append knows of the experiment it extends.
type AppendState struct {
	// Split and Auditors are the experiment's behaviors (with their split)
	// and auditors.
	Split    map[string]string
	Auditors map[string]bool
	FirstOrd int               // the ord of the first new audit
	Existing map[string]bool   // the candidate audit ids already there
	Source   map[string]string // and the file each came from
	LogOrd   map[string]int32
	LogHead  map[string]string // a log's newest stored header (LogHeadKey), to skip an unchanged one
	NextLog  int32
	Added    int // new audits
	Headers  int // new or changed log headers
}

// Append loads what src holds that the experiment exp, as st describes it,
// does not: its new behaviors, auditors and audits, judge dimensions and
// new or changed Inspect log headers. st counts what was added; counts are
// the rows by section.
func Append(ctx context.Context, tx Tx, src Source, exp string, st *AppendState, opts LoadOptions) (counts map[string]int64, err error) {
	l := &loader{ctx: ctx, tx: tx, src: src, opts: opts, id: exp, counts: map[string]int64{},
		split: st.Split, runs: map[string]bool{}, auditors: st.Auditors, audits: map[string]bool{},
		dimCount: map[string]int{}, validEval: map[string]bool{}, app: st}
	for _, e := range model.Evals {
		l.validEval[e] = true
	}
	e, err := src.Experiment()
	if err != nil {
		return nil, err
	}
	for _, section := range []func() error{
		func() error { return l.behaviors(&e) }, l.loadAuditors, l.loadAudits, l.dimensions, l.inspectLogs,
	} {
		if err := section(); err != nil {
			return nil, err
		}
	}
	return l.counts, nil
}

// Load checks every record of src (the check* functions, which write
// nothing) and appends it in the transaction tx: one experiment, which
// lands whole or not at all. hash identifies the content.
func Load(ctx context.Context, tx Tx, src Source, hash string, opts LoadOptions) (model.ImportResult, error) {
	exp, err := src.Experiment()
	if err != nil {
		return model.ImportResult{}, err
	}
	id, err := experimentID(&exp, opts)
	if err != nil {
		return model.ImportResult{}, err
	}
	kind := SourceKind(src)
	tx.SetSource(src.Name())
	id, err = claimExperiment(tx, kind, id, hash, src, &exp, opts)
	if err != nil {
		return model.ImportResult{}, err
	}
	l := &loader{ctx: ctx, tx: tx, src: src, opts: opts, id: id, counts: map[string]int64{},
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
	r.Rows = tx.Rows() + 2
	return r, nil
}

// claimExperiment claims the experiment's name. An Inspect log named after
// its file (no --name) whose name holds another run already (an earlier
// import, or another file of this import) takes the next of the names that
// tell runs apart: the file's name with the log's model, then with its run
// id as well. It returns the name claimed.
func claimExperiment(tx Tx, kind, id, hash string, src Source, exp *Experiment, opts LoadOptions) (string, error) {
	alt, _ := src.(interface{ RunNames() []string })
	if opts.Name != "" || opts.Replace || alt == nil {
		return id, tx.Claim(kind, id, hash, opts.Replace)
	}
	names := append([]string{id}, alt.RunNames()...)
	var first error
	for _, n := range names {
		err := tx.Claim(kind, n, hash, false)
		if err == nil || errors.Is(err, load.ErrUnchanged) {
			if n != id {
				exp.Name = n
			}
			return n, err
		}
		if !errors.Is(err, load.ErrExists) {
			return n, err
		}
		if first == nil {
			first = err
		}
	}
	return id, fmt.Errorf("%w (the names that tell its run apart, %s, are taken too)", first, strings.Join(names[1:], ", "))
}

// experimentID is --name, else the bundle's id, else its name made URL-safe.
func experimentID(exp *Experiment, opts LoadOptions) (string, error) {
	expPos := Pos{File: FileExperiment}
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
func (l *loader) section(table string, fill func(a load.Appender) error) error {
	a, err := l.tx.Appender(table)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := fill(a); err != nil {
		return err
	}
	return a.Close()
}

func checkBehavior(i int, b Behavior, split map[string]string) error {
	p, f := Pos{File: FileExperiment}, fmt.Sprintf("behaviors[%d]", i)
	switch {
	case b.ID == "":
		return fieldErr(p, f+".id", "missing")
	case split[b.ID] != "":
		return fieldErr(p, f+".id", "duplicate behavior id %q", b.ID)
	case b.Split != SplitTrain && b.Split != SplitHeldout:
		return fieldErr(p, f+".split", "want \"train\" or \"heldout\", found %q", b.Split)
	}
	return nil
}

func (l *loader) behaviors(exp *Experiment) error {
	l.counts["behaviors"] = int64(len(exp.Behaviors))
	return l.section("behaviors", func(a load.Appender) error {
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

func checkRun(p Pos, r *Run, runs map[string]bool) error {
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

func (l *loader) loadRuns() error {
	err := l.section("runs", func(a load.Appender) error {
		return l.src.Runs(func(p Pos, r *Run) error {
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

func checkAuditor(p Pos, a *Auditor, auditors, runs map[string]bool) error {
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
		return fieldErr(p, "run", "no run %q in %s", a.Run, FileRuns)
	case a.Epoch != nil && !countRange(*a.Epoch):
		return fieldErr(p, "epoch", "want a whole number from 0 to %d, found %d", math.MaxInt32, *a.Epoch)
	case a.Step != nil && !countRange(*a.Step):
		return fieldErr(p, "step", "want a whole number from 0 to %d, found %d", math.MaxInt32, *a.Step)
	}
	return nil
}

func (l *loader) loadAuditors() error {
	err := l.section("auditors", func(w load.Appender) error {
		return l.src.Auditors(func(p Pos, a *Auditor) error {
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
func (l *loader) checkAudit(p Pos, a *Audit) error {
	switch {
	case a.ID == "":
		return fieldErr(p, "id", "missing")
	case l.audits[a.ID]:
		return fieldErr(p, "id", "duplicate audit id %q", a.ID)
	case !l.auditors[a.Auditor]:
		return fieldErr(p, "auditor", "no auditor %q in %s", a.Auditor, FileAuditors)
	case a.Sample && (a.Eval != "" || a.Behavior != "" || a.Target != ""):
		return fieldErr(p, "eval", "an Inspect sample that is not an audit has no eval, behavior or target")
	case !a.Sample && !l.validEval[a.Eval]:
		return fieldErr(p, "eval", "unknown eval %q: want one of %s", a.Eval, strings.Join(model.Evals, ", "))
	case a.Behavior != "" && l.split[a.Behavior] == "":
		return fieldErr(p, "behavior", "no behavior %q in %s", a.Behavior, FileExperiment)
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
func (l *loader) auditItem(p Pos, a *Audit, raw json.RawMessage) (auditItem, error) {
	it := auditItem{pos: p, a: a, ord: len(l.audits)}
	if l.app != nil {
		it.ord = l.app.FirstOrd + l.app.Added
	}
	switch {
	case raw != nil && a.TranscriptPath != "", a.Transcript != nil && a.TranscriptPath != "":
		return it, fieldErr(p, "transcript_path", "give either transcript or transcript_path, not both")
	case raw != nil:
		// An in-memory bundle passes the JSON and may keep the struct.
		it.body, it.t = raw, a.Transcript
	case a.Transcript != nil && l.opts.MemoryTranscripts:
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
func (l *loader) loadAudits() error {
	au, err := l.tx.Appender("audits")
	if err != nil {
		return err
	}
	defer au.Close()
	at, err := l.tx.Appender("audit_transcripts")
	if err != nil {
		return err
	}
	defer at.Close()
	ss, err := l.tx.Appender("sample_scores")
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
	err = l.src.Audits(func(p Pos, a *Audit, raw json.RawMessage) error {
		if l.app != nil && l.app.Existing[a.ID] {
			// Imported before from this file: an append only adds. The
			// same id from another file is a clash a full import refuses too.
			if src := a.Labels["source"]; src != "" && l.app.Source[a.ID] != "" && src != l.app.Source[a.ID] {
				return &model.InputError{File: p.File, Offset: -1, Msg: fmt.Sprintf("audit id %q is used twice: by %s and by %s", a.ID, l.app.Source[a.ID], src)}
			}
			return nil
		}
		if err := l.checkAudit(p, a); err != nil {
			return err
		}
		l.audits[a.ID] = true
		if l.app != nil {
			defer func() { l.app.Added++ }()
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
	for _, a := range []load.Appender{au, at, ss} {
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
	return l.tx.AuditScores(l.id, l.nScores)
}

// appendAudit writes one prepared audit and its transcript.
func (l *loader) appendAudit(au, at load.Appender, it *auditItem) error {
	a := it.a
	sp := SplitBenign
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
		file = load.MemoryTranscript
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
func (l *loader) appendScorers(w load.Appender, a *Audit) error {
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
func (l *loader) inspectLogs() error {
	src, ok := l.src.(interface {
		InspectLogs(func(Pos, *InspectLog) error) error
	})
	if !ok {
		return nil
	}
	n := 0
	err := l.section("inspect_logs", func(w load.Appender) error {
		return src.InspectLogs(func(p Pos, lg *InspectLog) error {
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
				if l.app.LogHead[lg.Log] == LogHeadKey(lg) {
					return nil // unchanged
				}
				l.app.Headers++
				// A log seen before keeps its place; its newest header row
				// is the one read (InspectLogs).
				var ok bool
				if ord, ok = l.app.LogOrd[lg.Log]; !ok {
					ord = l.app.NextLog
					l.app.NextLog++
				}
			}
			return w.Row(l.id, ord, lg.Log, lg.Task, lg.Model, lg.Status, lg.Created, int32(lg.Samples), total, results)
		})
	})
	l.counts["inspect_logs"] = int64(n)
	return err
}

// LogHeadKey identifies a log header's content, to tell a changed one.
func LogHeadKey(lg *InspectLog) string {
	total := "-"
	if lg.Total != nil {
		total = fmt.Sprint(*lg.Total)
	}
	return fmt.Sprint(lg.Task, "\x00", lg.Model, "\x00", lg.Status, "\x00", lg.Samples, "\x00", total, "\x00", string(lg.Results))
}

// dimensions writes the judge dimensions and how many audits carry each,
// counted as the audits went by (audit_scores may not exist yet).
func (l *loader) dimensions() error {
	names := make([]string, 0, len(l.dimCount))
	for d := range l.dimCount {
		names = append(names, d)
	}
	slices.Sort(names)
	return l.section("experiment_dimensions", func(a load.Appender) error {
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
	judgmentOutcomes = map[string]bool{OutcomeLeft: true, OutcomeRight: true, OutcomeTie: true}
)

func (l *loader) checkJudgment(p Pos, j *Judgment, seen map[string]bool) error {
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
		return fieldErr(p, "behavior", "no behavior %q in %s", j.Behavior, FileExperiment)
	}
	for _, s := range [][2]string{{"left", j.Left}, {"right", j.Right}} {
		field, v := s[0], s[1]
		switch {
		case v == "":
			return fieldErr(p, field, "missing")
		case !strings.HasPrefix(v, ExternalPrefix) && !l.audits[v]:
			return fieldErr(p, field, "no audit %q in %s (external items are written %q)", v, FileAudits, ExternalPrefix+v)
		}
	}
	return nil
}

func (l *loader) judgments() error {
	seen := map[string]bool{}
	err := l.section("judgments", func(a load.Appender) error {
		return l.src.Judgments(func(p Pos, j *Judgment) error {
			if err := l.checkJudgment(p, j, seen); err != nil {
				return err
			}
			seen[j.ID] = true
			sp := SplitBenign
			if j.Behavior != "" {
				sp = l.split[j.Behavior]
			}
			return a.Row(l.id+":"+j.ID, l.id, j.ID, int32(len(seen)), j.Kind, j.Left, j.Right, load.NullString(j.Behavior), sp, j.Outcome, j.Judge, j.Reasoning)
		})
	})
	l.counts["judgments"] = int64(len(seen))
	return err
}

func checkCrux(p Pos, c *Crux, auditors, seen map[string]bool) error {
	switch {
	case !auditors[c.Auditor]:
		return fieldErr(p, "auditor", "no auditor %q in %s", c.Auditor, FileAuditors)
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

func (l *loader) crux() error {
	seen := map[string]bool{}
	err := l.section("crux", func(a load.Appender) error {
		return l.src.Crux(func(p Pos, c *Crux) error {
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
func checkMetric(p Pos, m *Metric, runs map[string]bool, seen map[metricKey]int) error {
	switch {
	case !runs[m.Run]:
		return fieldErr(p, "run", "no run %q in %s", m.Run, FileRuns)
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

func (l *loader) metrics() error {
	seen := map[metricKey]int{}
	err := l.section("metrics", func(a load.Appender) error {
		return l.src.Metrics(func(p Pos, m *Metric) error {
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

// SourceKind is the import kind a source records: model.KindBundle, or the kind
// a converted source (Petri transcripts, Inspect logs) reports.
func SourceKind(src Source) string {
	if k, ok := src.(interface{ Kind() string }); ok && k.Kind() != "" {
		return k.Kind()
	}
	return model.KindBundle
}

func fieldErr(p Pos, field, format string, args ...any) error {
	return &Error{Pos: p, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// auditBatch is how many audits are prepared in parallel at a time.
const auditBatch = 1024

// auditItem is one validated audit on its way into the store.
type auditItem struct {
	pos      Pos
	a        *Audit
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
