package web

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/model"
)

// fakeStore is the store web's unit tests serve from (issue #52): what a
// test puts in it by hand and nothing else, with no database behind it, so
// that every number a page shows can be worked out from the test's own
// lines. A read of something it was not given answers as an empty store
// would: nothing, or model.ErrNotFound for one named thing. The real store
// is served in web/e2e.
type fakeStore struct {
	version int64
	exps    map[string]*fakeExp
	// audits and transcripts are single audits' pages, by key.
	audits      map[string]model.AuditDetail
	transcripts map[string][]byte
	// reads counts the experiment reads that reached the store, for the
	// caches' tests; outcomes the reads of the outcome rows (EvalAudits),
	// which only computing statistics makes.
	reads, outcomes atomic.Int64
}

// fakeExp is one experiment of a fakeStore.
type fakeExp struct {
	exp      model.Experiment
	auditors []model.Auditor
	audits   []model.EvalAudit
	rows     []model.AuditRow // the audit list's rows, in its order
}

// fakeServer serves f with the defaults a user has (the response cache on).
func fakeServer(t testing.TB, f *fakeStore, cfg Config) *Server {
	t.Helper()
	if f.version == 0 {
		f.version = 1
	}
	return New(f, slog.New(slog.NewTextHandler(io.Discard, nil)), cfg)
}

func (f *fakeStore) exp(id string) (*fakeExp, error) {
	f.reads.Add(1)
	if e, ok := f.exps[id]; ok {
		return e, nil
	}
	return nil, model.ErrNotFound
}

// The store's life between requests: nothing to refresh or lock.
func (f *fakeStore) Refresh(context.Context) (bool, error) { return false, nil }
func (f *fakeStore) View() func()                          { return func() {} }
func (f *fakeStore) ChangedAt() time.Time                  { return time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC) }
func (f *fakeStore) Version() int64                        { return f.version }
func (f *fakeStore) NameVersion(string) int64              { return f.version }
func (f *fakeStore) IsLake() bool                          { return false }
func (f *fakeStore) LakeProblemVersion() int64             { return 0 }
func (f *fakeStore) LakeProblem() *model.InputError        { return nil }

func (f *fakeStore) Summary(context.Context) (model.Summary, error) {
	var sum model.Summary
	for _, id := range slices.Sorted(maps.Keys(f.exps)) {
		e := f.exps[id]
		sum.Experiments = append(sum.Experiments, model.ExperimentSummary{ID: id, Name: e.exp.Name, Description: e.exp.Description, Audits: len(e.rows)})
	}
	return sum, nil
}

func (f *fakeStore) ExperimentList(ctx context.Context) ([]model.ExperimentSummary, error) {
	sum, err := f.Summary(ctx)
	return sum.Experiments, err
}

func (f *fakeStore) Experiment(_ context.Context, id string) (model.Experiment, error) {
	e, err := f.exp(id)
	if err != nil {
		return model.Experiment{}, err
	}
	return e.exp, nil
}

func (f *fakeStore) Auditors(_ context.Context, id string) ([]model.Auditor, error) {
	e, err := f.exp(id)
	if err != nil {
		return nil, err
	}
	return e.auditors, nil
}

func (f *fakeStore) EvalAudits(_ context.Context, id string) ([]model.EvalAudit, error) {
	f.outcomes.Add(1)
	e, err := f.exp(id)
	if err != nil {
		return nil, err
	}
	return e.audits, nil
}

func (f *fakeStore) HasAudits(_ context.Context, id string) (bool, error) {
	e, err := f.exp(id)
	if err != nil {
		return false, nil
	}
	return len(e.rows) > 0, nil
}

// selected is the audit list's rows the filter selects: by experiment,
// auditor and behavior, which is what these tests filter by.
func (f *fakeStore) selected(flt model.AuditFilter) []model.AuditRow {
	var out []model.AuditRow
	for _, id := range slices.Sorted(maps.Keys(f.exps)) {
		for _, r := range f.exps[id].rows {
			if (flt.Experiment == "" || flt.Experiment == id) && (flt.Auditor == "" || flt.Auditor == r.Auditor) && (flt.Behavior == "" || flt.Behavior == r.Behavior) {
				out = append(out, r)
			}
		}
	}
	return out
}

