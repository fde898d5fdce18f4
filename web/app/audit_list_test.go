package app

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// listedAudits is fakeAudits listed and counted as the store does, with
// a second dimension, "realism", and one judge.
type listedAudits struct{ fakeAudits }

func (f *listedAudits) selected(flt model.AuditFilter) []model.AuditRow {
	var out []model.AuditRow
	for _, r := range fakeRows {
		if flt.Auditor == "" || r.Auditor == flt.Auditor {
			out = append(out, r)
		}
	}
	return out
}

func (f *listedAudits) ListAuditsPage(_ context.Context, flt model.AuditFilter, offset, limit int) ([]model.AuditRow, error) {
	rows := f.selected(flt)
	return rows[min(offset, len(rows)):min(offset+limit, len(rows))], nil
}

func (f *listedAudits) CountAudits(_ context.Context, flt model.AuditFilter) (int, error) {
	return len(f.selected(flt)), nil
}

func (f *listedAudits) ScoreDimensions(context.Context, string) ([]string, error) {
	return []string{"concerning", "realism"}, nil
}

func (f *listedAudits) Judges(context.Context, string) ([]model.JudgeInfo, error) {
	return []model.JudgeInfo{{Name: "second", Kind: model.JudgeModel}}, nil
}

// TestAuditListPage: the audit list in one call. A display name is
// resolved to the auditor's id and lists its three audits; a name that
// names nothing is the page's Unknown (with what it may mean), not an
// error; the columns are the default ones the selection has, or those
// asked for, with the one sorted by; an unknown column or threshold
// dimension is a query error of that field.
func TestAuditListPage(t *testing.T) {
	ctx := context.Background()
	s := New(&listedAudits{})
	l, err := s.AuditList(ctx, AuditListQuery{Filter: model.AuditFilter{Experiment: "x", Auditor: "claude opus"}, Page: 1, Per: 50})
	if err != nil {
		t.Fatal(err)
	}
	if l.Filter.Auditor != "opus" || l.Total != 3 || len(l.Rows) != 3 || l.Unknown != nil {
		t.Errorf("by a display name: auditor %q, %d of %d rows, unknown %v; want opus, 3 of 3", l.Filter.Auditor, len(l.Rows), l.Total, l.Unknown)
	}
	if !slices.Equal(l.Columns, []string{"concerning"}) || !slices.Equal(l.Dimensions, []string{"concerning", "realism"}) {
		t.Errorf("columns %q of %q, want the default concerning", l.Columns, l.Dimensions)
	}
	if !slices.Equal(l.Judges, []string{"second"}) {
		t.Errorf("judges %q, want second", l.Judges)
	}

	l, err = s.AuditList(ctx, AuditListQuery{Filter: model.AuditFilter{Experiment: "x", Auditor: "claude"}, Page: 1, Per: 50})
	if err != nil || l.Unknown == nil || l.Unknown.Param != "auditor" || len(l.Unknown.Matches) != 2 || len(l.Rows) != 0 {
		t.Fatalf("an ambiguous name: %v, %+v; want the page's notice with both auditors and no rows", err, l)
	}

	l, err = s.AuditList(ctx, AuditListQuery{Filter: model.AuditFilter{Experiment: "x", Sort: "score:realism"}, Page: 1, Per: 50, Cols: []string{}})
	if err != nil || !slices.Equal(l.Columns, []string{"realism"}) {
		t.Errorf("no columns asked, sorted by realism: %q, %v; want realism", l.Columns, err)
	}

	var qe *QueryError
	for field, q := range map[string]AuditListQuery{
		"cols":  {Filter: model.AuditFilter{Experiment: "x"}, Page: 1, Per: 50, Cols: []string{"helpful"}},
		"score": {Filter: model.AuditFilter{Experiment: "x", Scores: []model.ScoreCond{{Dimension: "helpful", Op: ">=", Value: 3}}}, Page: 1, Per: 50},
	} {
		if _, err := s.AuditList(ctx, q); !errors.As(err, &qe) || qe.Field != field {
			t.Errorf("%s: %v, want a query error of %s", field, err, field)
		}
	}
}
