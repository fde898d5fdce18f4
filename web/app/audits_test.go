package app

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// fakeAudits is an experiment of five audits by two auditors, with two
// pairwise judgments seen from both sides.
type fakeAudits struct {
	Reader
	reads int // ListAudits calls
}

var fakeRows = func() []model.AuditRow {
	var rows []model.AuditRow
	for i, au := range []string{"opus", "opus", "haiku", "opus", "haiku"} {
		id := string(rune('a' + i))
		rows = append(rows, model.AuditRow{Key: "x:" + id, Experiment: "x", ID: id, Auditor: au, Behavior: "flattery"})
	}
	return rows
}()

func (f *fakeAudits) ExperimentList(context.Context) ([]model.ExperimentSummary, error) {
	return []model.ExperimentSummary{{ID: "x"}}, nil
}

func (f *fakeAudits) AuditChoices(context.Context, string) (model.AuditChoices, error) {
	return model.AuditChoices{Auditors: []model.Choice{{Value: "opus", Label: "Claude Opus"}, {Value: "haiku", Label: "Claude Haiku"}},
		Behaviors: []model.Choice{{Value: "flattery", Label: "Flatters the user"}}}, nil
}

func (f *fakeAudits) ScoreDimensions(context.Context, string) ([]string, error) {
	return []string{"concerning"}, nil
}

// ExportAudits reads fakeRows in order; its cursor is the next row's index.
func (f *fakeAudits) ExportAudits(_ context.Context, _ model.AuditFilter, after *model.AuditCursor, limit int, dims []string) (model.ExportChunk, error) {
	f.reads++
	from := 0
	if after != nil {
		from = int(after.Ord)
	}
	var c model.ExportChunk
	c.Rows = fakeRows[min(from, len(fakeRows)):min(from+limit, len(fakeRows))]
	for i := range c.Rows {
		c.Scores = append(c.Scores, []float64{float64(i)})
	}
	if from+limit <= len(fakeRows) && len(c.Rows) == limit {
		c.Next = &model.AuditCursor{Ord: int64(from + limit)}
	}
	return c, nil
}

func (f *fakeAudits) AuditScores(_ context.Context, keys []string) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	for i, k := range keys {
		out[k] = map[string]float64{"concerning": float64(i)}
	}
	return out, nil
}

func (f *fakeAudits) Auditors(context.Context, string) ([]model.Auditor, error) {
	return []model.Auditor{{ID: "opus", Name: "Claude Opus", Run: "r1"}, {ID: "haiku", Name: "Claude Haiku"}}, nil
}

func (f *fakeAudits) Runs(context.Context, string) ([]model.Run, error) {
	return []model.Run{{ID: "r1", Name: "Run one"}}, nil
}

func (f *fakeAudits) SideJudgments(_ context.Context, _ string, kinds ...string) ([]model.SideJudgment, error) {
	all := []model.SideJudgment{
		{ID: "j1", Kind: "reference", Auditor: "opus", OtherAuditor: "haiku", Split: "train", Behavior: "flattery"},
		{ID: "j1", Kind: "reference", Auditor: "haiku", OtherAuditor: "opus", Split: "train", Behavior: "flattery"},
		{ID: "j2", Kind: "realism", Auditor: "opus", OtherAuditor: "haiku"},
		{ID: "j2", Kind: "realism", Auditor: "haiku", OtherAuditor: "opus"},
	}
	var out []model.SideJudgment
	for _, j := range all {
		for _, k := range kinds {
			if j.Kind == k {
				out = append(out, j)
			}
		}
	}
	return out, nil
}

func TestResolveFilter(t *testing.T) {
	s := New(&fakeAudits{})
	ctx := context.Background()
	f := model.AuditFilter{Experiment: "x", Auditor: "claude opus", Behavior: "flattery"}
	if _, _, err := s.ResolveFilter(ctx, &f); err != nil || f.Auditor != "opus" {
		t.Errorf("a display name: %v, auditor %q; want opus", err, f.Auditor)
	}
	var qe *QueryError
	for _, bad := range []model.AuditFilter{{Experiment: "y"}, {Auditor: "gpt"}, {Behavior: "Flatters"}} {
		if _, _, err := s.ResolveFilter(ctx, &bad); !errors.As(err, &qe) {
			t.Errorf("%+v: %v, want a query error", bad, err)
		}
	}
	if _, _, err := s.ResolveFilter(ctx, &model.AuditFilter{Auditor: "gpt"}); err == nil || err.Error() != `auditor: unknown value "gpt"; choose one of opus, haiku` {
		t.Errorf("unknown auditor: %v", err)
	}
	if err := CheckDimensions(model.AuditFilter{Sort: "score:helpful"}, []string{"concerning"}); !errors.As(err, &qe) || qe.Field != "sort" {
		t.Errorf("sort by a dimension the selection lacks: %v", err)
	}
}

// The nearest choices come first when there are many.
func TestUnknownValue(t *testing.T) {
	var many []string
	for _, c := range "abcdefghijklm" {
		many = append(many, "opus-"+string(c))
	}
	many = append(many, "haiku")
	err := UnknownValue("auditor", "haiky", many)
	if err == nil || !strings.Contains(err.Error(), "the nearest are haiku, ") || !strings.HasSuffix(err.Error(), "(of 14)") {
		t.Errorf("%v", err)
	}
}