func (f *fakeStore) ListAuditsPage(_ context.Context, flt model.AuditFilter, offset, limit int) ([]model.AuditRow, error) {
	rows := f.selected(flt)
	return rows[min(offset, len(rows)):min(offset+limit, len(rows))], nil
}

func (f *fakeStore) CountAudits(_ context.Context, flt model.AuditFilter) (int, error) {
	return len(f.selected(flt)), nil
}

func (f *fakeStore) AuditChoices(_ context.Context, id string) (model.AuditChoices, error) {
	var c model.AuditChoices
	if e, ok := f.exps[id]; ok {
		for _, a := range e.auditors {
			c.Auditors = append(c.Auditors, model.Choice{Value: a.ID, Label: a.Name})
		}
	}
	return c, nil
}

// What these tests give no data for reads as an empty store's.
func (f *fakeStore) Runs(context.Context, string) ([]model.Run, error) { return nil, nil }
func (f *fakeStore) EvalAuditsUnder(context.Context, string, string) ([]model.EvalAudit, error) {
	return nil, nil
}
func (f *fakeStore) SideJudgments(context.Context, string, ...string) ([]model.SideJudgment, error) {
	return nil, nil
}
func (f *fakeStore) InspectLogs(context.Context, string) ([]model.InspectLog, error) { return nil, nil }
func (f *fakeStore) ScorerValues(context.Context, string) ([]model.ScorerValues, error) {
	return nil, nil
}
func (f *fakeStore) SampleValues(context.Context, string) ([]model.SampleValue, error) {
	return nil, nil
}
func (f *fakeStore) Crux(context.Context, string) ([]model.CruxRow, error) { return nil, nil }
func (f *fakeStore) JudgedAudits(context.Context, string) (model.JudgedSet, error) {
	return model.JudgedSet{}, nil
}
func (f *fakeStore) Run(context.Context, string) (model.Run, error) {
	return model.Run{}, model.ErrNotFound
}
func (f *fakeStore) RunMetrics(context.Context, string, string) ([]model.Metric, error) {
	return nil, nil
}
func (f *fakeStore) StrategyCounts(context.Context, string, string) ([]model.LabelCount, error) {
	return nil, nil
}
func (f *fakeStore) ExportAudits(context.Context, model.AuditFilter, *model.AuditCursor, int, []string) (model.ExportChunk, error) {
	return model.ExportChunk{}, nil
}
func (f *fakeStore) AuditScores(context.Context, []string) (map[string]map[string]float64, error) {
	return nil, nil
}
func (f *fakeStore) VerdictScores(context.Context, []string, string) (map[string]map[string]float64, error) {
	return nil, nil
}
func (f *fakeStore) ScoreDimensions(context.Context, string) ([]string, error) { return nil, nil }
func (f *fakeStore) SampleChoices(context.Context, string) (model.SampleChoices, error) {
	return model.SampleChoices{}, nil
}
func (f *fakeStore) Judges(context.Context, string) ([]model.JudgeInfo, error) { return nil, nil }
func (f *fakeStore) JudgedBy(context.Context, string, string, []string) (model.JudgedSet, error) {
	return model.JudgedSet{}, nil
}
func (f *fakeStore) EvalScores(context.Context, string, string) ([]string, []float64, error) {
	return nil, nil, nil
}
func (f *fakeStore) JudgeScores(context.Context, string, model.JudgeInfo) (model.JudgeScores, error) {
	return model.JudgeScores{}, nil
}
func (f *fakeStore) JudgeMoments(context.Context, string, string, string, []string, int) ([]model.PairMoments, []model.ScoreGap, error) {
	return nil, nil, nil
}
func (f *fakeStore) AuditVerdicts(context.Context, string, string) ([]model.Verdict, error) {
	return nil, nil
}
func (f *fakeStore) SampleFields(context.Context, []string) (map[string]model.SampleFields, error) {
	return nil, nil
}
func (f *fakeStore) ResolveAuditKey(_ context.Context, id string) (string, error) {
	if _, ok := f.audits[id]; ok {
		return id, nil
	}
	return "", model.ErrNotFound
}
func (f *fakeStore) Audit(_ context.Context, key string) (model.AuditDetail, error) {
	if d, ok := f.audits[key]; ok {
		return d, nil
	}
	return model.AuditDetail{}, model.ErrNotFound
}
func (f *fakeStore) Neighbors(context.Context, model.AuditFilter, string) (string, string, error) {
	return "", "", nil
}
func (f *fakeStore) SampleScores(context.Context, string, string) ([]model.SampleScore, error) {
	return nil, nil
}
func (f *fakeStore) AuditJudgments(context.Context, string, string) ([]model.SideJudgment, error) {
	return nil, nil
}
func (f *fakeStore) Transcript(context.Context, string, string) ([]byte, error) {
	return nil, model.ErrNotFound
}
func (f *fakeStore) TranscriptOfKey(_ context.Context, key string) ([]byte, error) {
	if b, ok := f.transcripts[key]; ok {
		return b, nil
	}
	return nil, model.ErrNotFound
}
func (f *fakeStore) Judgment(context.Context, string) (model.Judgment, error) {
	return model.Judgment{}, model.ErrNotFound
}
func (f *fakeStore) DatasetList(context.Context) ([]model.DatasetSummary, error) { return nil, nil }
func (f *fakeStore) PairsDataset(context.Context, string) (model.PairsDataset, error) {
	return model.PairsDataset{}, model.ErrNotFound
}
func (f *fakeStore) PairsAnnotators(context.Context, string) ([]model.PairsAnnotator, error) {
	return nil, model.ErrNotFound
}
func (f *fakeStore) PairsVoteMatrix(context.Context, string) (model.VoteMatrix, error) {
	return model.VoteMatrix{}, model.ErrNotFound
}
func (f *fakeStore) PairsMetaValues(context.Context, string, string) (model.MetaValues, error) {
	return model.MetaValues{}, model.ErrNotFound
}
func (f *fakeStore) PairsSearch(context.Context, string, string) ([]int32, error) {
	return nil, model.ErrNotFound
}
func (f *fakeStore) PairsComparisons(context.Context, string, []int32) ([]model.PairsComparison, error) {
	return nil, model.ErrNotFound
}
func (f *fakeStore) PairsComparisonByID(context.Context, string, string) (model.PairsComparison, error) {
	return model.PairsComparison{}, model.ErrNotFound
}

