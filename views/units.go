package views

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/a-h/templ"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// UnitsView is the page listing the matched units behind one row of the
// compare page: which units each auditor has, their audits and values, and
// whether the test paired them.
type UnitsView struct {
	Exp          model.Experiment
	Query        url.Values // the page's state (a, b, dim, show, sort), for links
	A, AName     string
	B, BName     string
	Dim, Title   string
	Row          CompareRow // the compare page's row these units are behind
	Unit         string     // what a unit is: behavior × seed, benign seed, …
	Binary       bool       // 0/1 units (AuditBench detections with one audit a side)
	Show, Sort   string
	Rows         []UnitRow // this page's
	Total        int       // the units shown (after the filter), on all pages
	Page, Per    int
	NA, NB       int // the counts of every unit, before the filter
	Pairs        int
	OnlyA, OnlyB int
	Dims         []Option // the dimensions, for the picker
	Samples      bool     // Inspect samples: A and B models, units samples
}

// UnitRow is one matched unit.
type UnitRow struct {
	Dimension, DimTitle string // the composite lists four dimensions' units
	Behavior, Seed      string
	A, B                UnitSideView
	Paired              bool
	Diff                float64 // A − B when paired, else NaN
	Binary              bool
	SideBySide          templ.SafeURL // A's first audit beside B's; "" unless both have one
	Samples             bool          // a sample of a task (Behavior), its id in Seed
}

// UnitSideView is one side of a unit: its audits, each with its value, and
// the unit's value.
type UnitSideView struct {
	Audits []UnitAudit
	Value  float64 // NaN when the side lacks the unit
}

// UnitAudit is one audit of a unit, linked to its page.
type UnitAudit struct {
	ID    string
	URL   templ.SafeURL
	Value float64
}

// Has reports whether the side has the unit.
func (s UnitSideView) Has() bool { return len(s.Audits) > 0 }

// UnitsShows are the page's filters, in the form's order.
// The default's value is empty: the form leaves it out of the URL.
var UnitsShows = []Option{{Value: "", Label: "every unit"}, {Value: "discordant", Label: "paired units that differ"},
	{Value: "ahead-a", Label: "A ahead"}, {Value: "ahead-b", Label: "B ahead"}, {Value: "tied", Label: "tied"},
	{Value: "a", Label: "A's alone"}, {Value: "b", Label: "B's alone"}}

// SideBySideURL is the page showing audits a and b (keys
// "experiment:id") next to each other.
func SideBySideURL(a, b string) templ.SafeURL {
	return links.SideBySide(url.Values{"a": {a}, "b": {b}})
}

// UnitsURL is the units page behind A − B's row of dim.
func UnitsURL(exp, judge, a, b, dim string) templ.SafeURL {
	q := url.Values{"a": {a}, "b": {b}, "dim": {dim}}
	if judge != "" {
		q.Set("judge", judge)
	}
	return links.Experiment(exp, links.Units, q)
}

// CSVURL is the page's CSV twin: every unit the filter shows.
func (v UnitsView) CSVURL() templ.SafeURL {
	q := url.Values{}
	for k, vs := range v.Query {
		if k != "page" {
			q[k] = vs
		}
	}
	return links.Experiment(v.Exp.ID, links.UnitsCSV, q)
}

// ShowValue is the form's value of the filter shown ("" for every unit).
func (v UnitsView) ShowValue() string {
	if v.Show == "all" {
		return ""
	}
	return v.Show
}

// RecordWord names what a side holds of a unit: audits, or an Inspect
// sample's records (epochs).
func (v UnitsView) RecordWord() string {
	if v.Samples {
		return "records"
	}
	return "audits"
}

// RowWord names the compare page's rows: dimensions, or an Inspect
// experiment's scorer metrics.
func (v UnitsView) RowWord() string {
	if v.Samples {
		return "metric"
	}
	return "dimension"
}

// Pages is how many pages the shown units take.
func (v UnitsView) Pages() int { return max(1, (v.Total+v.Per-1)/v.Per) }

// PageLink links to another page of the same units.
func (v UnitsView) PageLink(page int) templ.SafeURL {
	q := with(v.Query, "page", strconv.Itoa(page))
	if page == 1 {
		q.Del("page")
	}
	return links.Experiment(v.Exp.ID, links.Units, q)
}

// CompareLink is the compare page of A and B.
func (v UnitsView) CompareLink() templ.SafeURL {
	return CompareJudgeURL(v.Exp.ID, v.Query.Get("judge"), v.A, v.B)
}

// Counts says what the units add up to, as the compare row does.
func (v UnitsView) Counts() string {
	s := fmt.Sprintf("A has %d %s, B has %d; %d paired", v.NA, unitsWord(v.Unit), v.NB, v.Pairs)
	switch {
	case v.Binary && v.Samples:
		s += fmt.Sprintf("; of the pairs, 1 for A only %d, for B only %d", v.OnlyA, v.OnlyB)
	case v.Binary:
		s += fmt.Sprintf("; of the pairs, detected by A only %d, by B only %d", v.OnlyA, v.OnlyB)
	}
	return s
}

func unitsWord(unit string) string {
	if unit == "" {
		return "units"
	}
	if unit == "the dimensions' units" {
		return "units over the four dimensions"
	}
	return unit + "s"
}

// FmtUnitValue formats a unit's or an audit's value: "detected" or
// "missed" on a 0/1 unit, points with one decimal otherwise, and "—" when
// the side lacks it.
func FmtUnitValue(v float64, binary bool) string {
	switch {
	case v != v:
		return Undefined
	case binary && v == 1:
		return "detected"
	case binary && v == 0:
		return "missed"
	}
	return Num(v, 1)
}

// FmtValue formats a side's value as the row's kind has it: a scorer's
// value of a sample as it is (up to four significant digits), a realism
// judgment as win, tie or loss (a unit of several: their mean), else
// FmtUnitValue.
func (r UnitRow) FmtValue(v float64) string {
	if r.Samples && v == v {
		return FmtScore(v)
	}
	if r.Dimension == "realism" {
		// A realism audit's value is its judgment against the real
		// conversation: 100 a win, 50 a tie, 0 a loss.
		switch v {
		case 100:
			return "win"
		case 50:
			return "tie"
		case 0:
			return "loss"
		}
	}
	return FmtUnitValue(v, r.Binary)
}

// Agreement says how a paired unit's sides compare: "A only", "B only" or
// "both" / "neither" on a 0/1 unit, the signed difference otherwise; on an
// unpaired unit, why it is not paired.
func (r UnitRow) Agreement() string {
	switch {
	case !r.Paired && r.A.Has() && r.B.Has():
		return "both have it; the test is unpaired"
	case !r.Paired && r.A.Has():
		return "A only"
	case !r.Paired:
		return "B only"
	case r.Binary && r.Samples && r.Diff > 0:
		return "1 for A only"
	case r.Binary && r.Samples && r.Diff < 0:
		return "1 for B only"
	case r.Binary && r.Samples:
		return "the same"
	case r.Binary && r.Diff > 0:
		return "detected by A only"
	case r.Binary && r.Diff < 0:
		return "detected by B only"
	case r.Binary && r.A.Value == 1:
		return "both detected"
	case r.Binary:
		return "neither detected"
	}
	return signed(r.Diff)
}

// Label names the unit: "behavior × seed", or the seed alone.
func (r UnitRow) Label() string {
	switch {
	case r.Samples:
		return r.Behavior + " × sample " + r.Seed
	case r.Seed == "":
		return "(no seed: a unit of its own)"
	case r.Behavior != "":
		return r.Behavior + " × " + r.Seed
	}
	return r.Seed
}
