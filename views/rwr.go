package views

import (
	"fmt"
	"math"
	"net/url"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
)

// RWRView is the held-out RWR page.
type RWRView struct {
	Exp       model.Experiment
	Behaviors []string
	Rows      []RWRRow
	Runs      []string          // runs with reference judgments, for the figure
	RunNames  map[string]string // run id -> display name
	Run       string            // the run the figure shows
}

// RunName is a run's display name (its id when it has none).
func (v RWRView) RunName(id string) string {
	if n := v.RunNames[id]; n != "" {
		return n
	}
	return id
}

// RWRRow is one checkpoint's rates.
type RWRRow struct {
	Auditor, Name, Run     string
	Train, Heldout, Benign RateCell
	Gap                    float64
	ByBehavior             []RateCell
}

// RateCell is a win rate with its counts and Wilson interval (0–1).
type RateCell struct {
	N, Wins, Losses, Ties int
	Value, Lo, Hi         float64
}

// Fmt formats the rate in percent with its interval.
func (r RateCell) Fmt() string {
	if r.N == 0 {
		return Undefined
	}
	return FmtEstimate(100*r.Value, 100*r.Lo, 100*r.Hi, 1)
}

// Counts describes the counts behind a rate.
func (r RateCell) Counts() string {
	return fmt.Sprintf("%d judgments: %d wins, %d ties, %d losses", r.N, r.Wins, r.Ties, r.Losses)
}

// FmtGap formats the train minus held-out gap in points.
func FmtGap(g float64) string {
	if math.IsNaN(g) {
		return Undefined
	}
	return fmt.Sprintf("%+.1f", 100*g)
}

// JudgmentsURL lists the judgments behind a cell.
func (v RWRView) JudgmentsURL(auditor, split, behavior string) templ.SafeURL {
	q := url.Values{"kind": {"reference"}, "auditor": {auditor}}
	if split != "" {
		q.Set("split", split)
	}
	if behavior != "" {
		q.Set("behavior", behavior)
	}
	return PathQuery(q, "experiments", v.Exp.ID, "judgments")
}

// FigureURL is the RWR figure of the chosen run.
func (v RWRView) FigureURL(format string) templ.SafeURL {
	return PathQuery(url.Values{"run": {v.Run}}, "experiments", v.Exp.ID, "figures", "rwr."+format)
}

// RunLink shows the figure of another run.
func (v RWRView) RunLink(run string) templ.SafeURL {
	return PathQuery(url.Values{"run": {run}}, "experiments", v.Exp.ID, "rwr")
}