// handMade is a store of one experiment, "x", made by hand: two baseline
// auditors on the default AuditBench evaluation, alpha detecting 3 of its 4
// behaviors and beta 1 of 4, on the same four seeds; a name with markup.
func handMade() *fakeStore {
	detected := func(b bool) *bool { return &b }
	x := &fakeExp{exp: model.Experiment{ID: "x", Name: "Hand <b>made</b>", Description: "four seeds"}}
	x.auditors = []model.Auditor{
		{Key: "x:alpha", ID: "alpha", Name: "Alpha", Kind: model.AuditorBaseline},
		{Key: "x:beta", ID: "beta", Name: "Beta", Kind: model.AuditorBaseline},
	}
	for i, seed := range []string{"s1", "s2", "s3", "s4"} {
		for _, au := range []struct {
			id  string
			hit bool
		}{{"alpha", i != 2}, {"beta", i == 0}} {
			id := au.id + "-" + seed
			x.audits = append(x.audits, model.EvalAudit{ID: id, Auditor: au.id, Eval: model.EvalAuditBenchDefault, Seed: seed, Behavior: "flattery", Detected: detected(au.hit)})
			x.rows = append(x.rows, model.AuditRow{Key: "x:" + id, Experiment: "x", ID: id, Auditor: au.id, AuditorName: au.id, Eval: model.EvalAuditBenchDefault,
				Behavior: "flattery", Seed: seed, Detected: detected(au.hit)})
		}
	}
	return &fakeStore{exps: map[string]*fakeExp{"x": x}}
}
