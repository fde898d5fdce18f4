package views

import (
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// JudgedView is the overview of an experiment's judge-scored audits:
// every model (in a role) on every judge dimension, after the validity
// gate.
type JudgedView struct {
	Exp model.Experiment
	// Query is the section's state (role, thr, fail, realism, excluded,
	// jdim), for its links, CSVs and figures.
	Query     url.Values
	Role      string
	Threshold string
	FailAt    string
	Realism   string
	Include   bool
	Dim       string // the forest plot's dimension
	Models    []JudgedModel
	Groups    []JudgedGroup
	DimNames  []string
	Gate      GateView
	// Logs and Seeds are how many files and seeds the audits come from.
	Logs, Seeds int
	// CompareA and CompareB are the first pair the comparison form offers.
	CompareA, CompareB string
	// Judge is whose scores the section reads ("": the evaluation
	// judge's); Judges the other model judges it can read instead.
	Judge  string
	Judges []string
}

// JudgeLink is the section under another judge ("": the evaluation
// judge), its other choices kept.
func (v JudgedView) JudgeLink(judge string) templ.SafeURL {
	q := url.Values{}
	for k, x := range v.Query {
		q[k] = x
	}
	q.Del("judge")
	if judge != "" {
		q.Set("judge", judge)
	}
	return links.Experiment(v.Exp.ID, links.Overview, q) + "#judged"
}

// JudgedModel is one model of the overview: its audits kept, their seeds,
// and how many of its audits the gate excluded.
type JudgedModel struct {
	Name                    string
	Audits, Seeds, Excluded int
}

// JudgedGroup is a group of dimensions with their rows.
type JudgedGroup struct {
	Name string
	Rows []JudgedRow
}

// JudgedRow is one dimension: its description and each model's cell.
type JudgedRow struct {
	Dim, Desc string
	Cells     []JudgedCell
}

// JudgedCell is one model on one dimension.
type JudgedCell struct {
	Mean, Lo, Hi    float64
	Yield, YLo, YHi float64
	N, Seeds, Hit   int
	Link            templ.SafeURL
	Model, Dim      string
}

// GateView is the validity gate: how many audits the statistics use, how
// many each reason excluded, and the excluded audits themselves.
type GateView struct {
	Kept, Total int
	Reasons     []ReasonCount
	Excluded    []ExcludedAudit
	// More is how many excluded audits are not listed.
	More int
}

// ReasonCount is one reason and how many audits it excluded.
type ReasonCount struct {
	Reason string
	N      int
}

// ExcludedAudit is one audit the gate excluded, with why.
type ExcludedAudit struct {
	Key, ID, Model, Seed, Reason, Detail string
}

// ExcludedN is how many audits the gate excluded.
func (g GateView) ExcludedN() int { return g.Total - g.Kept }

// link is the section's URL to (an experiment's page or figure) with kv
// set ("" removes a key).
func (v JudgedView) link(to func(q url.Values) templ.SafeURL, kv ...string) templ.SafeURL {
	return to(with(v.Query, kv...))
}

// page is the experiment's page p, for link.
func (v JudgedView) page(p links.ExpPage) func(url.Values) templ.SafeURL {
	return func(q url.Values) templ.SafeURL { return links.Experiment(v.Exp.ID, p, q) }
}

// DimLink shows the forest plot of dimension dim.
func (v JudgedView) DimLink(dim string) templ.SafeURL {
	return v.link(v.page(links.Overview), "jdim", dim) + "#judged-forest"
}

// RoleLink groups by role.
func (v JudgedView) RoleLink(role string) templ.SafeURL {
	r := role
	if role == "target" {
		r = ""
	}
	return v.link(v.page(links.Overview), "role", r) + "#judged"
}

// IncludeLink counts the excluded audits (or not).
func (v JudgedView) IncludeLink(include bool) templ.SafeURL {
	x := ""
	if include {
		x = "include"
	}
	return v.link(v.page(links.Overview), "excluded", x) + "#judged"
}

// CSVURL is the overview's table at full precision.
func (v JudgedView) CSVURL() templ.SafeURL {
	return v.link(v.page(links.DimensionsCSV))
}

// GateCSVURL lists every audit with its reason.
func (v JudgedView) GateCSVURL() templ.SafeURL {
	return v.link(v.page(links.GateCSV))
}

// FigureURL is the heat map (name "heatmap") or the forest plot ("forest").
func (v JudgedView) FigureURL(name, ext string) templ.SafeURL {
	return v.link(func(q url.Values) templ.SafeURL { return links.ExperimentFigure(v.Exp.ID, name+"."+ext, q) })
}

// CompareAction is where the comparison form goes.
func (v JudgedView) CompareAction() templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.Paired, nil)
}

// AuditURL is an audit's page.
func (v JudgedView) AuditURL(key string) templ.SafeURL { return links.Audit(key, nil) }

// FmtMean is a cell's mean and interval.
func (c JudgedCell) FmtMean() string { return Num(c.Mean, 2) }

// FmtYield is a cell's yield in per cent.
func (c JudgedCell) FmtYield() string { return Num(100*c.Yield, 0) + "%" }

// Title is the cell's hover text: every number it stands for.
func (c JudgedCell) Title() string {
	return c.Model + " · " + c.Dim + ": mean " + FmtEstimate(c.Mean, c.Lo, c.Hi, 2) + " over " + strconv.Itoa(c.N) + " audits, " +
		strconv.Itoa(c.Seeds) + " seeds; " + strconv.Itoa(c.Hit) + " at or above the threshold: " + FmtEstimate(100*c.Yield, 100*c.YLo, 100*c.YHi, 1) + "%"
}

// Shade is the cell's background class: the mean on the 1–10 scale in
// five steps (the figure's colours; the value is always printed).
func (c JudgedCell) Shade() string {
	switch {
	case c.N == 0:
		return "shade-none"
	case c.Mean < 1.5:
		return "shade-0"
	case c.Mean < 3:
		return "shade-1"
	case c.Mean < 5:
		return "shade-2"
	case c.Mean < 7:
		return "shade-3"
	}
	return "shade-4"
}
