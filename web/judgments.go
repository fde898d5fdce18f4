package web

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/petri"
	"github.com/auditscope/auditscope/views"
	"github.com/labstack/echo/v4"
)

var judgmentKinds = map[string]bool{"reference": true, "intragroup": true, "realism": true, "crux": true}

// listJudgments lists an experiment's judgments from one auditor's side:
// query kind, auditor, vs (the other auditor), split, behavior.
func (s *Server) listJudgments(c echo.Context) error {
	ctx := c.Request().Context()
	exp, err := s.store.Experiment(ctx, c.Param("exp"))
	if err != nil {
		return err
	}
	q := c.QueryParams()
	kind := q.Get("kind")
	if kind != "" && !judgmentKinds[kind] {
		return badRequestf("kind: want reference, intragroup, realism or crux, found %q", kind)
	}
	kinds := []string{"reference", "intragroup", "realism", "crux"}
	if kind != "" {
		kinds = []string{kind}
	}
	page, per, err := parsePage(q)
	if err != nil {
		return err
	}
	sides, err := s.store.SideJudgments(ctx, exp.ID, kinds...)
	if err != nil {
		return err
	}
	auditor, vs, split, behavior := q.Get("auditor"), q.Get("vs"), q.Get("split"), q.Get("behavior")
	var rows []data.SideJudgment
	seen := map[string]bool{}
	for _, j := range sides {
		if (auditor != "" && j.Auditor != auditor) || (vs != "" && j.OtherAuditor != vs) ||
			(split != "" && j.Split != split) || (behavior != "" && j.Behavior != behavior) {
			continue
		}
		// Without an auditor, a judgment between two audits shows once.
		if auditor == "" {
			if seen[j.ID] {
				continue
			}
			seen[j.ID] = true
		}
		rows = append(rows, j)
	}
	vm := views.JudgmentListView{Exp: exp, Query: q, Total: len(rows), Page: page, Per: per,
		Kind: kind, Auditor: auditor, Vs: vs, Split: split, Behavior: behavior}
	from := min((page-1)*per, len(rows))
	to := min(from+per, len(rows))
	vm.Rows = rows[from:to]
	return render(c, http.StatusOK, views.JudgmentList(vm))
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
	_, id, _ := data.SplitKey(side.AuditKey)
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
