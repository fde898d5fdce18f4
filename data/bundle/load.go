package bundle

import (
	"cmp"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
)

// Tx is the import's transaction as the bundle's loader writes it: the
// store's (load.Tx) with the one statement an experiment's audits need
// besides appends, and its own row.
type Tx interface {
	load.Tx
	// AuditScores builds the experiment's long score table from its audits
	// of this import (n scores), for the dimensions dims (those without a
	// score column).
	AuditScores(exp string, n int64, dims []string) error
	// AddExperiment writes the experiment's own row.
	AddExperiment(Row) error
}

// Row is an experiment's own row.
type Row struct {
	ID                string
	ImportID          int64
	Name, Description string
	Synthetic         bool
	Format            string // the import kind: bundle, petri or inspect
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
	slots     map[string]int // judge dimension -> its score column, or NoSlot
	nextSlot  int            // the next free score column
	row       []driver.Value // appendAudit's row, reused
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
	// Slots are the experiment's judge dimensions with their score
	// columns (NoSlot: read from audit_scores; every dimension of an
	// experiment imported before the columns existed).
	Slots   map[string]int
	Added   int // new audits
	Headers int // new or changed log headers
}

// Append loads what src holds that the experiment exp, as st describes it,
// does not: its new behaviors, auditors and audits, judge dimensions and
// new or changed Inspect log headers. st counts what was added; counts are
// the rows by section.
func Append(ctx context.Context, tx Tx, src Source, exp string, st *AppendState, opts LoadOptions) (counts map[string]int64, err error) {
	l := &loader{ctx: ctx, tx: tx, src: src, opts: opts, id: exp, counts: map[string]int64{},
		split: st.Split, runs: map[string]bool{}, auditors: st.Auditors, audits: map[string]bool{},
		dimCount: map[string]int{}, slots: maps.Clone(st.Slots), validEval: map[string]bool{}, app: st}
	if l.slots == nil {
		l.slots = map[string]int{}
	}
	for _, s := range l.slots {
		l.nextSlot = max(l.nextSlot, s+1)
	}
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
		dimCount: map[string]int{}, slots: map[string]int{}, validEval: map[string]bool{}}
	for _, e := range model.Evals {
		l.validEval[e] = true
	}
	for _, section := range []func() error{
		func() error { return l.behaviors(&exp) }, l.loadRuns, l.loadAuditors, l.loadAudits,
		l.dimensions, l.judgments, l.crux, l.metrics, l.verdicts, l.inspectLogs,
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
	if err := tx.AddExperiment(Row{ID: id, ImportID: importID, Name: exp.Name, Description: exp.Description,
		Synthetic: exp.Synthetic || opts.Synthetic, Format: kind}); err != nil {
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

// inspectLogs writes the headers of the Inspect logs an import read.
func (l *loader) inspectLogs() error {
	src, ok := l.src.(interface {
		InspectLogs(func(Pos, *model.InspectLog) error) error
	})
	if !ok {
		return nil
	}
	n := 0
	err := l.section("inspect_logs", func(w load.Appender) error {
		return src.InspectLogs(func(p Pos, lg *model.InspectLog) error {
			var total, results any
			if lg.Total != nil {
				total = int32(*lg.Total)
			}
			if lg.Scores != nil {
				results = scoresText(lg.Scores)
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
func LogHeadKey(lg *model.InspectLog) string {
	total := "-"
	if lg.Total != nil {
		total = fmt.Sprint(*lg.Total)
	}
	results := "" // none reported (the log has no results yet)
	if lg.Scores != nil {
		results = scoresText(lg.Scores)
	}
	return fmt.Sprint(lg.Task, "\x00", lg.Model, "\x00", lg.Status, "\x00", lg.Samples, "\x00", total, "\x00", results)
}

// scoresText is a log's reported scores as inspect_logs.results stores them
// (and as model.InspectLog reads them back).
func scoresText(scores []model.ReportedScore) string {
	b, err := json.Marshal(scores)
	if err != nil {
		panic(err) // names, numbers and counts: a score that cannot encode is a bug
	}
	return string(b)
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
			var slot driver.Value
			if s, ok := l.slots[d]; ok && s != NoSlot {
				slot = int16(s)
			}
			if err := a.Row(l.id, d, int32(l.dimCount[d]), slot); err != nil {
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

// SourceKind is the import kind a source records: model.KindBundle, or the kind
// a converted source (Petri transcripts, Inspect logs) reports.
func SourceKind(src Source) string {
	if k, ok := src.(interface{ Kind() string }); ok && k.Kind() != "" {
		return k.Kind()
	}
	return model.KindBundle
}
