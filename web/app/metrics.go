package app

import (
	"math"

	"github.com/auditscope/auditscope/analysis/explorer"
)

// The explorer's metrics: which numbers of a row against a reference a
// table shows, and how they are shaded.

// Metric is one metric the explorer can show.
type Metric struct {
	Key, Label string
	Integer    bool // a count, shown without decimals and not shaded
}

// Metrics are the metrics the explorer offers, in menu order.
var Metrics = []Metric{
	{Key: "strength", Label: "Strength"},
	{Key: "relevance", Label: "Relevance"},
	{Key: "accuracy", Label: "Accuracy"},
	{Key: "agreement", Label: "Agreement"},
	{Key: "kappa", Label: "Cohen's kappa (adjusted)"},
	{Key: "kappa_unadjusted", Label: "Cohen's kappa (unadjusted)"},
	{Key: "kept", Label: "Kept pairs", Integer: true},
	{Key: "agree", Label: "Agreeing votes", Integer: true},
	{Key: "disagree", Label: "Disagreeing votes", Integer: true},
	{Key: "not_applicable", Label: "Not applicable votes", Integer: true},
}

// LookupMetric finds a metric by key.
func LookupMetric(key string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}

// Cell is one row's statistics in one column, or why the cell is empty.
type Cell struct {
	Absent string // the row is not in the column's dataset, or is its reference
	explorer.Stats
}

// Value returns the metric of c with its interval (NaN when there is none).
func (m Metric) Value(c Cell) (v, lo, hi float64) {
	nan := math.NaN()
	if c.Absent != "" {
		return nan, nan, nan
	}
	g := c.Agreement
	switch m.Key {
	case "strength":
		return g.Strength, c.Strength.Lo, c.Strength.Hi
	case "relevance":
		return g.Relevance, c.Relevance.Lo, c.Relevance.Hi
	case "accuracy":
		return g.Accuracy, c.Accuracy.Lo, c.Accuracy.Hi
	case "agreement":
		return g.Agreement, nan, nan
	case "kappa":
		return g.Kappa, nan, nan
	case "kappa_unadjusted":
		return c.KappaUnadjusted, nan, nan
	case "kept":
		return float64(g.Kept), nan, nan
	case "agree":
		return float64(g.Agree), nan, nan
	case "disagree":
		return float64(g.Disagree), nan, nan
	default: // not_applicable
		return float64(g.NotApplicable), nan, nan
	}
}

// Shade places a metric value on the diverging colour scale [-1, 1]:
// kappa-like metrics as they are, accuracy around its chance level 0.5,
// shares from 0 up; counts are not shaded (NaN).
func (m Metric) Shade(v float64) float64 {
	switch m.Key {
	case "strength", "kappa", "kappa_unadjusted", "relevance", "agreement":
		return v
	case "accuracy":
		return 2 * (v - 0.5)
	default:
		return math.NaN()
	}
}
