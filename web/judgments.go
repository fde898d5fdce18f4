package web

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
	"github.com/auditscope/auditscope/views"
)

var judgmentKinds = map[string]bool{"reference": true, "intragroup": true, "realism": true, "crux": true}

// judgmentFilter is the judgment list's state: kind, auditor, vs (the
// other auditor), split, behavior.
type judgmentFilter struct{ Kind, Auditor, Vs, Split, Behavior string }

// filteredJudgments returns the judgments a query selects, from the
// auditor's side when one is given.
func (s *Server) filteredJudgments(c echo.Context) (data.Experiment, judgmentsQuery, []data.SideJudgment, error) {
	ctx := c.Request().Context()
	jq, err := parseJudgmentsQuery(c.QueryParams())
	if err != nil {
		return data.Experiment{}, jq, nil, err
	}
	exp, err := s.store.Experiment(ctx, c.Param("exp"))
	if err != nil {
		return exp, jq, nil, err
	}
	f := jq.Filter
	kinds := []string{"reference", "intragroup", "realism", "crux"}
	if f.Kind != "" {
		kinds = []string{f.Kind}
	}
	sides, err := s.store.SideJudgments(ctx, exp.ID, kinds...)
	if err != nil {
		return exp, jq, nil, err
	}
	if err := checkJudgmentFilter(f, sides); err != nil {
		return exp, jq, nil, err
	}
	var rows []data.SideJudgment
	seen := map[string]bool{}
	for _, j := range sides {
		if (f.Auditor != "" && j.Auditor != f.Auditor) || (f.Vs != "" && j.OtherAuditor != f.Vs) ||
			(f.Split != "" && j.Split != f.Split) || (f.Behavior != "" && j.Behavior != f.Behavior) {
			continue
		}
		// Without an auditor, a judgment between two audits shows once.
		if f.Auditor == "" {
			if seen[j.ID] {
				continue
			}
			seen[j.ID] = true
		}
		rows = append(rows, j)
	}
	return exp, jq, rows, nil
}

// judgmentsQuery is the judgments list's state: its filter and page.
type judgmentsQuery struct {
	Filter    judgmentFilter
	Page, Per int
}

func parseJudgmentsQuery(q url.Values) (judgmentsQuery, error) {
	f := judgmentFilter{Kind: q.Get("kind"), Auditor: q.Get("auditor"), Vs: q.Get("vs"), Split: q.Get("split"), Behavior: q.Get("behavior")}
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

// checkJudgmentFilter refuses an auditor, opponent or behavior that no
// judgment of the selection has, naming the choices, as the audit list does.
func checkJudgmentFilter(f judgmentFilter, sides []data.SideJudgment) error {
	auditors, behaviors := map[string]bool{}, map[string]bool{}
	for _, j := range sides {
		auditors[j.Auditor] = true
		if j.OtherAuditor != "" {
			auditors[j.OtherAuditor] = true
		}
		if j.Behavior != "" {
			behaviors[j.Behavior] = true
		}
	}
	for _, x := range []struct {
		param, value string
		have         map[string]bool
	}{{"auditor", f.Auditor, auditors}, {"vs", f.Vs, auditors}, {"behavior", f.Behavior, behaviors}} {
		if x.value != "" && !x.have[x.value] {
			return unknownValue(x.param, x.value, slices.Sorted(maps.Keys(x.have)))
		}
	}
	switch f.Split {
	case "", "train", "heldout", "benign":
		return nil
	}
	return badRequestf("split: want train, heldout or benign, found %q", f.Split)
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
	auditors, err := s.store.Auditors(c.Request().Context(), exp.ID)
	if err != nil {
		return err
	}
	for _, a := range auditors {
		vm.Names[a.ID] = a.Name
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
	ctx := c.Request().Context()
	j, err := s.store.Judgment(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	exp, err := s.store.Experiment(ctx, j.Experiment)
	if err != nil {
		return err
	}
	vm := views.JudgmentView{Exp: exp, J: j}
	vm.Left = s.judgmentSide(c, j.Experiment, j.Left, "L-")
	vm.Right = s.judgmentSide(c, j.Experiment, j.Right, "R-")
	return render(c, http.StatusOK, views.JudgmentPage(vm))
}

// judgmentSide loads the combined (or target) view of a side's transcript.
func (s *Server) judgmentSide(c echo.Context, exp string, side data.JudgmentSide, prefix string) views.SideView {
	sv := views.SideView{Side: side}
	if side.AuditKey == "" {
		return sv
	}
	_, id, _ := model.SplitKey(side.AuditKey)
	body, err := s.store.Transcript(c.Request().Context(), exp, id)
	if err != nil {
		sv.Error = "The transcript could not be read."
		return sv
	}
	var t petri.Transcript
	if err := json.Unmarshal(body, &t); err != nil {
		sv.Error = "The transcript is not valid Petri JSON."
		return sv
	}
	pv, _ := t.Views()
	var view *petri.View
	for i := range pv {
		if pv[i].Name == petri.ViewTarget || (view == nil && pv[i].Name == petri.ViewCombined) {
			view = &pv[i]
		}
	}
	if view == nil && len(pv) > 0 {
		view = &pv[0]
	}
	if view == nil {
		return sv
	}
	sv.View = view.Name
	br := view.Final()
	for i, m := range br.Messages {
		mv := messageView(m, view.Name, len(view.Branches)-1, i)
		mv.Prefix = prefix
		sv.Messages = append(sv.Messages, mv)
	}
	sv.Audit = views.AuditView{Audit: data.AuditDetail{AuditRow: data.AuditRow{Key: side.AuditKey}}, Filter: url.Values{}}
	return sv
}
