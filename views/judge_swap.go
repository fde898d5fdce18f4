package views

import (
	"fmt"
	"net/url"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/views/links"
)

// SwapCell is a compare row's difference under another judge (issue #51):
// the estimate, how it reads against the page's (holds, reverses, not
// significant, no data) and the page under that judge.
type SwapCell struct {
	Judge         string // "" the evaluation judge
	Value, Lo, Hi float64
	Reading       string
	URL           templ.SafeURL
}

// JudgeLabel names a judge for the page: "" is the evaluation judge.
func JudgeLabel(j string) string {
	if j == "" {
		return "the evaluation judge"
	}
	return j
}

// Mark is the cell's symbol, beside its words (never colour alone).
func (c SwapCell) Mark() string {
	switch c.Reading {
	case "holds":
		return "✓"
	case "reverses":
		return "✗"
	case "not significant":
		return "–"
	}
	return ""
}

// FmtSwap says under how many judges a row's difference holds.
func (r CompareRow) FmtSwap() string {
	switch {
	case r.Dim == "realism":
		return "the realism judgments, whoever scores the audits"
	case r.Judged == 0:
		return Undefined
	case r.Judged == 1:
		return "one judge scored it"
	case r.Holds == r.Judged:
		return fmt.Sprintf("holds under all %d judges", r.Judged)
	case r.Holds == 0:
		return fmt.Sprintf("holds under none of %d judges", r.Judged)
	}
	return fmt.Sprintf("holds under %d of %d judges", r.Holds, r.Judged)
}

// JudgeOptions are the picker's judges, the evaluation judge first.
func (v CompareView) JudgeOptions() []Option {
	out := []Option{{Value: "", Label: "the evaluation judge (default)"}}
	for _, j := range v.Judges {
		out = append(out, Option{Value: j, Label: j})
	}
	return out
}

// HasSwaps reports whether the block's rows carry other judges' readings.
func (b CompareBlock) HasSwaps() bool { return len(b.Rows) > 0 && len(b.Rows[0].Swaps) > 0 }

// OutcomeJudges says whose outcomes a page's statistics read: Judge ("" the
// evaluation judge), the others it could read (Judges), and Asked, a
// judge= that gave none (it scored judge dimensions only), so the page
// says it shows the evaluation judge's instead.
type OutcomeJudges struct {
	Judge, Asked string
	Judges       []string
}

// OutcomeLink is the overview under judge j, the rest of its state kept.
func (v ExperimentView) OutcomeLink(j string) templ.SafeURL {
	q := url.Values{}
	for k, x := range v.Query {
		q[k] = x
	}
	q.Del("judge")
	if j != "" {
		q.Set("judge", j)
	}
	return links.Experiment(v.Exp.ID, links.Overview, q) + "#scores"
}

// overAudits qualifies a page under another judge: its readings are of
// the audits that judge judged; realism, the realism judgments', is the
// same under every judge.
func overAudits(what string) string {
	if what == "Outcomes" {
		return "(over the audits it judged; realism stays the realism judgments')"
	}
	return "(over the audits it judged)"
}
