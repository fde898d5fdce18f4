package views

import (
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// CompareView is the page comparing auditor A with one or more auditors B.
type CompareView struct {
	Exp      model.Experiment
	Query    url.Values // the page's state (a, b), for links
	A        string
	B        []string
	Auditors []Option // every auditor, for the pickers
	Blocks   []CompareBlock
	Presets  []PresetLink
	// Samples marks an experiment of plain Inspect samples: A and B are
	// models, the rows scorer metrics, the units samples.
	Samples bool
	// Judge is the judge whose outcomes the page reads ("" the evaluation
	// judge); Judges are the experiment's others with outcomes, for the
	// picker. With any, each row says how it reads under each (Swaps).
	Judge  string
	Judges []string
}

// CompareBlock is A against one B.
type CompareBlock struct {
	A, AName, B, BName string
	Rows               []CompareRow
	Behaviors          []BehaviorRow
}

// CompareRow is one dimension's difference A − B.
type CompareRow struct {
	Dim, Title    string
	Value, Lo, Hi float64
	P, PHolm      float64
	PFloor        float64 // the method's smallest p (a bootstrap's), 0 for none
	NA, NB, Pairs int
	Method        string
	Unit          string // what was sampled: behavior × seed, benign seed, production seed
	OnlyA, OnlyB  int    // a 0/1 dimension's discordant pairs
	Samples       bool   // a scorer metric of Inspect samples, in its own units
	// Swaps are the row under each other judge; Holds of Judged judges
	// (the page's own included) find the difference, on its side.
	Swaps         []SwapCell
	Holds, Judged int
}

// BehaviorRow is the audit-quality difference on one behavior's pairs.
type BehaviorRow struct {
	Behavior         string
	Pairs            int
	Value, Lo, Hi, P float64
	Share            float64
}

// PresetLink is one of the paper's comparisons; Tested ones carry the
// composite difference A − B, its p and the p adjusted over the family of
// presets (Benjamini–Hochberg).
type PresetLink struct {
	Kind, Title    string
	URL            templ.SafeURL
	Tested         bool
	Value, Lo, Hi  float64
	P, PBH, PFloor float64
}

// FmtDiff formats a difference in points with a sign and its interval:
// "+4.2 [−1.0, 9.5]".
func FmtDiff(v, lo, hi float64) string {
	if math.IsNaN(v) {
		return Undefined
	}
	s := signed(v)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return s
	}
	return s + " [" + signed(lo) + ", " + signed(hi) + "]"
}

func signed(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+∞"
	case math.IsInf(v, -1):
		return "−∞"
	}
	s := Num(v, 1)
	if s != "0.0" && s[0] != '-' {
		s = "+" + s
	}
	return s
}

// FmtP formats a p-value: three decimals, "< 0.001" below that.
func FmtP(p float64) string {
	switch {
	case math.IsNaN(p):
		return Undefined
	case p < 0.001:
		return "< 0.001"
	}
	return Num(p, 3)
}

// FmtPFloor is FmtP for a method whose p-value cannot go below floor (a
// bootstrap's 2/(resamples + 1)): a p at the floor reads "< floor", since
// the true p may be any smaller value.
func FmtPFloor(p, floor float64) string {
	if floor > 0 && p <= floor {
		return "< " + Num(floor, 4)
	}
	return FmtP(p)
}

// Significant reports whether the Holm-adjusted p-value is below 0.05 and
// the interval excludes 0: where test and interval are two methods
// (AuditBench's McNemar p beside Newcombe's interval), a row the interval
// does not separate from 0 is not marked, whatever p says.
func (r CompareRow) Significant() bool {
	return !math.IsNaN(r.PHolm) && r.PHolm < 0.05 && (r.Lo > 0 || r.Hi < 0)
}

// FmtN says what the difference rests on, in its units: "90 benign seeds
// paired (A has 90, B 90)"; a 0/1 dimension adds its discordant pairs.
func (r CompareRow) FmtN() string {
	unit := r.Unit + "s"
	if r.Unit == "" || r.Dim == "composite" {
		unit = "units"
	}
	var s string
	if r.Pairs > 0 {
		s = fmt.Sprintf("%d %s paired (A has %d, B %d)", r.Pairs, unit, r.NA, r.NB)
	} else {
		s = fmt.Sprintf("none paired (A has %d %s, B %d)", r.NA, unit, r.NB)
	}
	if r.Dim == "composite" {
		s += " over the four dimensions"
	}
	if r.OnlyA+r.OnlyB > 0 {
		s += fmt.Sprintf("; A only %d, B only %d", r.OnlyA, r.OnlyB)
	}
	if r.Samples && r.OnlyA+r.OnlyB > 0 {
		s = strings.Replace(s, "; A only", "; 1 for A only", 1)
	}
	return s
}

// FmtShare is a behavior's share of the difference in percent.
func (b BehaviorRow) FmtShare() string {
	if math.IsNaN(b.Share) {
		return Undefined
	}
	return Num(100*b.Share, 0) + "%"
}

// CompareJudgeURL is the page for A against bs under judge ("" the
// evaluation judge).
func CompareJudgeURL(exp, judge, a string, bs ...string) templ.SafeURL {
	q := url.Values{}
	if a != "" {
		q.Set("a", a)
	}
	for _, b := range bs {
		q.Add("b", b)
	}
	if judge != "" {
		q.Set("judge", judge)
	}
	return links.Experiment(exp, links.Compare, q)
}

// BOptions are the choices of B, the chosen ones marked.
func (v CompareView) BOptions() []PairsOption {
	out := make([]PairsOption, len(v.Auditors))
	for i, o := range v.Auditors {
		out[i] = PairsOption{Value: o.Value, Label: o.Label, Selected: v.IsB(o.Value)}
	}
	return out
}

// FileURL is the page's CSV or figure (ext png, svg or pdf).
func (v CompareView) FileURL(ext string) templ.SafeURL {
	if ext == "csv" {
		return links.Experiment(v.Exp.ID, links.CompareCSV, v.Query)
	}
	return links.ExperimentFigure(v.Exp.ID, "compare."+ext, v.Query)
}

// IsB reports whether id is one of the Bs.
func (v CompareView) IsB(id string) bool {
	for _, b := range v.B {
		if b == id {
			return true
		}
	}
	return false
}
