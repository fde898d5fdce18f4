package app

import (
	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/analysis/scorer"
)

// The statistics' result types that the pages name, under the application
// layer's names: web maps them to view models without importing (or
// calling) the analysis packages. They are aliases, not copies, because
// they are plain values with nothing to add.
type (
	// Estimate is a value with its interval (NaN when undefined).
	Estimate = analysis.Estimate
	// SplitRate is a win rate with its counts and interval.
	SplitRate = analysis.SplitRate
	// Comparison is auditor A against one auditor B, every dimension.
	Comparison = experiment.Comparison
	// Diff is one dimension's row of a Comparison.
	Diff = experiment.Diff
	// ScorerRow is one metric of one Inspect log: reported and recomputed.
	ScorerRow = scorer.Row
	// MatchedUnits are the units behind one row of a Comparison; Unit is
	// one of them and UnitSide one side's audits of it.
	MatchedUnits = experiment.MatchedUnits
	Unit         = experiment.Unit
	UnitSide     = experiment.UnitSide
)

// CompareDimensions are the rows of a comparison, in order.
var CompareDimensions = experiment.CompareDimensions

// ByDifference orders units by the size of their difference, largest
// first, the unpaired ones last.
func ByDifference(us []Unit) { experiment.ByDifference(us) }

// BySignedDifference is experiment.BySignedDifference.
func BySignedDifference(us []Unit) { experiment.BySignedDifference(us) }
