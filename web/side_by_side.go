package web

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// showSideBySide shows two audits next to each other: /audits/side-by-side
// ?a=ID&b=ID (ids as the audit pages take them).
func (s *Server) showSideBySide(c echo.Context) error {
	q := c.QueryParams()
	dim := q.Get("dim")
	if dim != "" && !slices.Contains(app.CompareDimensions, dim) {
		return app.UnknownValue("dim", dim, app.CompareDimensions)
	}
	a, b, err := s.judges.SideBySide(c.Request().Context(), q.Get("a"), q.Get("b"))
	if err != nil {
		return err
	}
	self, swap := views.SideBySideURL(a.Key, b.Key), views.SideBySideURL(b.Key, a.Key)
	if dim != "" {
		self, swap = views.SideBySideDimURL(a.Key, b.Key, dim), views.SideBySideDimURL(b.Key, a.Key, dim)
	}
	vm := views.SideBySideView{Synthetic: a.Experiment.Synthetic || b.Experiment.Synthetic,
		Swap: swap, Dim: dim, DimTitle: dimensionTitles[dim]}
	var ms [2][]views.MessageView
	for i, side := range []app.SideOf{a, b} {
		sv, messages := sideOfPage(side, []string{"A", "B"}[i], self)
		ms[i] = messages
		if dim == model.EvalRealism {
			if sv.Verdicts, err = s.verdicts(c, side); err != nil {
				return err
			}
		}
		if i == 0 {
			vm.A = sv
		} else {
			vm.B = sv
		}
	}
	vm.Scores = views.ScorePairs(vm.A.Audit.Scores, vm.B.Audit.Scores)
	vm.Turns = views.Turns(ms[0], ms[1])
	return render(c, http.StatusOK, views.SideBySidePage(vm))
}

// sideOfPage is one side of the page: the audit's facts, the target's view
// of its transcript as it ends (as a pairwise judge sees it), its messages
// with permalinks to this page, and its judge's highlights linked to them.
func sideOfPage(side app.SideOf, letter string, self templ.SafeURL) (views.SideAudit, []views.MessageView) {
	sv := views.SideAudit{Letter: letter, Audit: side.Detail, URL: links.Audit(side.Key, nil)}
	if side.Experiment.Format == "inspect" {
		// In Inspect's terms, as the sample's own page shows it; its
		// scorers' columns leave the judge's scores.
		av := views.AuditView{Audit: side.Detail, Labels: side.Labels}
		fillSample(&av, side.SampleScores, side.Detail.Eval == "")
		sv.Audit, sv.Sample, sv.Info, sv.Scorers = av.Audit, av.Sample, av.SampleInfo, av.Scorers
	}
	t := side.Transcript
	sv.LoadError = t.Problem
	name, branch, messages, ok := t.SideView()
	if !ok {
		if sv.LoadError == "" {
			sv.LoadError = "The transcript has no messages to show."
		}
		return sv, nil
	}
	sv.View = name
	var out []views.MessageView
	for i, m := range messages {
		mv := messageView(m, name, branch, i)
		mv.Prefix = letter + "-"
		mv.Link = string(self) + "#m-" + mv.Prefix + url.PathEscape(mv.Anchor)
		out = append(out, mv)
	}
	if t.Judge != nil {
		sv.Judge = judgeView(t, name, branch, -1, side.Key, url.Values{}) // every message shown: -1
		for i := range sv.Judge.Highlights {
			for j := range sv.Judge.Highlights[i].Parts {
				if p := &sv.Judge.Highlights[i].Parts[j]; p.Here {
					p.Href = "#m-" + templ.SafeURL(letter+"-"+url.PathEscape(p.MessageID))
				}
			}
		}
	}
	return sv, out
}

// verdicts are the judgments that decided a side's realism, as the page
// shows them.
func (s *Server) verdicts(c echo.Context, side app.SideOf) ([]views.Verdict, error) {
	js, err := s.judges.RealismVerdicts(c.Request().Context(), side)
	var out []views.Verdict
	for _, j := range js {
		outcome := "judged the audit the real conversation (a win)"
		switch {
		case j.Outcome == "tie":
			outcome = "could not tell (a tie)"
		case (j.Outcome == "left") != (j.Left.Ref == side.Detail.ID):
			outcome = "picked the real conversation (a loss)"
		}
		out = append(out, views.Verdict{Outcome: outcome, Reasoning: j.Reasoning, URL: links.Judgment(j.Key)})
	}
	return out, err
}
