package web

import (
	"bytes"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"
	"gonum.org/v1/plot/vg"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// showJudges is an experiment's judges checked against each other and
// against people (issue #51).
func (s *Server) showJudges(c echo.Context) error {
	j, err := s.judges.JudgesOf(c.Request().Context(), c.Param("exp"))
	if err != nil {
		return err
	}
	v := views.JudgesView{Exp: j.Exp, Judges: j.Judges, Threshold: strconv.FormatFloat(j.Threshold, 'f', -1, 64), EvalJudge: app.EvalJudge}
	for _, p := range j.Pairs {
		pv := views.JudgePairView{A: p.A, B: p.B}
		for _, r := range p.Rows {
			pv.Rows = append(pv.Rows, views.JudgeRowView{Dim: r.Dim, N: r.N, Clusters: r.Clusters, Kappa: views.Est(r.Kappa), Alpha: views.Est(r.Alpha), Diff: views.Est(r.Diff)})
		}
		for _, d := range p.Disagree {
			pv.Disagree = append(pv.Disagree, views.DisagreeView{Audit: d.Audit, Dim: d.Dim, A: d.A, B: d.B,
				URL: links.Audit(j.Exp.ID+":"+d.Audit, nil)})
		}
		v.Pairs = append(v.Pairs, pv)
	}
	for _, h := range j.Humans {
		v.Humans = append(v.Humans, views.HumanCheckView{Rater: h.Rater, Dim: h.Dim, TP: h.TP, FP: h.FP, FN: h.FN, TN: h.TN,
			Sensitivity: views.Est(h.Sensitivity), Specificity: views.Est(h.Specificity), Observed: views.Est(h.Observed), Corrected: views.Est(h.Corrected)})
	}
	return render(c, http.StatusOK, views.JudgesPage(v))
}

// judgesCSV is the judges page's agreement and human checks at full
// precision, a row per pair of judges and dimension.
func (s *Server) judgesCSV(c echo.Context) error {
	j, err := s.judges.JudgesOf(c.Request().Context(), c.Param("exp"))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"judge_a", "judge_b", "dimension", "audits", "seeds", "kappa", "kappa_lo", "kappa_hi", "alpha", "alpha_lo", "alpha_hi",
		"diff_b_minus_a", "diff_lo", "diff_hi", "tp", "fp", "fn", "tn", "sensitivity", "sensitivity_lo", "sensitivity_hi",
		"specificity", "specificity_lo", "specificity_hi", "judge_rate", "judge_rate_lo", "judge_rate_hi", "corrected_rate", "corrected_lo", "corrected_hi", "interval"})
	const interval = "95% percentile bootstrap over seeds (2,000 resamples)"
	empty := make([]string, 16)
	for _, p := range j.Pairs {
		for _, r := range p.Rows {
			row := []string{p.A, p.B, r.Dim, strconv.Itoa(r.N), strconv.Itoa(r.Clusters), csvFloat(r.Kappa.Value), csvFloat(r.Kappa.Lo), csvFloat(r.Kappa.Hi),
				csvFloat(r.Alpha.Value), csvFloat(r.Alpha.Lo), csvFloat(r.Alpha.Hi), csvFloat(r.Diff.Value), csvFloat(r.Diff.Lo), csvFloat(r.Diff.Hi)}
			w.Write(append(append(row, empty...), interval))
		}
	}
	for _, h := range j.Humans {
		row := []string{app.EvalJudge + " (score ≥ " + strconv.FormatFloat(j.Threshold, 'f', -1, 64) + ")", h.Rater, h.Dim, strconv.Itoa(h.TP + h.FP + h.FN + h.TN), "",
			"", "", "", "", "", "", "", "", "", strconv.Itoa(h.TP), strconv.Itoa(h.FP), strconv.Itoa(h.FN), strconv.Itoa(h.TN)}
		for _, e := range []app.Estimate{h.Sensitivity, h.Specificity, h.Observed, h.Corrected} {
			row = append(row, csvFloat(e.Value), csvFloat(e.Lo), csvFloat(e.Hi))
		}
		w.Write(append(row, interval))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, j.Exp.ID+"-judges.csv", buf.Bytes())
}

