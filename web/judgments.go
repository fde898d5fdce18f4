package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/web/app"
)

var judgmentKinds = map[string]bool{model.JudgmentReference: true, model.JudgmentIntragroup: true, model.JudgmentRealism: true, model.JudgmentCrux: true}

// filteredJudgments is the judgment list's one loader, for the page and
// its CSV: the experiment, the query and the judgments it selects.
func (s *Server) filteredJudgments(c echo.Context) (model.Experiment, judgmentsQuery, []model.SideJudgment, error) {
	ctx := c.Request().Context()
	jq, err := parseJudgmentsQuery(c.QueryParams())
	if err != nil {
		return model.Experiment{}, jq, nil, err
	}
	exp, err := s.stats.Experiment(ctx, c.Param("exp"))
	if err != nil {
		return exp, jq, nil, err
	}
	rows, err := s.judges.Judgments(ctx, exp.ID, jq.Filter)
	return exp, jq, rows, err
}

// judgmentsQuery is the judgments list's state: its filter and page.
type judgmentsQuery struct {
	Filter    app.JudgmentFilter
	Page, Per int
}

func parseJudgmentsQuery(q url.Values) (judgmentsQuery, error) {
	f := app.JudgmentFilter{Kind: q.Get("kind"), Auditor: q.Get("auditor"), Vs: q.Get("vs"), Split: q.Get("split"), Behavior: q.Get("behavior")}
	if f.Kind != "" && !judgmentKinds[f.Kind] {
		return judgmentsQuery{}, badRequestf("kind: want reference, intragroup, realism or crux, found %q", f.Kind)
	}
	page, per, err := parsePage(q)
	return judgmentsQuery{Filter: f, Page: page, Per: per}, err
}

// values renders the query back, without defaults.
func (j judgmentsQuery) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"kind": j.Filter.Kind, "auditor": j.Filter.Auditor, "vs": j.Filter.Vs,
		"split": j.Filter.Split, "behavior": j.Filter.Behavior} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if j.Page != 1 {
		v.Set("page", strconv.Itoa(j.Page))
	}
	if j.Per != defaultPerPage {
		v.Set("per", strconv.Itoa(j.Per))
	}
	return v
}

// listJudgments lists an experiment's judgments.
func (s *Server) listJudgments(c echo.Context) error {
	exp, jq, rows, err := s.filteredJudgments(c)
	if err != nil {
		return err
	}
	f, page, per := jq.Filter, jq.Page, jq.Per
	if past, err := pastLastPage(c, c.Request().URL.Path, c.Request().URL.Query(), page, len(rows), per); past {
		return err
	}
	vm := views.JudgmentListView{Exp: exp, Query: jq.values(), Total: len(rows), Page: page, Per: per,
		Kind: f.Kind, Auditor: f.Auditor, Vs: f.Vs, Split: f.Split, Behavior: f.Behavior, Names: map[string]string{}}
	if vm.Names, err = s.judges.AuditorNames(c.Request().Context(), exp.ID); err != nil {
		return err
	}
	from := min((page-1)*per, len(rows))
	to := min(from+per, len(rows))
	vm.Rows = rows[from:to]
	return render(c, http.StatusOK, views.JudgmentList(vm))
}

// judgmentsCSV exports every judgment the query selects.
func (s *Server) judgmentsCSV(c echo.Context) error {
	exp, _, rows, err := s.filteredJudgments(c)
	if err != nil {
		return err
	}
	out := make([][]string, 0, len(rows))
	for _, j := range rows {
		out = append(out, []string{j.ID, j.Kind, j.Audit, j.Auditor, j.Other, j.OtherAuditor, j.Behavior, j.Split, j.Outcome})
	}
	return writeCSV(c, exp.ID+"-judgments.csv", []string{"judgment", "kind", "audit", "auditor", "other", "other_auditor", "behavior", "split", "result"}, out)
}

// showJudgment shows one pairwise judgment: both transcripts side by side
// with the verdict and the judge's reasoning.
func (s *Server) showJudgment(c echo.Context) error {
	j, exp, err := s.judges.Judgment(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	vm := views.JudgmentView{Exp: exp, J: j}
	vm.Left = s.judgmentSide(c, j.Experiment, j.Left, "L-")
	vm.Right = s.judgmentSide(c, j.Experiment, j.Right, "R-")
	return render(c, http.StatusOK, views.JudgmentPage(vm))
}

// judgmentSide shows the target's (or combined) view of a side's
// transcript as it ends.
func (s *Server) judgmentSide(c echo.Context, exp string, side model.JudgmentSide, prefix string) views.SideView {
	sv := views.SideView{Side: side}
	if side.AuditKey == "" {
		return sv
	}
	_, id, _ := model.SplitKey(side.AuditKey)
	t, err := s.judges.Transcript(c.Request().Context(), exp, id)
	switch {
	case err != nil || t.Cause != nil && len(t.Views()) == 0:
		sv.Error = "The transcript could not be read."
		return sv
	case t.Problem != "" && len(t.Views()) == 0:
		sv.Error = "The transcript is not valid Petri JSON."
		return sv
	}
	name, branch, messages, ok := t.SideView()
	if !ok {
		return sv
	}
	sv.View = name
	for i, m := range messages {
		mv := messageView(m, name, branch, i)
		mv.Prefix = prefix
		sv.Messages = append(sv.Messages, mv)
	}
	sv.Audit = views.AuditView{Audit: model.AuditDetail{AuditRow: model.AuditRow{Key: side.AuditKey}}, Filter: url.Values{}}
	return sv
}
