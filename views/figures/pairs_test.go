package figures

import (
	"math"
	"testing"
)

func TestDotWhiskerGolden(t *testing.T) {
	nan := math.NaN()
	items := []Interval{
		{Label: "is more verbose", Group: "principle", Value: 0.42, Lo: 0.37, Hi: 0.47},
		{Label: "model:gale-pro", Group: "model", Value: 0.12, Lo: 0.05, Hi: 0.19},
		{Label: "no interval", Group: "principle", Value: 0.03, Lo: nan, Hi: nan},
		{Label: "undefined", Group: "principle", Value: nan, Lo: nan, Hi: nan},
		{Label: "is more concise", Group: "principle", Value: -0.38, Lo: -0.43, Hi: -0.33},
	}
	p, err := DotWhisker("Strength against Human (95% CI)", "strength", items)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "dot_whisker", p, ColumnWidth, DotWhiskerHeight(len(items), 1, 2))
}

func TestDotWhiskerSeriesGolden(t *testing.T) {
	nan := math.NaN()
	labels := []string{"is more verbose", "uses more emojis", "is more concise"}
	series := []Series{
		{Name: "arena", Points: []Point{{Value: 0.5, Lo: 0.4, Hi: 0.6}, {Value: 0.1, Lo: 0, Hi: 0.2}, {Value: -0.4, Lo: -0.5, Hi: -0.3}}},
		{Name: "prism", Points: []Point{{Value: 0.3, Lo: 0.1, Hi: 0.5}, {Value: nan, Lo: nan, Hi: nan}, {Value: -0.2, Lo: nan, Hi: nan}}},
		{Name: "internal", Points: []Point{{Value: 0.45, Lo: 0.3, Hi: 0.6}, {Value: 0.2, Lo: 0.05, Hi: 0.35}, {Value: -0.35, Lo: -0.5, Hi: -0.2}}},
	}
	p, err := DotWhiskerSeries("Strength by source (95% CI)", "strength", labels, series)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "dot_whisker_series", p, ColumnWidth, DotWhiskerHeight(len(labels), len(series), len(series)))
}

func TestHeatMapGolden(t *testing.T) {
	rows := []string{"is more verbose", "uses more emojis", "is more concise", "undefined"}
	cols := []string{"arena", "multipref", "prism", "internal"}
	values := [][]float64{
		{0.52, 0.31, 0.44, 0.05},
		{0.1, -0.02, 0.2, 0.9},
		{-0.48, -0.3, -0.41, -1},
		{math.NaN(), 0, math.NaN(), 0.25},
	}
	golden(t, "heat_map", HeatMap("Strength against Human", "strength", rows, cols, values, Diverging{-1, 0, 1}, 2),
		ColumnWidth, HeatMapHeight(len(rows)))
	// Long column labels are slanted; a one-sided scale has no red half.
	long := []string{"borealis-70b", "cirrus-large", "delta-mini", "fjord-8x7b", "juniper-3"}
	counts := [][]float64{{10, 200, 40, 0, 120}, {30, 5, 80, 160, 2}}
	golden(t, "heat_map_counts", HeatMap("Kept pairs", "pairs", rows[:2], long, counts, Diverging{0, 0, 200}, 0),
		ColumnWidth, HeatMapHeight(2)+40)
}

func TestDivergingPosition(t *testing.T) {
	for _, tt := range []struct {
		scale   Diverging
		v, want float64
	}{
		{Diverging{-1, 0, 1}, 0.5, 0.5},
		{Diverging{-1, 0, 1}, -2, -1},
		{Diverging{0, 0.5, 1}, 0.25, -0.5},
		{Diverging{0, 0.5, 1}, 1, 1},
		{Diverging{0, 0, 10}, 5, 0.5},
		{Diverging{0, 0, 10}, -5, 0},
		{Diverging{0, 0, 0}, 3, 0},
	} {
		if got := tt.scale.Position(tt.v); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%+v.Position(%v) = %v, want %v", tt.scale, tt.v, got, tt.want)
		}
	}
	if got := (Diverging{-1, 0, 1}).Position(math.NaN()); !math.IsNaN(got) {
		t.Errorf("Position(NaN) = %v, want NaN", got)
	}
}

func TestPairedLengthsGolden(t *testing.T) {
	rejected := []float64{120, 340, 80, 900, 45, 0}
	preferred := []float64{310, 330, 150, 1200, 45, 60}
	p, err := PairedLengths("Preferred longer in 4 of 6 pairs (66.7%)", "rejected response (characters)", "preferred response (characters)", rejected, preferred)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "paired_lengths", p, ColumnWidth, ColumnWidth)
}

func TestNiceBound(t *testing.T) {
	for _, tt := range []struct{ v, want float64 }{
		{0, 0.05}, {math.NaN(), 0.05}, {0.01, 0.05}, {0.07, 0.1}, {0.1, 0.1}, {0.34, 0.5}, {0.21, 0.25},
		{0.9, 1}, {1, 1}, {1.5, 2}, {2757, 5000}, {180, 200},
	} {
		if got := NiceBound(tt.v); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("NiceBound(%v) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