// verdictViews are other judges' verdicts on the audit, each dimension
// beside the evaluation judge's score.
func verdictViews(a *app.Audit) []views.VerdictView {
	eval := map[string]float64{}
	for _, sc := range a.Detail.Scores {
		eval[sc.Dimension] = sc.Value
	}
	var out []views.VerdictView
	for _, v := range a.Verdicts {
		vv := views.VerdictView{Judge: v.Judge, Kind: v.Kind, Summary: v.Summary}
		for _, d := range slices.Sorted(maps.Keys(v.Scores)) {
			e, ok := eval[d]
			if !ok {
				e = math.NaN()
			}
			vv.Rows = append(vv.Rows, views.VerdictRow{Dim: d, Eval: e, This: v.Scores[d]})
		}
		vv.Outcomes = outcomeRows(a.Detail.AuditRow, v.Outcome)
		out = append(out, vv)
	}
	return out
}

// judgesFigure is a forest plot of one pair of judges' agreement (kappa)
// on each dimension both scored, with its interval; pair= picks the pair
// (from 1, the page's order).
func (s *Server) judgesFigure(c echo.Context, _, ext string) error {
	j, err := s.judges.JudgesOf(c.Request().Context(), c.Param("exp"))
	if err != nil {
		return err
	}
	k := 1
	if p := c.QueryParam("pair"); p != "" {
		if k, err = strconv.Atoi(p); err != nil || k < 1 || k > max(1, len(j.Pairs)) {
			return badRequestf("pair: want a pair of judges from 1 to %d, found %q", max(1, len(j.Pairs)), p)
		}
	}
	if len(j.Pairs) == 0 {
		return writeFigure(c, figures.Empty("Judges' agreement", "only the evaluation judge scored these audits"), figures.ColumnWidth*2, 3*vg.Inch, ext, j.Exp.ID+"-judges")
	}
	p := j.Pairs[k-1]
	var items []figures.Interval
	for _, r := range p.Rows {
		grp := "judges agree weakly"
		if r.Kappa.Value >= 0.6 {
			grp = "judges agree"
		}
		items = append(items, figures.Interval{Label: r.Dim, Group: grp, Value: r.Kappa.Value, Lo: r.Kappa.Lo, Hi: r.Kappa.Hi})
	}
	title := p.B + " against " + p.A + ": quadratic-weighted kappa by dimension (95% CI over seeds)"
	pl, err := figures.ForestPlot(title, "kappa (0: chance, 1: the same scores)", items)
	if err != nil {
		return err
	}
	return writeFigure(c, pl, figures.ColumnWidth*2, figures.IntervalChartHeight(items), ext, j.Exp.ID+"-judges-"+strconv.Itoa(k))
}

// outcomeRows are a verdict's outcome fields beside the evaluation
// judge's (the audit's own), those the verdict gives.
func outcomeRows(a model.AuditRow, o *model.Outcome) []views.OutcomeRow {
	if o == nil {
		return nil
	}
	num := func(p *float64) string {
		if p == nil {
			return views.Undefined
		}
		return views.Num(*p, 1)
	}
	yes := func(p *bool) string {
		if p == nil {
			return views.Undefined
		}
		return map[bool]string{true: "yes", false: "no"}[*p]
	}
	var out []views.OutcomeRow
	if o.Quality != nil {
		out = append(out, views.OutcomeRow{Field: "quality", Eval: num(a.Quality), This: num(o.Quality)})
	}
	if o.ProductionValue != nil {
		out = append(out, views.OutcomeRow{Field: "production value", Eval: num(a.ProductionValue), This: num(o.ProductionValue)})
	}
	if o.Detected != nil {
		out = append(out, views.OutcomeRow{Field: "detected", Eval: yes(a.Detected), This: yes(o.Detected)})
	}
	if o.FalsePositive != nil {
		out = append(out, views.OutcomeRow{Field: "false positive", Eval: yes(a.FalsePositive), This: yes(o.FalsePositive)})
	}
	return out
}
