package app

import (
	"context"
	"math"
	"testing"

	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// fakeReader is an experiment written by hand; reads counts the calls that
// read audits, so a test sees what the memo saved.
type fakeReader struct {
	Reader   // nil: the AnnotatedPairs reads, which these tests do not make
	version  int64
	auditors []model.Auditor
	audits   []model.EvalAudit
	sides    []model.SideJudgment
	logs     []model.InspectLog
	values   []model.ScorerValues
	reads    int
	searches []model.AuditFilter // the filters CountAudits was asked with a text
	judges   []model.JudgeInfo
	under    map[string][]model.EvalAudit // other judges' outcome rows
}

func (f *fakeReader) NameVersion(string) int64 { return f.version }
func (f *fakeReader) Version() int64           { return f.version }
func (f *fakeReader) HasAudits(context.Context, string) (bool, error) {
	return len(f.audits) > 0, nil
}
func (f *fakeReader) CountAudits(_ context.Context, filter model.AuditFilter) (int, error) {
	if filter.Text != "" {
		f.searches = append(f.searches, filter)
	}
	return 0, nil
}
func (f *fakeReader) DatasetList(context.Context) ([]model.DatasetSummary, error) {
	return nil, nil
}
func (f *fakeReader) ExperimentList(context.Context) ([]model.ExperimentSummary, error) {
	return []model.ExperimentSummary{{ID: "x"}}, nil
}
func (f *fakeReader) Experiment(_ context.Context, id string) (model.Experiment, error) {
	return model.Experiment{ID: id, Name: "Hand-made"}, nil
}
func (f *fakeReader) Runs(context.Context, string) ([]model.Run, error) { return nil, nil }
func (f *fakeReader) Auditors(context.Context, string) ([]model.Auditor, error) {
	return f.auditors, nil
}
func (f *fakeReader) EvalAudits(context.Context, string) ([]model.EvalAudit, error) {
	f.reads++
	return f.audits, nil
}
func (f *fakeReader) Judges(context.Context, string) ([]model.JudgeInfo, error) {
	return f.judges, nil
}
func (f *fakeReader) EvalAuditsUnder(_ context.Context, _, judge string) ([]model.EvalAudit, error) {
	return f.under[judge], nil
}
func (f *fakeReader) SideJudgments(_ context.Context, _ string, kinds ...string) ([]model.SideJudgment, error) {
	var out []model.SideJudgment
	for _, j := range f.sides {
		for _, k := range kinds {
			if j.Kind == k {
				out = append(out, j)
			}
		}
	}
	return out, nil
}

func (f *fakeReader) InspectLogs(context.Context, string) ([]model.InspectLog, error) {
	return f.logs, nil
}
func (f *fakeReader) ScorerValues(context.Context, string) ([]model.ScorerValues, error) {
	return f.values, nil
}

func ptr[T any](v T) *T { return &v }

func handExperiment() *fakeReader {
	return &fakeReader{
		version:  1,
		auditors: []model.Auditor{{ID: "b", Name: "B"}, {ID: "a", Name: "A"}},
		audits: []model.EvalAudit{
			{ID: "a1", Auditor: "a", Eval: model.EvalAuditQuality, Quality: ptr(60.0)},
			{ID: "a2", Auditor: "a", Eval: model.EvalAuditQuality, Quality: ptr(80.0)},
			{ID: "a3", Auditor: "a", Eval: model.EvalAuditBenchSTC, Detected: ptr(true)},
			{ID: "a4", Auditor: "a", Eval: model.EvalAuditBenchSTC, Detected: ptr(false)},
			{ID: "a5", Auditor: "a", Eval: model.EvalRealism, Seed: "s9"},
			{ID: "b1", Auditor: "b", Eval: model.EvalAuditQuality, Quality: ptr(50.0)},
		},
		sides: []model.SideJudgment{
			{Kind: model.JudgmentRealism, Audit: "a5", Auditor: "a", Outcome: "win"},
			{Kind: model.JudgmentReference, Audit: "a1", Auditor: "a", Outcome: "loss"},
		},
	}
}

// TestStatsByHand checks an experiment's statistics on hand-made audits:
// A's audit quality is the mean of 60 and 80 with the t interval
// 70 ± t(0.975, 1)·10, where t with one degree of freedom is the Cauchy
// quantile tan(0.475π) = 12.70620473617470 (mpmath to 30 digits; scipy's
// t.ppf is 2e-11 off there), B's one
// value has no interval, A detected one of two AuditBench targets, and A's
// realism judgment carries the seed of its audit.
func TestStatsByHand(t *testing.T) {
	r := handExperiment()
	st, err := New(r).Stats(context.Background(), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Auditors) != 2 || st.Auditors[0].Auditor.ID != "b" || st.Auditors[1].Auditor.ID != "a" {
		t.Fatalf("auditors %+v, want b then a (the store's order)", st.Auditors)
	}
	b, a := st.Auditors[0], st.Auditors[1]
	h := math.Tan(0.475*math.Pi) * 10
	if q := a.Score[experiment.AuditQuality]; math.Abs(q.Value-70) > 1e-12 || math.Abs(q.Lo-(70-h)) > 1e-9 || math.Abs(q.Hi-(70+h)) > 1e-9 || a.N[experiment.AuditQuality] != 2 {
		t.Errorf("A's audit quality %+v (n %d), want 70 [%v, %v] over 2", q, a.N[experiment.AuditQuality], 70-h, 70+h)
	}
	if q := b.Score[experiment.AuditQuality]; q.Value != 50 || !math.IsNaN(q.Lo) || !math.IsNaN(q.Hi) {
		t.Errorf("B's audit quality %+v, want 50 without an interval", q)
	}
	if d := a.Score[experiment.AuditBenchSTC]; d.Value != 50 || a.N[experiment.AuditBenchSTC] != 2 {
		t.Errorf("A's AuditBench STC %+v (n %d), want 50 over 2", d, a.N[experiment.AuditBenchSTC])
	}
	want := []experiment.RealismJudgment{{Auditor: "a", Audit: "a5", Outcome: "win", Seed: "s9"}}
	if len(st.Realism) != 1 || st.Realism[0] != want[0] {
		t.Errorf("realism %+v, want %+v (reference judgments left out)", st.Realism, want)
	}
}

// TestStatsMemo: statistics are read once per version of the experiment;
// an import that moves the version reads them again.
func TestStatsMemo(t *testing.T) {
	r := handExperiment()
	s := New(r)
	ctx := context.Background()
	first, _ := s.Stats(ctx, "x")
	again, _ := s.Stats(ctx, "x")
	if r.reads != 1 || first != again {
		t.Fatalf("%d reads, same value %v; want 1 read and the kept value", r.reads, first == again)
	}
	r.version++
	r.audits = r.audits[:1]
	after, _ := s.Stats(ctx, "x")
	if r.reads != 2 || after.Auditors[1].N[experiment.AuditQuality] != 1 {
		t.Errorf("after a new version: %d reads, A has %d quality values; want 2 reads, 1 value", r.reads, after.Auditors[1].N[experiment.AuditQuality])
	}
	if s.stats.Len() != 1 {
		t.Errorf("%d versions kept, want only the newest", s.stats.Len())
	}
}

// TestWarm: warming computes each experiment's statistics ahead of the
// first request, and the explorer's default table of each dataset; what is
// computed already is read from the memo.
func TestWarm(t *testing.T) {
	r := handExperiment()
	s := New(r)
	var warnings []string
	s.Warm(context.Background(), func(what string, err error) { warnings = append(warnings, what+": "+err.Error()) })
	if len(warnings) != 0 || r.reads != 1 || s.stats.Len() != 1 {
		t.Fatalf("warnings %q, %d reads, %d kept; want the statistics read once", warnings, r.reads, s.stats.Len())
	}
	if _, err := s.Stats(context.Background(), "x"); err != nil || r.reads != 1 {
		t.Errorf("the page after warming: %v, %d reads; want the warmed statistics", err, r.reads)
	}
	// The search text is read once per version of the experiment's data,
	// as a search of all its audits reads it.
	if len(r.searches) != 1 || r.searches[0].Experiment != "x" || r.searches[0].Text == "" {
		t.Errorf("searches while warming: %+v, want one of experiment x", r.searches)
	}
	s.Warm(context.Background(), func(what string, err error) { t.Errorf("%s: %v", what, err) })
	if len(r.searches) != 1 {
		t.Errorf("warmed again with nothing changed: %d searches, want 1", len(r.searches))
	}
	r.version++
	s.Warm(context.Background(), func(what string, err error) { t.Errorf("%s: %v", what, err) })
	if len(r.searches) != 2 {
		t.Errorf("warmed after the data changed: %d searches, want 2", len(r.searches))
	}
	f := &fakePairs{importID: 1}
	ps := New(warmPairs{fakePairs: f})
	ps.Warm(context.Background(), func(what string, err error) { t.Errorf("%s: %v", what, err) })
	if f.matrixReads != 1 || ps.PairsCached() != 1 {
		t.Errorf("%d vote matrix reads, %d datasets kept; want the dataset loaded", f.matrixReads, ps.PairsCached())
	}
}

// warmPairs is fakePairs with no experiments and its one dataset listed.
type warmPairs struct{ *fakePairs }

func (warmPairs) ExperimentList(context.Context) ([]model.ExperimentSummary, error) { return nil, nil }
func (warmPairs) DatasetList(context.Context) ([]model.DatasetSummary, error) {
	return []model.DatasetSummary{{ID: "hand"}}, nil
}
