package views

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// CyclesView is the intransitivity page.
type CyclesView struct {
	Exp     model.Experiment
	Kind    string
	MaxLen  int
	Items   int
	Edges   int
	Count3  int
	Cycles  []Cycle
	Capped  bool
	Ranking []RankRow
	BTError string
	// TestP, TestMean and TestReplays are the transitive Bradley–Terry
	// model's replay test of the 3-cycle count; TestError says why there
	// is none.
	TestP, TestMean float64
	TestReplays     int
	TestError       string
	// BTAnchor names the item whose log-strength the fit fixes at 0: the
	// others' values and intervals are relative to it.
	BTAnchor string
}

// Cycle is one elementary cycle as a list of edges.
type Cycle struct {
	Edges []CycleEdge
	// P is the cycle's p as a finding: its weakest edge's. A cycle is a
	// finding only below 0.05, and only when the count test (CyclesView.
	// TestP) says a transitive model rarely makes so many.
	P float64
}

// CycleEdge is from beating to by majority.
type CycleEdge struct {
	From, FromName, To, ToName string
	Wins, Losses               int
	P                          float64 // two-sided exact binomial
}

// Finding reports whether the cycle survives: every edge below 0.05, and
// the 3-cycle count unlikely under a transitive model.
func (v CyclesView) Finding(c Cycle) bool { return c.P < 0.05 && v.TestP < 0.05 }

// RankRow is one item of the Bradley–Terry ranking.
type RankRow struct {
	ID, Name         string
	Rank             int // 1 = strongest; exact ties share a rank; 0 without a fit
	Wins, Losses     int
	Strength, Lo, Hi float64 // NaN without a fit; Lo and Hi NaN for the anchor
	Anchor           bool
	InCycle          bool
}

// EdgeURL lists the judgments behind an edge.
func (v CyclesView) EdgeURL(e CycleEdge) templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.Judgments, url.Values{"kind": {v.Kind}, "auditor": {e.From}, "vs": {e.To}})
}

// FigureURL is the graph figure.
func (v CyclesView) FigureURL(format string) templ.SafeURL {
	return links.ExperimentFigure(v.Exp.ID, "cycles."+format, url.Values{"kind": {v.Kind}, "max": {fmt.Sprint(v.MaxLen)}})
}

// BoundURL changes the length bound.
func (v CyclesView) BoundURL(n int) templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.Cycles, url.Values{"kind": {v.Kind}, "max": {fmt.Sprint(n)}})
}

// FmtRank is the rank, Undefined without a fit.
func (r RankRow) FmtRank() string {
	if r.Rank == 0 {
		return Undefined
	}
	return strconv.Itoa(r.Rank)
}

// FmtStrength formats a log-strength with its interval; the anchor is 0 by
// definition and has no interval.
func (r RankRow) FmtStrength() string {
	if r.Anchor {
		return "0 (anchor)"
	}
	return FmtEstimate(r.Strength, r.Lo, r.Hi, 2)
}
