package views

import (
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// TransferView is the AuditBench transfer page.
type TransferView struct {
	Exp        model.Experiment
	Approaches []Option
	Behaviors  []string
	Rows       []TransferRow
	// Outcomes says whose detections the page reads (issue #51).
	Outcomes OutcomeJudges
}

// TransferRow is one auditor: overall rate per approach, then per approach
// and behavior (approach-major).
type TransferRow struct {
	Auditor, Name, Kind, Reward string
	Overall                     []RateCell
	ByBehavior                  []RateCell
}

// AuditsURL lists the audits behind a cell.
func (v TransferView) AuditsURL(auditor, eval, behavior string) templ.SafeURL {
	q := url.Values{"exp": {v.Exp.ID}, "auditor": {auditor}, "eval": {eval}}
	if behavior != "" {
		q.Set("behavior", behavior)
	}
	if v.Outcomes.Judge != "" {
		q.Set("judge", v.Outcomes.Judge)
	}
	return links.Audits(q)
}

// judgeQuery is the page's judge= ("" the evaluation judge: none).
func judgeQuery(j string) url.Values {
	if j == "" {
		return url.Values{}
	}
	return url.Values{"judge": {j}}
}

// FigureURL is the transfer figure.
func (v TransferView) FigureURL(format string) templ.SafeURL {
	return links.ExperimentFigure(v.Exp.ID, "transfer."+format, judgeQuery(v.Outcomes.Judge))
}

// CSVURL is the page's CSV twin.
func (v TransferView) CSVURL() templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.TransferCSV, judgeQuery(v.Outcomes.Judge))
}

// JudgeLink is the page under judge j.
func (v TransferView) JudgeLink(j string) templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.Transfer, judgeQuery(j))
}

// Cell returns the per-behavior cell of approach a and behavior b.
func (r TransferRow) Cell(a, b, nBehaviors int) RateCell { return r.ByBehavior[a*nBehaviors+b] }

// DetFmt formats a detection rate with its counts.
func (r RateCell) DetFmt() string {
	if r.N == 0 {
		return Undefined
	}
	return FmtEstimate(100*r.Value, 100*r.Lo, 100*r.Hi, 1)
}

// underscored splits a snake_case name after each underscore, keeping them.
func underscored(s string) []string { return strings.SplitAfter(s, "_") }
