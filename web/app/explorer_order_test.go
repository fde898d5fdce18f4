package app

import (
	"math"
	"slices"
	"testing"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/explorer"
)

// TestTableOrder orders a hand-made table of four annotators and two
// columns by each key, both ways: strengths (0.5, 0.1), (NaN, 0.3),
// (−0.2, 0.4) and (0.5, absent); the blanks last either way, ties in the
// annotators' order, names without regard to case.
func TestTableOrder(t *testing.T) {
	cell := func(s float64) Cell { return Cell{Stats: explorer.Stats{Agreement: analysis.Agreement{Strength: s}}} }
	absent := Cell{Absent: "not in this dataset"}
	tb := &Table{
		Columns: []Column{{Key: "c1"}, {Key: "c2"}},
		Rows:    []explorer.Annotator{{Name: "delta"}, {Name: "Alpha"}, {Name: "charlie"}, {Name: "bravo"}},
		Stats: [][]Cell{
			{cell(0.5), cell(math.NaN()), cell(-0.2), cell(0.5)},
			{cell(0.1), cell(0.3), cell(0.4), absent},
		},
	}
	m, _ := LookupMetric("strength")
	for _, c := range []struct {
		sort string
		desc bool
		want []int
	}{
		{"c1", false, []int{2, 0, 3, 1}},
		{"c1", true, []int{0, 3, 2, 1}},
		{"c2", false, []int{0, 1, 2, 3}},
		{"c2", true, []int{2, 1, 0, 3}},
		// Spreads: 0.4, 0 (one value), 0.6, 0 (one value).
		{"spread", true, []int{2, 0, 1, 3}},
		{"spread", false, []int{1, 3, 0, 2}},
		{"name", false, []int{1, 3, 2, 0}},
		{"name", true, []int{0, 2, 3, 1}},
	} {
		if got := tb.Order(m, c.sort, c.desc); !slices.Equal(got, c.want) {
			t.Errorf("by %s desc %v: %v, want %v", c.sort, c.desc, got, c.want)
		}
	}
}
