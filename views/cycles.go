package views

import (
	"fmt"
	"net/url"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
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
}

// Cycle is one elementary cycle as a list of edges.
type Cycle struct{ Edges []CycleEdge }

// CycleEdge is from beating to by majority.
type CycleEdge struct {
	From, FromName, To, ToName string
	Wins, Losses               int
}

// RankRow is one item of the Bradley–Terry ranking.
type RankRow struct {
	ID, Name         string
	Wins, Losses     int
	Strength, Lo, Hi float64
	InCycle          bool
}

// EdgeURL lists the judgments behind an edge.
func (v CyclesView) EdgeURL(e CycleEdge) templ.SafeURL {
	return PathQuery(url.Values{"kind": {v.Kind}, "auditor": {e.From}, "vs": {e.To}}, "experiments", v.Exp.ID, "judgments")
}

// FigureURL is the graph figure.
func (v CyclesView) FigureURL(format string) templ.SafeURL {
	return PathQuery(url.Values{"kind": {v.Kind}, "max": {fmt.Sprint(v.MaxLen)}}, "experiments", v.Exp.ID, "figures", "cycles."+format)
}

// BoundURL changes the length bound.
func (v CyclesView) BoundURL(n int) templ.SafeURL {
	return PathQuery(url.Values{"kind": {v.Kind}, "max": {fmt.Sprint(n)}}, "experiments", v.Exp.ID, "cycles")
}

// FmtStrength formats a log-strength with its interval.
func (r RankRow) FmtStrength() string {
	return FmtEstimate(r.Strength, r.Lo, r.Hi, 2)
}
