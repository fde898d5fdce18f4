package views

import (
	"fmt"
	"math"
	"net/url"
	"slices"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// RWRView is the held-out RWR page.
type RWRView struct {
	Exp       model.Experiment
	Behaviors []string
	Rows      []RWRRow
	Runs      []string          // runs with reference judgments, for the figure
	RunNames  map[string]string // run id -> display name
	Run       string            // the run the figure shows
	// TrainTargets and HeldoutTargets are the target models of each
	// split's judged audits: where they differ, the page says the gap
	// mixes behaviors with models.
	TrainTargets, HeldoutTargets []string
	Few                          int // fewest judgments a per-behavior cell shows as a rate
}

// TargetsDiffer reports whether the splits' audits target different
// models.
func (v RWRView) TargetsDiffer() bool {
	return len(v.TrainTargets) > 0 && len(v.HeldoutTargets) > 0 && !slices.Equal(v.TrainTargets, v.HeldoutTargets)
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
	Gap                    Interval // train − held-out (0–1), bootstrap over behaviors
	ByBehavior             []RateCell
}

// FmtGapCI formats a gap in points with its interval: "+19.5 [−5.4,
// +41.7]".
func FmtGapCI(g Interval) string {
	if math.IsNaN(g.Value) {
		return Undefined
	}
	return FmtDiff(100*g.Value, 100*g.Lo, 100*g.Hi)
}

// GapExcludes0 reports whether the gap's interval excludes 0.
func GapExcludes0(g Interval) bool { return g.Lo > 0 || g.Hi < 0 }

// Thin reports whether a cell rests on fewer than few judgments: it shows
// its counts, not a rate with an interval.
func (r RateCell) Thin(few int) bool { return r.N > 0 && r.N < few }

// FmtCounts formats a thin cell's counts: "1 win", "1–0–1 (W–T–L)".
func (r RateCell) FmtCounts() string {
	if r.N == 1 {
		switch {
		case r.Wins == 1:
			return "1 win"
		case r.Ties == 1:
			return "1 tie"
		}
		return "1 loss"
	}
	return fmt.Sprintf("%d–%d–%d", r.Wins, r.Ties, r.Losses)
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

// JudgmentsURL lists the judgments behind a cell.
func (v RWRView) JudgmentsURL(auditor, split, behavior string) templ.SafeURL {
	q := url.Values{"kind": {"reference"}, "auditor": {auditor}}
	if split != "" {
		q.Set("split", split)
	}
	if behavior != "" {
		q.Set("behavior", behavior)
	}
	return links.Experiment(v.Exp.ID, links.Judgments, q)
}

// FigureURL is the RWR figure of the chosen run.
func (v RWRView) FigureURL(format string) templ.SafeURL {
	return links.ExperimentFigure(v.Exp.ID, "rwr."+format, url.Values{"run": {v.Run}})
}

// RunLink shows the figure of another run.
func (v RWRView) RunLink(run string) templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.RWR, url.Values{"run": {run}})
}
