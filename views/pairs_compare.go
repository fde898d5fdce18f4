package views

import (
	"fmt"
	"math"

	"github.com/a-h/templ"
)

// PairsCompareView compares two annotators of an AnnotatedPairs dataset
// against the same reference on the same comparisons.
type PairsCompareView struct {
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
	Metric, Test    string
	A, B            float64
	Diff, Lo, Hi, P float64
}

// FmtMetric formats an agreement or strength value.
func FmtMetric(v float64) string { return Num(v, 3) }

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
func (v PairsCompareView) Self() templ.SafeURL { return Path("pairs", v.Dataset, "compare") }
