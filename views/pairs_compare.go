package views

import (
	"fmt"
	"math"
	"net/url"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/views/links"
)

// PairsCompareView compares two annotators of an AnnotatedPairs dataset
// against the same reference on the same comparisons.
type PairsCompareView struct {
	Query                 url.Values // the page's state, for the CSV link
	Dataset, DatasetName  string
	Synthetic             bool
	A, B, Ref             string // annotator keys
	AName, BName, RefName string
	Annotators            []Option // key, name
	Done                  bool     // A and B were given: the results below are set
	Kept                  int
	Rows                  []PairsCompareRow
	OnlyA, OnlyB          int
}

// PairsCompareRow is one metric: each annotator's value and the paired
// difference.
type PairsCompareRow struct {
	Metric, Definition, Test string
	A, ALo, AHi              float64 // A's level with its 95% interval
	B, BLo, BHi              float64
	Diff, Lo, Hi, P          float64
	N                        int // the comparisons the measure is paired on
	OnlyA, OnlyB             int // discordant comparisons of a rate
}

// FmtLevel formats a level with its interval: "0.612 [0.571, 0.651]".
func FmtLevel(v, lo, hi float64) string {
	if math.IsNaN(v) {
		return Undefined
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return Num(v, 3)
	}
	return Num(v, 3) + " [" + Num(lo, 3) + ", " + Num(hi, 3) + "]"
}

// CSVURL is the page's table as CSV.
func (v PairsCompareView) CSVURL() templ.SafeURL {
	return links.Pairs(v.Dataset, links.PairsCompareCSV, v.Query)
}

// FmtDiffMetric formats a difference of metrics with its interval.
func FmtDiffMetric(v, lo, hi float64) string {
	if math.IsNaN(v) {
		return Undefined
	}
	s := fmt.Sprintf("%+.3f", v)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return s
	}
	return s + fmt.Sprintf(" [%+.3f, %+.3f]", lo, hi)
}

// Self is the page's own URL (for the form).
func (v PairsCompareView) Self() templ.SafeURL {
	return links.Pairs(v.Dataset, links.PairsCompare, nil)
}
