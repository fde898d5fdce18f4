package views

import (
	"math"
	"net/url"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// PairedView compares two models of a judge-scored experiment seed by
// seed across every dimension.
type PairedView struct {
	Exp        model.Experiment
	Query      url.Values // the page's state, for its files and links
	Role, A, B string
	// Correction names the adjustment across dimensions in words.
	Correction string
	Seeds      int // seeds both models were audited on
	GateNote   string
	Groups     []PairedGroup
	Matched    []MatchedSeed
	// Significant counts the dimensions whose adjusted p is below 0.05.
	Significant int
	Dims        int
}

// PairedGroup is a group of dimensions.
type PairedGroup struct {
	Name string
	Rows []PairedRow
}

// PairedRow is one dimension: A − B over the seeds both have a score on.
type PairedRow struct {
	Dim, Desc    string
	Pairs        int
	MeanA, MeanB float64
	Diff, Lo, Hi float64
	P, Adjusted  float64
	Exact        bool
	UnitsLink    templ.SafeURL
}

// MatchedSeed is one seed both models were audited on, with the first
// audit of each side by side.
type MatchedSeed struct {
	Seed       string
	A, B       int // audits of each
	SideBySide templ.SafeURL
}

// Holds reports whether the difference survives the correction.
func (r PairedRow) Holds() bool { return r.Adjusted < 0.05 }

// FmtDiff is the difference with its interval.
func (r PairedRow) FmtDiff() string {
	if r.Pairs == 0 {
		return "–"
	}
	return signed2(r.Diff) + " [" + signed2(r.Lo) + ", " + signed2(r.Hi) + "]"
}

// CSVURL is the table at full precision; FigureURL its forest plot.
func (v PairedView) CSVURL() templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.PairedCSV, v.Query)
}

// FigureURL is the forest plot of the differences.
func (v PairedView) FigureURL(ext string) templ.SafeURL {
	return links.ExperimentFigure(v.Exp.ID, "paired."+ext, v.Query)
}

// SwapURL compares B with A.
func (v PairedView) SwapURL() templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.Paired, with(v.Query, "a", v.B, "b", v.A))
}

// BackURL is the overview with the same gate.
func (v PairedView) BackURL() templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.Overview, with(v.Query, "a", "", "b", "", "corr", "")) + "#judged"
}

// signed2 writes a difference on the judge's scale with its sign, to two
// decimals (a tenth of a point is a real difference there).
func signed2(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+∞"
	case math.IsInf(v, -1):
		return "−∞"
	}
	s := Num(v, 2)
	if s != "0.00" && s[0] != '-' {
		s = "+" + s
	}
	return s
}