// An export reads in chunks until a short one, each row with its names and
// scores.
func TestExportChunks(t *testing.T) {
	defer func(n int) { ExportChunk = n }(ExportChunk)
	ExportChunk = 2
	f := &fakeAudits{}
	s := New(f)
	ctx := context.Background()
	e, err := s.Export(ctx, model.AuditFilter{Experiment: "x"})
	if err != nil || !reflect.DeepEqual(e.Dims, []string{"concerning"}) {
		t.Fatalf("%v, dims %v", err, e.Dims)
	}
	var ids []string
	var chunks []int
	for {
		rows, err := e.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rows == nil {
			t.Fatal("Next after the last chunk: the export said it was not done")
		}
		chunks = append(chunks, len(rows))
		for i, r := range rows {
			ids = append(ids, r.ID)
			if len(r.Scores) != 1 || r.Scores[0] != float64(i) || r.BehaviorDescription != "Flatters the user" ||
				(r.Auditor == "opus") != (r.Run == "r1" && r.RunName == "Run one") {
				t.Errorf("row %+v", r)
			}
		}
		if e.Done() {
			break
		}
	}
	if rows, err := e.Next(ctx); rows != nil || err != nil {
		t.Errorf("Next when done: %d rows, %v", len(rows), err)
	}
	if !reflect.DeepEqual(chunks, []int{2, 2, 1}) || strings.Join(ids, "") != "abcde" || f.reads != 3 {
		t.Errorf("chunks %v, ids %v, %d reads", chunks, ids, f.reads)
	}
}

func TestJudgments(t *testing.T) {
	s := New(&fakeAudits{})
	ctx := context.Background()
	ids := func(f JudgmentFilter) string {
		t.Helper()
		rows, err := s.Judgments(ctx, "x", f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, j := range rows {
			out = append(out, j.ID+"/"+j.Auditor)
		}
		return strings.Join(out, " ")
	}
	// Without an auditor a judgment shows once; with one, from its side.
	if got := ids(JudgmentFilter{}); got != "j1/opus j2/opus" {
		t.Errorf("all: %s", got)
	}
	if got := ids(JudgmentFilter{Auditor: "haiku"}); got != "j1/haiku j2/haiku" {
		t.Errorf("haiku's side: %s", got)
	}
	if got := ids(JudgmentFilter{Kind: "realism", Vs: "opus"}); got != "j2/haiku" {
		t.Errorf("realism against opus: %s", got)
	}
	if got := ids(JudgmentFilter{Split: "train"}); got != "j1/opus" {
		t.Errorf("train: %s", got)
	}
	var qe *QueryError
	for _, bad := range []JudgmentFilter{{Auditor: "gpt"}, {Vs: "gpt"}, {Behavior: "deception"}, {Split: "sideways"}} {
		if _, err := s.Judgments(ctx, "x", bad); !errors.As(err, &qe) {
			t.Errorf("%+v: %v, want a query error", bad, err)
		}
	}
}

func (f *fakeAudits) Version() int64 { return 1 }

// listReader is a list of audits, paged and counted as the store does;
// counts is how often it was counted.
type listReader struct {
	Reader
	n, counts int
}

func (r *listReader) Version() int64 { return 1 }
func (r *listReader) CountAudits(context.Context, model.AuditFilter) (int, error) {
	r.counts++
	return r.n, nil
}
func (r *listReader) ListAuditsPage(_ context.Context, _ model.AuditFilter, offset, limit int) ([]model.AuditRow, error) {
	var out []model.AuditRow
	for i := offset; i < min(r.n, offset+limit); i++ {
		out = append(out, model.AuditRow{Key: "x:" + strconv.Itoa(i)})
	}
	return out, nil
}
func (r *listReader) AuditScores(context.Context, []string) (map[string]map[string]float64, error) {
	return nil, nil
}

// TestAuditsCount: a first page that is not full holds every match, so its
// total is its length and nothing is counted (a rare search term is one
// scan of the search text, not two); a full first page, and later pages,
// are counted, once per filter; a page past the end has no rows and the
// total.
func TestAuditsCount(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		n, page, rows, counts int
	}{
		{0, 1, 0, 0}, {7, 1, 7, 0}, {49, 1, 49, 0},
		{50, 1, 50, 1}, {120, 1, 50, 1}, {120, 3, 20, 1}, {120, 4, 0, 1},
	} {
		r := &listReader{n: c.n}
		s := New(r)
		p, err := s.Audits(ctx, model.AuditFilter{Text: "rare"}, c.page, 50)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != c.n || len(p.Rows) != c.rows || r.counts != c.counts {
			t.Errorf("%d audits, page %d: total %d, %d rows, counted %d times; want %d, %d, %d", c.n, c.page, p.Total, len(p.Rows), r.counts, c.n, c.rows, c.counts)
		}
		// The same filter again: the count is kept.
		if _, err := s.Audits(ctx, model.AuditFilter{Text: "rare"}, 2, 50); err != nil || r.counts > 1 {
			t.Errorf("%d audits: counted %d times after a second page", c.n, r.counts)
		}
	}
}
