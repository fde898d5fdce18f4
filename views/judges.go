package views

import (
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// Est is a value with its interval (NaN when undefined).
type Est struct{ Value, Lo, Hi float64 }

// Fmt is the estimate with its interval, to decimals.
func (e Est) Fmt(decimals int) string { return FmtEstimate(e.Value, e.Lo, e.Hi, decimals) }

// Excludes0 says the interval lies on one side of 0.
func (e Est) Excludes0() bool { return e.Lo > 0 || e.Hi < 0 }

// JudgesView is an experiment's judges page (issue #51).
type JudgesView struct {
	Exp       model.Experiment
	Judges    []model.JudgeInfo // the evaluation judge first
	EvalJudge string
	Threshold string
	Pairs     []JudgePairView
	Humans    []HumanCheckView
}

// JudgePairView is two judges on each dimension both scored.
type JudgePairView struct {
	A, B     string
	Rows     []JudgeRowView
	Disagree []DisagreeView
}

// JudgeRowView is one dimension's agreement.
type JudgeRowView struct {
	Dim                string
	N, Clusters        int
	Kappa, Alpha, Diff Est
}

// DisagreeView is an audit two judges scored far apart, linking to its page
// (which shows both verdicts).
type DisagreeView struct {
	Audit, Dim string
	A, B       float64
	URL        templ.SafeURL
}

// HumanCheckView is a person's 0/1 labels against the evaluation judge.
type HumanCheckView struct {
	Rater, Dim                                    string
	TP, FP, FN, TN                                int
	Sensitivity, Specificity, Observed, Corrected Est
}

// FigureURL is the forest plot of the k-th pair (from 1).
func (v JudgesView) FigureURL(k int, ext string) templ.SafeURL {
	return links.ExperimentFigure(v.Exp.ID, "judges."+ext, url.Values{"pair": {strconv.Itoa(k)}})
}

// CSVURL is the page's CSV.
func (v JudgesView) CSVURL() templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.JudgesCSV, url.Values{})
}
